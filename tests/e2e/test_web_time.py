"""Time on the screens: Sales sets a due date and Rush on a new order, reschedules, holds
and resumes it from its page; the list, the queue and the wall display say Rush, Late
and the due date in words, Rush first; a held order's task leaves the queue."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from playwright.async_api import expect

from db.engine import unit_of_work
from db.schedule import hold
from domain.enums import WorkOrderPriority
from tests.e2e.web.support import OpenTab, base
from tests.support.client import Client, gid
from tests.support.orders import reschedule
from tests.support.shop import Shop
from tests.support.subscriptions import display_token

pytestmark = pytest.mark.e2e


async def test_sales_schedules_holds_and_resumes_and_every_screen_says_so(
    api: Client, server: str, shop: Shop, tabs: OpenTab, screenshots: Path
) -> None:
    await shop.order(
        ["print"], due_at=datetime.now(UTC) - timedelta(hours=2), details={"product": "Late flyers"}
    )
    await shop.order(
        ["print"],
        priority=WorkOrderPriority.RUSH,
        due_at=datetime.now(UTC) + timedelta(hours=30),
        details={"product": "Rush banners"},
    )
    plain = await shop.order(["print"], details={"product": "Plain cards"})
    # The queue: Rush first, then the earliest due date (the late one), then no date.
    pat = await tabs(token=shop.tokens["pat"])
    await pat.page.goto(base(server) + "/queues")
    waiting = pat.page.locator(".tasks.waiting > li")
    await expect(waiting).to_have_count(3)
    await expect(waiting.nth(0)).to_contain_text("Rush banners")
    await expect(waiting.nth(0)).to_contain_text("Rush")
    await expect(waiting.nth(1)).to_contain_text("Late flyers")
    await expect(waiting.nth(1)).to_contain_text("Late")
    await expect(waiting.nth(1)).to_contain_text("Late by 2 h")
    await expect(waiting.nth(2)).to_contain_text("Plain cards")
    await pat.page.screenshot(path=str(screenshots / "queues-time-desktop.png"))

    secret = (await display_token(api, shop, ["print"]))["secret"]
    wall = await tabs()
    await wall.page.goto(f"{base(server)}/display/print?token={secret}")
    items = wall.page.locator("#waiting > li")
    await expect(items).to_have_count(3)
    await expect(items.nth(0)).to_contain_text("RUSH")
    await expect(items.nth(1)).to_contain_text("LATE")
    await wall.page.screenshot(path=str(screenshots / "wall-display-time-desktop.png"))

    sam = await tabs(token=shop.tokens["sam"])
    page = sam.page
    await page.goto(base(server) + "/orders")
    await expect(page.locator("table.orders")).to_contain_text("Late")
    await expect(page.locator("table.orders")).to_contain_text("Rush")
    await page.screenshot(path=str(screenshots / "work-orders-time-desktop.png"))

    # The plain order: reschedule it to Rush with a date, hold it, resume it.
    await page.goto(base(server) + "/orders/" + gid("WorkOrder", plain))
    await expect(page.locator(".schedule")).to_contain_text("No due date")
    await page.get_by_role("button", name="Reschedule").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("Due").fill("2030-06-01T09:30")
    await dialog.get_by_label("Rush: first in every queue").check()
    await dialog.get_by_role("button", name="Save schedule").click()
    await expect(dialog).to_have_count(0)
    await expect(page.locator(".schedule")).to_contain_text("Rush")
    await expect(page.locator(".schedule")).to_contain_text("due in")
    await expect(page.locator(".timeline")).to_contain_text(
        "Rescheduled from no due date, normal priority"
    )
    await page.get_by_role("button", name="Hold").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("Reason").fill("Waiting for the proof")
    await dialog.get_by_role("button", name="Hold work order").click()
    await expect(page.locator(".schedule")).to_contain_text("On hold")
    await expect(page.locator(".schedule")).to_contain_text("Waiting for the proof")
    await expect(page.get_by_role("button", name="Resume")).to_be_visible()
    await page.screenshot(path=str(screenshots / "work-order-held-desktop.png"))
    # The held order's task leaves the queue, live.
    await expect(waiting).to_have_count(2)
    await expect(pat.page.locator(".tasks.waiting")).not_to_contain_text("Plain cards")
    await page.get_by_role("button", name="Resume").click()
    await expect(page.locator(".schedule")).not_to_contain_text("On hold")
    await expect(waiting).to_have_count(3)
    # Rush, due 2030: after the other Rush order (due sooner), before the late normal one.
    await expect(waiting.nth(1)).to_contain_text("Plain cards")
    for tab in (pat, wall, sam):
        tab.assert_clean()
        await tab.close()


async def test_a_new_order_takes_a_due_date_and_rush(
    server: str, shop: Shop, tabs: OpenTab
) -> None:
    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    await page.goto(base(server) + "/orders/new")
    await page.get_by_label("Customer").fill("Clockwork Ltd")
    await page.get_by_role("button", name="Create customer “Clockwork Ltd”").click()
    await page.get_by_role("dialog").get_by_role("button", name="Create customer").click()
    await expect(page.get_by_text("Clockwork Ltd", exact=True)).to_be_visible()
    await page.get_by_role("checkbox", name="Print", exact=True).check()
    await page.get_by_label("Product").fill("Clock faces")
    await page.get_by_label("Due").fill("2030-01-15T16:00")
    await page.get_by_role("checkbox", name="Rush: first in every queue").check()
    await page.get_by_role("button", name="Create work order").click()
    await expect(page.locator(".schedule")).to_contain_text("Rush")
    await expect(page.locator(".schedule")).to_contain_text("2030-01-15 16:00")
    tab.assert_clean()
    await tab.close()


async def test_the_list_filters_late_rush_and_held_and_sorts_by_due_date(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path
) -> None:
    await shop.order(["print"], details={"product": "Plain cards"})
    await shop.order(
        ["print"], due_at=datetime.now(UTC) - timedelta(hours=2), details={"product": "Late flyers"}
    )
    await shop.order(
        ["print"],
        priority=WorkOrderPriority.RUSH,
        due_at=datetime.now(UTC) + timedelta(days=3),
        details={"product": "Rush banners"},
    )
    held = await shop.order(
        ["print"], due_at=datetime.now(UTC) + timedelta(days=1), details={"product": "Proof cards"}
    )
    async with unit_of_work(shop.engine) as conn:
        await hold(conn, held, "Waiting for the proof", shop.users["sam"])
    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    await page.goto(base(server) + "/orders")
    rows = page.locator("table.orders tbody tr")
    await expect(rows).to_have_count(4)
    for label, product in [
        ("Late only", "Late flyers"),
        ("Rush only", "Rush banners"),
        ("On hold only", "Proof cards"),
    ]:
        await page.get_by_label(label).check()
        await expect(rows).to_have_count(1)
        await expect(rows.first).to_contain_text(product)
        assert page.url.endswith(("late=1", "rush=1", "held=1"))
        await page.get_by_label(label).uncheck()
        await expect(rows).to_have_count(4)
    await page.get_by_label("Sort").select_option(label="Due date, earliest first")
    await expect(rows.nth(0)).to_contain_text("Late flyers")
    await expect(rows.nth(1)).to_contain_text("Proof cards")
    await expect(rows.nth(2)).to_contain_text("Rush banners")
    await expect(rows.nth(3)).to_contain_text("Plain cards")
    await page.screenshot(path=str(screenshots / "work-orders-by-due-desktop.png"))
    # The address keeps the sort: a reload shows the same order.
    await page.reload()
    await expect(rows.nth(0)).to_contain_text("Late flyers")
    await expect(page.get_by_label("Sort")).to_have_value("due")
    tab.assert_clean()
    await tab.close()


async def test_an_order_turns_late_on_every_screen_without_a_reload(
    api: Client, server: str, shop: Shop, tabs: OpenTab, screenshots: Path
) -> None:
    """The server's timer fires at the due time; the queue, the wall display and the order
    page hear its event and say Late, none of them reloaded. The order is due in an hour
    while the three tabs open (however long a loaded machine takes), then brought forward
    to seconds away: the screens hear that too, and the timer fires at the new time."""
    order = await shop.order(
        ["print"],
        due_at=datetime.now(UTC) + timedelta(hours=1),
        details={"product": "Tight flyers"},
    )
    pat = await tabs(token=shop.tokens["pat"])
    await pat.page.goto(base(server) + "/queues")
    waiting = pat.page.locator(".tasks.waiting > li")
    await expect(waiting).to_have_count(1)
    secret = (await display_token(api, shop, ["print"]))["secret"]
    wall = await tabs()
    await wall.page.goto(f"{base(server)}/display/print?token={secret}")
    items = wall.page.locator("#waiting > li")
    await expect(items).to_have_count(1)
    sam = await tabs(token=shop.tokens["sam"])
    await sam.page.goto(base(server) + "/orders/" + gid("WorkOrder", order))
    await expect(sam.page.locator(".schedule")).to_contain_text("due in 59 min")
    due = datetime.now(UTC) + timedelta(seconds=5)
    await reschedule(api, shop, order, due.isoformat())
    # Seconds away: not "0 min" either side of the due time.
    await expect(sam.page.locator(".schedule")).to_contain_text("due in under 1 min")
    # Before the due time none says Late (the screens were read before it).
    assert datetime.now(UTC) < due
    await expect(waiting.first).not_to_contain_text("Late")
    await expect(items.first).not_to_contain_text("LATE")
    await expect(waiting.first).to_contain_text("Late", timeout=30_000)
    await expect(waiting.first).to_contain_text("Late by under 1 min")
    await expect(items.first).to_contain_text("LATE", timeout=20_000)
    await expect(sam.page.locator(".schedule .badge.late")).to_contain_text("Late", timeout=20_000)
    await pat.page.screenshot(path=str(screenshots / "queues-turned-late-desktop.png"))
    await wall.page.screenshot(path=str(screenshots / "wall-display-turned-late-desktop.png"))
    for tab in (pat, wall, sam):
        tab.assert_clean()
        await tab.close()
