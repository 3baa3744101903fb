"""Correcting an order on its page: Sales edits the details and delivery needs, adds a
department (its task waits by the routing) and removes it with a reason; the timeline
says each in words, once, the parts a details change changed one a line, and what the
system did because of it by Pressroom."""

from pathlib import Path

import pytest
from playwright.async_api import expect

from tests.e2e.web.support import OpenTab, base, shoot, shoot_widths
from tests.support.client import Client, gid
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e

FOLLOWS = """mutation($i: SetDepartmentFollowsInput!) {
  setDepartmentFollows(input: $i) { userErrors { code } } }"""


async def test_sales_corrects_an_order_from_its_page(
    api: Client, server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    ada = api.as_(shop.tokens["ada"])
    body = await ada(FOLLOWS, {"i": {"departmentCode": "finishing", "followsCodes": ["print"]}})
    assert body["setDepartmentFollows"]["userErrors"] == []
    order = await shop.order(["finishing"], details={"product": "Menus", "quantity": 200})
    sam = await tabs(token=shop.tokens["sam"])
    page = sam.page
    await page.goto(base(server) + "/orders/" + gid("WorkOrder", order))
    await expect(page.locator(".lead")).to_contain_text("Menus")

    await page.get_by_role("button", name="Edit details").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("Quantity").fill("250")
    await dialog.get_by_label("Transport").check()
    await shoot(page, screenshots, "order-edit-details", axe_source)
    await dialog.get_by_role("button", name="Save details").click()
    await expect(dialog).to_have_count(0)
    await expect(page.get_by_role("status").filter(has_text="Details saved")).to_be_visible()
    changed = page.locator(".timeline > li").filter(has_text="Details changed")
    await expect(changed.locator(".who")).to_have_text("by Sam")
    await expect(changed.locator(".changes li")).to_have_text(
        ["Quantity: 200 → 250", "Transport: no → yes"]
    )
    await expect(page.locator(".flags")).to_contain_text("Needed on delivery: Transport")

    # Print added: Finishing, not started, waits for it now.
    await page.get_by_role("button", name="Add department").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("Department").select_option("print")
    await dialog.get_by_role("button", name="Add department").click()
    await expect(dialog).to_have_count(0)
    await expect(page.locator(".timeline")).to_contain_text("Print added")
    waits = page.locator(".timeline > li").filter(has_text="Finishing waits again")
    await expect(waits.locator(".who")).to_have_text("by Pressroom")
    finishing = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="Finishing"))
    await expect(finishing).to_contain_text("Not yet: waits for Print")
    await shoot(page, screenshots, "order-department-added", axe_source)

    # Removed again, with a reason: Finishing can start.
    printing = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="Print"))
    await printing.get_by_role("button", name="Remove Print task").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("Reason").fill("Printed by the customer")
    await dialog.get_by_role("button", name="Remove from work order").click()
    await expect(dialog).to_have_count(0)
    await expect(page.get_by_role("status").filter(has_text="Print task removed")).to_be_visible()
    await expect(printing.locator(".badge")).to_contain_text("Removed")
    # One entry for the removal, Sam's; Finishing's opening is Pressroom's.
    removed = page.locator(".timeline > li").filter(has_text="Print removed")
    await expect(removed.locator(".who")).to_have_text("by Sam")
    await expect(page.locator(".timeline > li").filter(has_text="removed")).to_have_count(1)
    opened = page.locator(".timeline > li").filter(has_text="Finishing can start")
    await expect(opened.locator(".who")).to_have_text("by Pressroom")
    # The task at creation waited for nothing: its one opening is the one after the removal.
    await expect(page.locator(".timeline > li").filter(has_text="can start")).to_have_count(1)
    await expect(finishing).not_to_contain_text("waits for")
    await shoot(page, screenshots, "order-department-removed", axe_source)
    await page.locator("#history-heading").scroll_into_view_if_needed()
    await shoot_widths(page, screenshots, "order-history", axe_source)
    sam.assert_clean()
    await sam.close()


async def test_a_new_order_needs_work_or_says_it_only_delivers(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    sam = await tabs(token=shop.tokens["sam"])
    page = sam.page
    await page.goto(base(server) + "/orders/new")
    await page.get_by_label("Customer").fill("AC")
    await page.get_by_role("radio", name="ACME").click()
    await page.get_by_role("button", name="Create work order").click()
    await expect(page.locator("#dept-error")).to_have_text(
        "⚠ Choose at least one production department, or mark the order as delivery only."
    )
    await page.get_by_role("checkbox", name="Print", exact=True).check()
    await page.get_by_role("button", name="Create work order").click()
    await expect(page.get_by_label("Product")).to_have_attribute("aria-invalid", "true")
    await expect(page.locator(".field-error")).to_contain_text("Say what the job is")
    await shoot(page, screenshots, "new-work-order-needs-work", axe_source)
    await page.get_by_role("checkbox", name="Delivery only: nothing to make (stock goods)").check()
    await expect(page.get_by_role("checkbox", name="Print", exact=True)).to_have_count(0)
    await page.get_by_role("button", name="Create work order").click()
    await expect(page.get_by_role("heading", level=1)).to_contain_text("WO-")
    await expect(page.locator("table.tasks-table tbody tr")).to_have_count(1)
    sam.assert_clean()
    await sam.close()
