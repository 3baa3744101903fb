"""Customers you can deliver to, on the screens: Sales creates a customer with a contact
and an address from the new-order form, sees and corrects them on the order page; the
delivery queue and the delivery wall show where to deliver and what is needed there."""

from pathlib import Path

import pytest
from playwright.async_api import expect

from tests.e2e.web.support import OpenTab, base, shoot, shoot_widths
from tests.support.client import Client, gid
from tests.support.shop import Shop
from tests.support.subscriptions import display_token

pytestmark = pytest.mark.e2e


async def test_sales_records_where_to_deliver_and_delivery_sees_it(
    api: Client, server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    sam = await tabs(token=shop.tokens["sam"])
    page = sam.page
    await page.goto(base(server) + "/orders/new")
    await page.get_by_label("Customer").fill("Harbour Books")
    await page.get_by_role("button", name="Create customer “Harbour Books”").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("Contact").fill("Ann Lee")
    await dialog.get_by_label("Email").fill("not an email")
    await dialog.get_by_label("Address").fill("12 Quay Street\nUnit 4")
    await dialog.get_by_label("Postcode").fill("BS1 4DJ")
    await dialog.get_by_label("City").fill("Bristol")
    await dialog.get_by_role("button", name="Create customer").click()
    await expect(dialog.get_by_label("Email")).to_have_attribute("aria-invalid", "true")
    await expect(dialog.locator(".field-error")).to_contain_text("is not an email address")
    await shoot(page, screenshots, "new-customer-dialog", axe_source)
    await dialog.get_by_label("Email").fill("ann@harbour.example")
    await dialog.get_by_role("button", name="Create customer").click()
    await expect(dialog).to_have_count(0)
    await expect(page.get_by_text("Harbour Books", exact=True)).to_be_visible()
    await page.get_by_role("checkbox", name="Delivery only: nothing to make (stock goods)").check()
    await page.get_by_role("checkbox", name="Needs installation").check()
    await page.get_by_role("button", name="Create work order").click()
    await expect(page.get_by_role("heading", level=1)).to_contain_text("WO-")
    card = page.locator(".customer-card")
    await expect(card).to_contain_text("Ann Lee")
    await expect(card.locator("address")).to_contain_text("12 Quay Street")
    await expect(card.locator("address")).to_contain_text("BS1 4DJ Bristol")
    await expect(page.locator(".flags")).to_contain_text("Needed on delivery: Installation")
    await page.get_by_role("button", name="Edit customer").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("Phone").fill("+44 117 496 0000")
    await dialog.get_by_role("button", name="Save customer").click()
    await expect(dialog).to_have_count(0)
    await expect(card).to_contain_text("+44 117 496 0000")
    await shoot(page, screenshots, "order-customer", axe_source)

    # Delivery sees the customer but may not edit it: the server offers no EDIT.
    dan = await tabs(token=shop.tokens["dan"])
    await dan.page.goto(page.url)
    await expect(dan.page.locator(".customer-card")).to_contain_text("+44 117 496 0000")
    await expect(dan.page.get_by_role("button", name="Edit customer")).to_have_count(0)
    await dan.page.goto(base(server) + "/queues")
    item = dan.page.locator("section.queue[data-department='delivery'] ol.waiting li")
    await expect(item).to_contain_text("12 Quay Street, Unit 4, BS1 4DJ Bristol")
    await expect(item).to_contain_text("Needs Installation")
    await dan.page.screenshot(path=str(screenshots / "queues-delivery-address-desktop.png"))

    secret = (await display_token(api, shop, ["delivery"]))["secret"]
    wall = await tabs()
    await wall.page.goto(f"{base(server)}/display/delivery?token={secret}")
    await expect(wall.page.locator("#waiting > li .address")).to_have_text(
        "12 Quay Street, Unit 4, BS1 4DJ Bristol"
    )
    await expect(wall.page.locator("#waiting > li .needs")).to_have_text("Installation")
    await wall.page.screenshot(path=str(screenshots / "wall-display-delivery-address.png"))
    for tab in (sam, dan, wall):
        tab.assert_clean()
        await tab.close()


POST = """mutation($i: PostLedgerEntryInput!) { postLedgerEntry(input: $i) {
  userErrors { message } } }"""


async def test_the_customers_screen_lists_finds_makes_and_corrects_customers(
    api: Client, server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    for n in range(30):
        await shop.order(["print"], details={"product": f"Flyers {n + 1}"})
    acme = gid("Customer", shop.customer_id)
    posted = await api.as_(shop.tokens["abe"])(
        POST,
        {"i": {"customerId": acme, "kind": "CHARGE", "amount": "1240.00", "idempotencyKey": "c"}},
    )
    assert posted["postLedgerEntry"]["userErrors"] == []

    sam = await tabs(token=shop.tokens["sam"])
    page = sam.page
    await page.goto(base(server) + "/orders")
    await page.get_by_role("navigation", name="Main").get_by_role("link", name="Customers").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Customers")
    await expect(page.get_by_role("row", name="ACME")).to_be_visible()
    # Sales does not read the ledger: no balance is asked for, none is shown.
    await expect(
        page.get_by_role("columnheader", name="Balance (positive: owes us)")
    ).to_have_count(0)
    await shoot_widths(page, screenshots, "customers-list", axe_source)
    await page.get_by_label("Search customers").fill("harbour")
    await page.get_by_role("button", name="Search", exact=True).click()
    await expect(page.get_by_text("No customers match.")).to_be_visible()
    await expect(page).to_have_url(base(server) + "/customers?q=harbour")

    await page.get_by_role("button", name="New customer").click()
    dialog = page.get_by_role("dialog", name="New customer")
    await expect(dialog.get_by_label("Name")).to_have_value("harbour")
    await dialog.get_by_label("Name").fill("Harbour Books")
    await dialog.get_by_label("Email").fill("not an email")
    await dialog.get_by_label("Address").fill("12 Quay Street")
    await dialog.get_by_label("City").fill("Bristol")
    await dialog.get_by_role("button", name="Create customer").click()
    await expect(dialog.get_by_label("Email")).to_have_attribute("aria-invalid", "true")
    await shoot_widths(page, screenshots, "customers-new", axe_source)
    await dialog.get_by_label("Email").fill("ann@harbour.example")
    await dialog.get_by_role("button", name="Create customer").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Harbour Books")
    card = page.locator(".customer-card")
    await expect(card.locator("address")).to_contain_text("12 Quay Street")
    await expect(page.get_by_text("No work orders yet.")).to_be_visible()
    await page.get_by_role("button", name="Edit customer").click()
    dialog = page.get_by_role("dialog", name="Edit customer Harbour Books")
    await dialog.get_by_label("Contact").fill("Ann Lee")
    await dialog.get_by_label("Phone").fill("+44 117 496 0000")
    await dialog.get_by_role("button", name="Save customer").click()
    await expect(dialog).to_have_count(0)
    await expect(card).to_contain_text("Ann Lee")
    await expect(card).to_contain_text("+44 117 496 0000")
    await page.get_by_role("link", name="Customers", exact=True).first.click()
    await page.get_by_label("Search customers").fill("harb")
    await page.get_by_role("button", name="Search", exact=True).click()
    await expect(page.locator("table.customers tbody tr")).to_have_count(1)
    await expect(page.get_by_role("row", name="Harbour Books")).to_contain_text(
        "Ann Lee · +44 117 496 0000 · ann@harbour.example"
    )

    # A customer's orders, newest first, a page at a time; still no balance for Sales.
    await page.goto(base(server) + "/customers/" + acme)
    rows = page.locator("table.orders tbody tr")
    await expect(rows).to_have_count(25)
    await expect(rows.first).to_contain_text("WO-000030")
    await expect(page.get_by_text("Balance:")).to_have_count(0)
    await shoot_widths(page, screenshots, "customers-page", axe_source)
    await page.get_by_role("button", name="Show older orders").click()
    await expect(rows).to_have_count(30)
    await expect(rows.last).to_contain_text("WO-000001")
    await expect(page.get_by_role("button", name="Show older orders")).to_have_count(0)

    # Accounts reads the balance, and may not edit or create: the server offers neither.
    abe = await tabs(token=shop.tokens["abe"])
    await abe.page.goto(base(server) + "/customers")
    await expect(abe.page.get_by_role("row", name="ACME")).to_contain_text("1,240.00")
    await expect(abe.page.get_by_role("button", name="New customer")).to_have_count(0)
    await shoot_widths(abe.page, screenshots, "customers-list-accounts", axe_source)
    await abe.page.get_by_role("link", name="ACME").click()
    await expect(abe.page.locator("p.lead")).to_contain_text("Balance: 1,240.00")
    await expect(abe.page.get_by_role("button", name="Edit customer")).to_have_count(0)
    await shoot_widths(abe.page, screenshots, "customers-page-accounts", axe_source)
    await abe.page.get_by_role("link", name="ACME\u2019s ledger").click()
    await expect(abe.page.get_by_role("heading", level=1)).to_have_text("ACME")

    # The floor has no Customers screen: the server lets it list none.
    pat = await tabs(token=shop.tokens["pat"])
    await pat.page.goto(base(server) + "/customers")
    await expect(pat.page.get_by_text("Your account does not give you access")).to_be_visible()
    await expect(
        pat.page.get_by_role("navigation", name="Main").get_by_role("link", name="Customers")
    ).to_have_count(0)
    for tab in (sam, abe, pat):
        tab.assert_clean()
        await tab.close()
