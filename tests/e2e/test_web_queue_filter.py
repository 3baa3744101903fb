"""A long queue filtered in the browser: the field above the columns keeps the tasks the
server finds (queue's search: order number, customer, job) in every column, says how
many of how many match, keeps up live with a task that comes in while it is set, and
shows the whole queue again once cleared."""

from pathlib import Path

import pytest
from playwright.async_api import expect
from sqlalchemy import text

from db import customers
from db.engine import unit_of_work
from tests.e2e.web.support import OpenTab, base, shoot_widths
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e


async def for_harbour(shop: Shop, order: int) -> None:
    async with unit_of_work(shop.engine) as conn:
        found = await conn.execute(text("SELECT id FROM customers WHERE name = 'Harbour Books'"))
        customer = found.scalar()
        if customer is None:
            made = await customers.create_customer(conn, "Harbour Books", shop.users["sam"])
            customer = made.customer.id
        await conn.execute(
            text("UPDATE work_orders SET customer_id = :c WHERE id = :o"),
            {"c": customer, "o": order},
        )


async def test_a_worker_filters_a_long_queue(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    for n in range(6):
        await shop.order(["print"], details={"product": f"Flyers batch {n}"})
    await for_harbour(shop, await shop.order(["print"], details={"product": "Harbour map"}))
    await shop.order(["print"], details={"title": "Wedding invitations"})
    tab = await tabs(token=shop.tokens["pat"])
    page = tab.page
    await page.goto(base(server) + "/queues")
    column = page.locator("section.queue[data-department='print']")
    orders = column.locator("ol.waiting li .task-order")
    await expect(orders).to_have_count(8)
    await page.get_by_label("Filter the queues").fill("harbour")
    # By customer (WO-000007) and by job: none of the Flyers.
    await expect(orders).to_have_text(["WO-000007"])
    await expect(column.locator(".queue-filtered")).to_have_text("1 of 8 tasks match “harbour”.")
    await page.get_by_label("Filter the queues").fill("WEDDING")
    await expect(orders).to_have_text(["WO-000008"])
    await page.get_by_label("Filter the queues").fill("000003")
    await expect(orders).to_have_text(["WO-000003"])
    await page.get_by_label("Filter the queues").fill("map")
    await expect(orders).to_have_text(["WO-000007"])
    # Live: a new order for the job comes in; one for another does not show.
    await shop.order(["print"], details={"product": "Flyers batch 7"})
    await shop.order(["print"], details={"product": "City map"})
    await expect(orders).to_have_text(["WO-000007", "WO-000010"])
    await expect(column.locator(".queue-filtered")).to_have_text("2 of 10 tasks match “map”.")
    await expect(column.locator("ol.in-progress")).to_have_count(0)
    await expect(column.get_by_text("Nothing in progress matches the filter.")).to_be_visible()
    await shoot_widths(page, screenshots, "queue-filter", axe_source)
    await page.get_by_label("Filter the queues").fill("")
    await expect(orders).to_have_count(10)
    await expect(column.locator(".queue-filtered")).to_have_count(0)
    tab.assert_clean()
