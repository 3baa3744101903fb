"""Refunds due, in Chromium: Accounts sees the customers owed money back on cancelled
orders, finds the order on the customer's ledger and on the order page, posts the refund
from there, and the list empties."""

from pathlib import Path

import pytest
from playwright.async_api import expect

from db import customers
from db.engine import unit_of_work
from domain.contacts import Contact
from tests.e2e.web.support import OpenTab, base, scalar, shoot
from tests.support.client import Client, gid
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e

POST = """mutation($i: PostLedgerEntryInput!) { postLedgerEntry(input: $i) {
  userErrors { message } } }"""
CANCEL = """mutation($i: CancelWorkOrderInput!) { cancelWorkOrder(input: $i) {
  userErrors { message } } }"""


async def test_accounts_sees_refunds_due_and_the_list_empties_after_the_refund(
    api: Client, server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    order = await shop.order(["print"], details={"product": "Banners"})
    order_id = gid("WorkOrder", order)
    abe = api.as_(shop.tokens["abe"])
    for kind, amount in (("CHARGE", "240.00"), ("PAYMENT", "100.00")):
        posted = await abe(
            POST,
            {"i": {"customerId": gid("Customer", shop.customer_id), "workOrderId": order_id,
                   "kind": kind, "amount": amount, "idempotencyKey": kind}},
        )  # fmt: skip
        assert posted["postLedgerEntry"]["userErrors"] == []
    # Another customer, paid on an order still active: owed nothing back.
    async with unit_of_work(shop.engine) as conn:
        made = await customers.create_customer(conn, "Bravo", shop.users["sam"], Contact())
    bravo = made.customer.id
    active = await shop.order(["print"], customer_id=bravo)
    await abe(
        POST,
        {"i": {"customerId": gid("Customer", bravo), "workOrderId": gid("WorkOrder", active),
               "kind": "PAYMENT", "amount": "30.00", "idempotencyKey": "bravo"}},
    )  # fmt: skip
    cancelled = await api.as_(shop.tokens["sam"])(
        CANCEL, {"i": {"workOrderId": order_id, "reason": "Customer withdrew."}}
    )
    assert cancelled["cancelWorkOrder"]["userErrors"] == []

    tab = await tabs(token=shop.tokens["abe"])
    page = tab.page
    await page.goto(base(server) + "/accounts")
    refunds = page.get_by_role("table", name="Customers owed money back on cancelled orders")
    await expect(refunds.get_by_role("row")).to_have_count(2)  # the header and ACME
    await expect(refunds.get_by_role("row", name="ACME")).to_contain_text("100.00 EUR")
    await shoot(page, screenshots, "accounts-refunds-due", axe_source)

    # The order page says so too.
    await page.goto(base(server) + "/orders/" + order_id)
    await expect(page.locator(".refund-due")).to_have_text("Refund due: 100.00 EUR")
    await shoot(page, screenshots, "order-refund-due", axe_source)

    await page.goto(base(server) + "/accounts")
    await refunds.get_by_role("link", name="ACME").click()
    panel = page.get_by_role("region", name="Refunds due")
    row = panel.get_by_role("row").filter(has_text="WO-000001")
    await expect(row).to_contain_text("Banners")
    await expect(row).to_contain_text("100.00 EUR")
    await shoot(page, screenshots, "ledger-refunds-due", axe_source)
    await row.get_by_role("button", name="Post refund of 100.00 EUR on WO-000001").click()
    await expect(page.get_by_label("Kind")).to_have_value("REFUND")
    await expect(page.get_by_label("Amount")).to_have_value("100.00")
    await expect(page.get_by_label("Work order (optional)")).to_have_value(order_id)
    await shoot(page, screenshots, "ledger-post-refund", axe_source)
    await page.get_by_role("button", name="Post entry").click()
    await expect(page.get_by_role("status")).to_contain_text("Posted: Refund 100.00 EUR")
    await expect(panel).to_have_count(0)
    refunded = (
        "SELECT count(*) FROM customer_ledger_entries WHERE kind = 'REFUND' AND work_order_id = :o"
    )
    assert await scalar(shop, refunded, o=order) == 1

    await page.get_by_role("link", name="Accounts", exact=True).first.click()
    await expect(page.get_by_role("heading", name="Refunds due")).to_be_visible()
    await expect(page.get_by_text("No refunds are due.")).to_be_visible()
    await expect(refunds).to_have_count(0)
    await shoot(page, screenshots, "accounts-no-refunds-due", axe_source)
    tab.assert_clean()
    await tab.close()
