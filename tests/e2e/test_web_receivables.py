"""Accounts at a glance in the browser: the Accounts screen shows what is owed in all and by
age, and who owes it, sortable by balance; "Charge the quote" on an order posts its quote
once (then it is offered no more), and asks first, naming what was charged already, when
the order has charges short of its quote."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from playwright.async_api import expect

from db import clock, customers
from db.engine import unit_of_work
from db.ledger import NewEntry, post_entry
from domain import ledger
from domain.contacts import Contact
from domain.enums import LedgerEntryKind
from domain.ledger import EntryContent
from domain.money import parse_money
from tests.e2e.web.support import DESKTOP, PHONE, OpenTab, base, shoot, shoot_widths
from tests.support.client import gid
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e


async def charged(
    shop: Shop, customer: int, amount: str, days_ago: int, order: int | None = None
) -> None:
    async with unit_of_work(shop.engine) as conn:
        await clock.stamp_as_of(conn, datetime.now(UTC) - timedelta(days=days_ago, hours=1))
        money = ledger.signed(LedgerEntryKind.CHARGE, parse_money(Decimal(amount), "EUR", None))
        content = EntryContent(customer, order, LedgerEntryKind.CHARGE, money, None)
        await post_entry(conn, NewEntry(content, f"web-{customer}-{days_ago}", shop.users["abe"]))


async def test_accounts_sees_what_is_owed_by_age_sorted_by_balance(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    async with unit_of_work(shop.engine) as conn:
        made = await customers.create_customer(conn, "Bravo", shop.users["sam"], Contact())
        bravo = made.customer.id
    await charged(shop, shop.customer_id, "40", 100)
    await charged(shop, bravo, "250", 10)
    tab = await tabs(token=shop.tokens["abe"])
    page = tab.page
    await page.goto(base(server) + "/accounts")
    totals = page.locator("table.ageing-totals tbody tr")
    await expect(totals).to_have_count(1)
    await expect(totals.locator("td")).to_have_text(
        ["290.00 EUR", "250.00 EUR", "0.00 EUR", "0.00 EUR", "40.00 EUR"]
    )
    rows = page.locator("table.ageing tbody tr th")
    await expect(rows).to_have_text(["Bravo", "ACME"])
    await shoot(page, screenshots, "accounts-ageing", axe_source)
    await page.get_by_role("button", name="Balance").click()
    await expect(rows).to_have_text(["ACME", "Bravo"])
    await expect(
        page.locator("table.ageing tbody tr").first.get_by_text("Over 90 days")
    ).to_be_visible()
    tab.assert_clean()


async def test_charge_the_quote_posts_it_once(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    order = await shop.order(["print"], quote=parse_money(Decimal("480.50"), "EUR", "quote"))
    tab = await tabs(token=shop.tokens["abe"])
    page = tab.page
    await page.goto(base(server) + "/orders/" + gid("WorkOrder", order))
    await page.get_by_role("button", name="Charge the quote").click()
    notice = page.locator(".message.success")
    await expect(notice).to_have_text("✓ Charged 480.50 EUR: the quote of WO-000001.")
    await expect(page.locator(".ledger-sums .charged")).to_have_text("Charged: 480.50 EUR")
    # The charges come to the quote: charging it again is offered no more.
    await expect(page.get_by_role("button", name="Charge the quote")).to_have_count(0)
    await shoot(page, screenshots, "charge-quote", axe_source)
    tab.assert_clean()


async def test_charging_the_quote_of_an_order_with_charges_asks_first(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    order = await shop.order(["print"], quote=parse_money(Decimal("480.50"), "EUR", "quote"))
    await charged(shop, shop.customer_id, "100", 0, order)
    tab = await tabs(token=shop.tokens["abe"])
    page = tab.page
    await page.goto(base(server) + "/orders/" + gid("WorkOrder", order))
    await page.get_by_role("button", name="Charge the quote").click()
    dialog = page.get_by_role("dialog", name="Charge the quote of WO-000001?")
    await expect(dialog).to_contain_text(
        "This order was charged 100.00 EUR already. Charging the quote adds a charge of 480.50 EUR."
    )
    await shoot_widths(page, screenshots, "charge-quote-asks", axe_source)
    # On a phone the title wraps, and the order number stays on one line.
    await page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    number = dialog.get_by_role("heading").locator(".nowrap")
    await expect(number).to_have_text("WO-000001?")
    lines = await number.evaluate("e => e.getClientRects().length")
    assert lines == 1
    await page.set_viewport_size(DESKTOP)  # type: ignore[arg-type]
    await dialog.get_by_role("button", name="Back").click()
    await expect(dialog).to_have_count(0)
    sums = page.locator(".ledger-sums .charged")
    await expect(sums).to_have_text("Charged: 100.00 EUR")
    await page.get_by_role("button", name="Charge the quote").click()
    await dialog.get_by_role("button", name="Charge 480.50 EUR").click()
    await expect(page.locator(".message.success")).to_have_text(
        "✓ Charged 480.50 EUR: the quote of WO-000001."
    )
    await expect(sums).to_have_text("Charged: 580.50 EUR")
    await expect(page.get_by_role("button", name="Charge the quote")).to_have_count(0)
    tab.assert_clean()
