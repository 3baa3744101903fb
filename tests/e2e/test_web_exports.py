"""Spreadsheets from the app: Accounts downloads the work orders and task moves of a period
from the work-order list, and a customer's ledger from its page, with the session's token;
the files are the server's CSV. People outside Accounts are not offered them."""

import asyncio
import contextlib
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, expect

from db import customers
from db.engine import unit_of_work
from db.ledger import NewEntry, post_entry
from db.tasks import Actor, transition_task
from domain import ledger
from domain.contacts import Contact
from domain.enums import LedgerEntryKind, TaskAction
from domain.ledger import EntryContent
from domain.money import parse_money
from tests.e2e.web.support import OpenTab, base, shoot
from tests.support.client import gid
from tests.support.database import task_ids
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e

BOM = b"\xef\xbb\xbf"


async def downloaded(page: Page, button: str) -> tuple[str, str]:
    """Clicks `button` and returns the file's suggested name and its text, which starts
    with a byte order mark (so Excel reads it as UTF-8)."""
    async with page.expect_download() as started:
        await page.get_by_role("button", name=button).click()
    download = await started.value
    data = await asyncio.to_thread(Path(await download.path()).read_bytes)
    assert data.startswith(BOM)
    return download.suggested_filename, data.decode("utf-8-sig")


async def test_accounts_downloads_the_periods_spreadsheets(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    order = await shop.order(["print"])
    tasks = await task_ids(shop.engine, order)
    async with unit_of_work(shop.engine) as conn:
        await transition_task(
            conn, tasks["print"], TaskAction.START, Actor(shop.users["pat"], False)
        )
    tab = await tabs(token=shop.tokens["abe"])
    page = tab.page
    await page.goto(base(server) + "/orders")
    exports = page.get_by_role("group", name="Spreadsheets")
    await expect(exports).to_be_visible()
    today = datetime.now().date().isoformat()
    await expect(exports.get_by_label("Through")).to_have_value(today)
    await shoot(page, screenshots, "exports-work-orders", axe_source)
    name, text = await downloaded(page, "Work orders (CSV)")
    lines = text.splitlines()
    assert lines[0].startswith("Order,Customer,Created,Due,Completed,Status,Late")
    assert len(lines) == 2 and lines[1].startswith("WO-") and ",ACME," in lines[1]
    assert name.startswith("work-orders-") and name.endswith(".csv")
    name, text = await downloaded(page, "Task moves (CSV)")
    lines = text.splitlines()
    assert lines[0] == "Order,Department,From,To,Move,By,Reason,When,Seconds in previous state"
    assert len(lines) == 2 and ",Print,Waiting,In progress,Start,Pat," in lines[1]
    # A period that ends before it begins is not offered.
    await exports.get_by_label("From").fill("2026-12-31")
    await exports.get_by_label("Through").fill("2026-01-01")
    await expect(exports.get_by_text("Choose a first day on or before the last.")).to_be_visible()
    await expect(exports.get_by_role("button", name="Work orders (CSV)")).to_have_count(0)
    tab.assert_clean()


async def test_accounts_downloads_a_customers_ledger(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    order = await shop.order(["print"])
    amount = ledger.signed(LedgerEntryKind.CHARGE, parse_money(Decimal("480.50"), "EUR", None))
    async with unit_of_work(shop.engine) as conn:
        content = EntryContent(shop.customer_id, order, LedgerEntryKind.CHARGE, amount, "=1+1")
        await post_entry(conn, NewEntry(content, "web-exports-1", shop.users["abe"]))
    tab = await tabs(token=shop.tokens["abe"])
    page = tab.page
    await page.goto(base(server) + "/accounts/" + gid("Customer", shop.customer_id))
    await expect(page.get_by_role("heading", name="ACME", level=1)).to_be_visible()
    await shoot(page, screenshots, "exports-ledger", axe_source)
    name, text = await downloaded(page, "Ledger (CSV)")
    assert name == "ledger-ACME.csv"
    header, row = text.splitlines()
    assert header == "Posted,Kind,Memo,Order,Amount,Currency,Balance,Posted by"
    assert ",Charge,'=1+1,WO-" in row and row.endswith(",480.50,EUR,480.50,Abe")
    tab.assert_clean()


async def test_a_browser_saves_a_ledger_under_its_customers_own_name(
    server: str, shop: Shop, tabs: OpenTab
) -> None:
    """Opened as a plain address (a script's or a bookmark's), the file is named by the
    server: Chromium takes the UTF-8 name from `filename*`."""
    async with unit_of_work(shop.engine) as conn:
        made = await customers.create_customer(conn, "Café Ünïcode", shop.users["sam"], Contact())
    tab = await tabs(token=shop.tokens["abe"])
    page = tab.page
    await page.context.set_extra_http_headers({"authorization": f"Bearer {shop.tokens['abe']}"})
    url = base(server) + "/export/ledger.csv?customerId=" + gid("Customer", made.customer.id)
    async with page.expect_download() as started:
        with contextlib.suppress(PlaywrightError):  # "Download is starting": no page
            await page.goto(url)
    download = await started.value
    assert download.suggested_filename == "ledger-Café Ünïcode.csv"
    data = await asyncio.to_thread(Path(await download.path()).read_bytes)
    assert data.startswith(BOM + b"Posted,Kind,")
    tab.assert_clean()


async def test_people_outside_accounts_are_not_offered_spreadsheets(
    server: str, shop: Shop, tabs: OpenTab
) -> None:
    await shop.order(["print"])
    tab = await tabs(token=shop.tokens["sam"])
    await tab.page.goto(base(server) + "/orders")
    await expect(tab.page.get_by_role("link", name="WO-", exact=False).first).to_be_visible()
    await expect(tab.page.get_by_role("group", name="Spreadsheets")).to_have_count(0)
    tab.assert_clean()
