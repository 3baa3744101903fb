"""Insights in Chromium: the flow of the last 30 (or 7, 90) days as figures (the time
orders waited for the customer's approval among them) and three charts (waiting and
working time per department, the longest waits first; tasks completed per day), each
with its numbers behind "Show as table"; for Sales and admins only."""

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from playwright.async_api import expect

from db import clock, proofs
from db.engine import unit_of_work
from db.proof_decisions import decide
from db.proofs import NewProof
from db.tasks import Actor, transition_task
from domain.enums import TaskAction
from tests.e2e.web.support import OpenTab, base, shoot, shoot_widths
from tests.support.database import task_ids
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e


async def moved(shop: Shop, task: int, action: TaskAction, who: str, hours_ago: float) -> None:
    async with unit_of_work(shop.engine) as conn:
        await clock.stamp_as_of(conn, datetime.now(UTC) - timedelta(hours=hours_ago))
        await transition_task(conn, task, action, Actor(shop.users[who], False))


async def a_few_days(shop: Shop) -> None:
    """Print waits 2 h and works 1 h; Finishing waits 1 h (after Print) and works 2 h."""
    order = await shop.order(["print", "finishing"], at=datetime.now(UTC) - timedelta(hours=30))
    tasks = await task_ids(shop.engine, order)
    await moved(shop, tasks["print"], TaskAction.START, "pat", 28)
    await moved(shop, tasks["print"], TaskAction.FINISH, "pat", 27)
    await moved(shop, tasks["finishing"], TaskAction.START, "fin", 29)
    await moved(shop, tasks["finishing"], TaskAction.FINISH, "fin", 27.5)


async def a_proof_approved_after(shop: Shop, hours: float) -> None:
    """An order whose one proof the customer approved `hours` after its upload, done."""
    order = await shop.order(["print"], at=datetime.now(UTC) - timedelta(hours=26))
    async with unit_of_work(shop.engine) as conn:
        await clock.stamp_as_of(conn, datetime.now(UTC) - timedelta(hours=26))
        new = NewProof(order, "p.png", "image/png", 4, b"\x00" * 32, 1, 1, shop.users["sam"], True)
        await proofs.add_version(conn, new, io.BytesIO(b"\x89PNG"), b"\x89PNG")
    async with unit_of_work(shop.engine) as conn:
        await clock.stamp_as_of(conn, datetime.now(UTC) - timedelta(hours=26 - hours))
        await decide(
            conn, work_order_id=order, version=1, approve=True, comment=None,
            decided_by_name="Ann", sales_user_id=shop.users["sam"], customer_link_id=None,
        )  # fmt: skip
    await shop.complete(order)


async def test_sales_reads_the_flow_as_charts_and_tables(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    await a_few_days(shop)
    await a_proof_approved_after(shop, 1.5)
    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    await page.goto(base(server) + "/insights")
    await expect(page.get_by_role("button", name="Last 30 days")).to_have_attribute(
        "aria-pressed", "true"
    )
    await expect(page.locator(".chart canvas")).to_have_count(3)
    customer = page.locator(".figure", has_text="Waiting for the customer, median")
    await expect(customer.locator(".figure-value")).to_have_text("1.5 h")
    await expect(customer.locator(".hint")).to_have_text(
        "85th percentile 1.5 h; 1 orders with proofs"
    )
    waiting = page.get_by_role("region", name="Waiting for a department")
    await waiting.get_by_role("button", name="Show as table").click()
    rows = waiting.locator(".table-wrap tbody tr")
    # In route order (this shop's departments follow none: by name), delivery last. Print
    # waited 2 h (from the order's creation), Finishing 1 h.
    await expect(rows.locator("th")).to_have_text(["Design", "Finishing", "Print", "Delivery"])
    await expect(rows.nth(2).locator("td")).to_have_text(["1", "2.0 h", "2.0 h", "2.0 h"])
    await expect(rows.nth(1).locator("td")).to_have_text(["1", "1.0 h", "1.0 h", "1.0 h"])
    working = page.get_by_role("region", name="Working time")
    await working.get_by_role("button", name="Show as table").click()
    await expect(working.locator(".table-wrap tbody tr").nth(1).locator("td")).to_have_text(
        ["1", "1.5 h", "1.5 h", "1.5 h"]
    )
    await shoot(page, screenshots, "insights", axe_source)
    per_day = page.get_by_role("region", name="Tasks completed per day")
    await per_day.get_by_role("button", name="Show as table").click()
    await expect(per_day.locator(".table-wrap tbody tr")).to_have_count(31)
    await page.get_by_role("button", name="Last 7 days").click()
    await expect(per_day.locator(".table-wrap tbody tr")).to_have_count(8)
    tab.assert_clean()


async def test_the_figures_say_what_they_count_in_words(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    await a_few_days(shop)
    now = datetime.now(UTC)
    await shop.complete(
        await shop.order([], at=now - timedelta(hours=3), due_at=now + timedelta(hours=1))
    )
    for hours_late in (2, 5):
        await shop.order(
            ["print"], at=now - timedelta(hours=9), due_at=now - timedelta(hours=hours_late)
        )
    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    await page.goto(base(server) + "/insights")
    on_time = page.locator(".figure", has_text="On time")
    # One done on time, two open past their due date: not "100 % - 1 of 1".
    await expect(on_time.locator(".figure-value")).to_have_text("33 %")
    await expect(on_time.locator(".hint")).to_have_text(
        "1 of 3 orders on time: 1 completed with a due date, 2 open and late now"
    )
    waiting = page.get_by_role("img", name="Waiting time per department")
    await expect(waiting).to_have_accessible_description(
        "Design: no tasks. Finishing: median 1.0 h, longest 1.0 h (1 task). "
        "Print: median 2.0 h, longest 2.0 h (1 task). Delivery: no tasks."
    )
    working = page.get_by_role("img", name="Working time per department")
    await expect(working).to_have_accessible_description(
        "Design: no tasks. Finishing: median 1.5 h, longest 1.5 h (1 task). "
        "Print: median 1.0 h, longest 1.0 h (1 task). Delivery: no tasks."
    )
    per_day = page.get_by_role("img", name="Tasks completed per day")
    await expect(per_day).to_have_accessible_description(
        "Design: none completed. Finishing: 1 task completed, at most 1 in a day. "
        "Print: 1 task completed, at most 1 in a day. "
        "Delivery: 1 task completed, at most 1 in a day."
    )
    await shoot_widths(page, screenshots, "insights-in-words", axe_source)
    tab.assert_clean()


async def test_workers_are_not_offered_insights(server: str, shop: Shop, tabs: OpenTab) -> None:
    tab = await tabs(token=shop.tokens["pat"])
    await tab.page.goto(base(server) + "/insights")
    await expect(tab.page.get_by_text("Your account does not give you access")).to_be_visible()
    await expect(tab.page.get_by_role("link", name="Insights")).to_have_count(0)
    tab.assert_clean()
