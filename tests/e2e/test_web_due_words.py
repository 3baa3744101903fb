"""What a due date reads on the screens: a completed order says how it ended ("done on
time", "done 16 h 0 min late") and a cancelled one counts nothing down, in the list, on
the order page and on the ticket; a due date already passed is asked about before the new
order or the reschedule is sent, then taken, and the server's warning shown; every time is
the shop's (PRESSROOM_TIME_ZONE, named at the foot of the screen) whatever the browser's
zone, and chart days are written the shop's way (PRESSROOM_LOCALE)."""

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import expect

from tests.e2e.web.support import OpenTab, base, scalar, shoot_widths
from tests.support.client import Client, gid
from tests.support.servers import serving
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e

CANCEL = """mutation($i: CancelWorkOrderInput!) { cancelWorkOrder(input: $i) {
  userErrors { code } } }"""
LATE = "This order is already late: its due date has passed."


def hours(n: float) -> datetime:
    return (datetime.now(UTC) + timedelta(hours=n)).replace(microsecond=0)


async def test_closed_orders_say_how_they_ended_and_count_nothing_down(
    api: Client, server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    due_late = hours(-16)
    done_late = await shop.order(
        ["print"], due_at=due_late, at=hours(-20), details={"product": "Late flyers"}
    )
    done_on_time = await shop.order(["print"], due_at=hours(5), details={"product": "Timely cards"})
    cancelled = await shop.order(
        ["print"], due_at=hours(-3), details={"product": "Dropped banners"}
    )
    for order in (done_late, done_on_time):
        await shop.complete(order)
    cancel = {"i": {"workOrderId": gid("WorkOrder", cancelled), "reason": "Gone."}}
    await api.as_(shop.tokens["sam"])(CANCEL, cancel)
    said = {
        done_late: ("Late flyers", "(done 16 h 0 min late)", "late"),
        done_on_time: ("Timely cards", "(done on time)", "on-time"),
        cancelled: ("Dropped banners", None, "cancelled"),
    }
    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    await page.goto(base(server) + "/orders")
    await expect(page.locator("table.orders tbody tr")).to_have_count(3)
    for product, words, _ in said.values():
        due = page.locator("table.orders tbody tr", has_text=product).locator('[data-label="Due"]')
        if words:
            await expect(due).to_contain_text(words)
        else:
            await expect(due).to_contain_text(":")
            await expect(due).not_to_contain_text("(")
    await shoot_widths(page, screenshots, "due-closed-orders-list", axe_source)
    for order, (_, words, name) in said.items():
        await page.goto(base(server) + "/orders/" + gid("WorkOrder", order))
        schedule = page.locator(".schedule")
        await expect(schedule).to_contain_text("Due")
        if words:
            await expect(schedule).to_contain_text(words)
        for countdown in ("due now", "due in", "min late"):
            if words is None or countdown not in words:
                await expect(schedule).not_to_contain_text(countdown)
        await shoot_widths(page, screenshots, f"due-closed-order-{name}", axe_source)
    await page.goto(base(server) + "/orders/" + gid("WorkOrder", done_late) + "/ticket")
    await expect(page.locator(".ticket-due")).to_have_text(
        f"Due {due_late:%Y-%m-%d %H:%M} UTC · done 16 h 0 min late"
    )
    tab.assert_clean()
    await tab.close()


async def test_a_due_date_already_passed_is_asked_about_then_taken_with_the_warning(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    await page.goto(base(server) + "/orders/new")
    await page.get_by_label("Customer").fill("Clockwork Ltd")
    await page.get_by_role("button", name="Create customer “Clockwork Ltd”").click()
    await page.get_by_role("dialog").get_by_role("button", name="Create customer").click()
    await expect(page.get_by_text("Clockwork Ltd", exact=True)).to_be_visible()
    await page.get_by_role("checkbox", name="Print", exact=True).check()
    await page.get_by_label("Product").fill("Overdue cards")
    await page.get_by_label("Due").fill("2020-01-15T16:00")
    await page.get_by_role("button", name="Create work order").click()
    question = page.get_by_role("alert").filter(has_text="already late")
    await expect(question).to_have_text(
        "This order is already late. Create it anyway?Create it anywayChange the due date"
    )
    await shoot_widths(page, screenshots, "due-late-question-new-order", axe_source)
    assert await scalar(shop, "SELECT count(*) FROM work_orders") == 0
    await question.get_by_role("button", name="Change the due date").click()
    await expect(question).to_have_count(0)
    await expect(page.get_by_label("Due")).to_be_focused()
    await page.get_by_role("button", name="Create work order").click()
    await question.get_by_role("button", name="Create it anyway").click()
    await expect(page.locator(".message.success")).to_have_text(f"✓ Work order created. {LATE}")
    await expect(page.locator(".schedule")).to_contain_text("Late")
    assert await scalar(shop, "SELECT count(*) FROM work_orders") == 1

    await page.get_by_role("button", name="Reschedule").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("Due").fill("2021-03-01T10:00")
    await dialog.get_by_role("button", name="Save schedule").click()
    await expect(dialog.get_by_role("alert")).to_contain_text(
        "This order is already late. Reschedule it anyway?"
    )
    await shoot_widths(page, screenshots, "due-late-question-reschedule", axe_source)
    await dialog.get_by_role("button", name="Reschedule it anyway").click()
    await expect(dialog).to_have_count(0)
    await expect(page.locator(".message.success")).to_have_text(f"✓ Schedule saved. {LATE}")
    await expect(page.locator(".schedule")).to_contain_text("2021-03-01 10:00")
    tab.assert_clean()
    await tab.close()


async def test_times_are_the_shops_and_chart_days_its_way_whatever_the_browsers(
    lone_shop: tuple[str, Shop], tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    url, shop = lone_shop
    # 15:00 UTC is 16:00 in Berlin in January (CET), and 10:00 in New York (EST).
    order = gid(
        "WorkOrder",
        await shop.order(
            ["print"], due_at=datetime(2030, 1, 15, 15, 0, tzinfo=UTC),
            details={"product": "Berlin cards"},
        ),
    )  # fmt: skip
    settings = {"PRESSROOM_TIME_ZONE": "Europe/Berlin", "PRESSROOM_LOCALE": "de-DE"}
    with serving(None, database_url=url, settings=settings) as (berlin, _):
        tab = await tabs(token=shop.tokens["sam"], timezone_id="America/New_York")
        page = tab.page
        await page.goto(f"{berlin}/orders/{order}")
        assert await page.evaluate("new Date(Date.UTC(2030, 0, 15)).getTimezoneOffset()") == 300
        await expect(page.locator(".schedule")).to_contain_text("Due 2030-01-15 16:00")
        await expect(page.locator("footer")).to_have_text("Times are the shop's: Europe/Berlin.")
        await page.get_by_role("button", name="Reschedule").click()
        dialog = page.get_by_role("dialog")
        await expect(dialog.get_by_label("Due")).to_have_value("2030-01-15T16:00")
        # Summer: 09:30 in Berlin is 07:30 UTC (CEST).
        await dialog.get_by_label("Due").fill("2030-07-01T09:30")
        await dialog.get_by_role("button", name="Save schedule").click()
        await expect(dialog).to_have_count(0)
        await expect(page.locator(".schedule")).to_contain_text("Due 2030-07-01 09:30")
        stored = await scalar(shop, "SELECT due_at FROM work_orders")
        assert stored == datetime(2030, 7, 1, 7, 30, tzinfo=UTC)
        await shoot_widths(page, screenshots, "due-shop-zone-order", axe_source)
        days: Any = await page.evaluate(
            """async () => {
              const { lineChart } = await import("/app/lib/chart.js");
              const { options } = lineChart(["2026-12-05"], [{ label: "Print", values: [1] }]);
              return options.axes[0].values(null, [Date.UTC(2026, 11, 5) / 1000]);
            }"""
        )
        assert days == ["5. Dez."]
        await page.goto(f"{berlin}/insights")
        await expect(page.locator(".chart canvas").first).to_be_visible()
        await shoot_widths(page, screenshots, "due-shop-zone-insights", axe_source)
        tab.assert_clean()
        await tab.close()
