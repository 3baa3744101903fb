"""Creates that happen once, in Chromium: the new-order form, the new-customer dialog,
the admin's "Add a person" and Accounts' "New ledger entry" send one idempotency key per
submission, so a double click, or pressing the button again after the answer was lost,
makes one order, one customer, one person, one entry; the next submission takes a new
key."""

import asyncio
import contextlib
import json
from pathlib import Path

import pytest
from playwright.async_api import Page, Route, expect

from tests.e2e.web.support import OpenTab, base, scalar, shoot
from tests.support.client import gid
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e


def named(body: str | None, operation: str) -> bool:
    """Whether a request's body is the app's `operation` (sent by its hash: no text)."""
    return bool(body) and json.loads(body or "{}").get("operationName") == operation


def sent(page: Page, operation: str) -> list[dict[str, object]]:
    """The inputs of the `operation` requests the page sends, as they are sent."""
    inputs: list[dict[str, object]] = []

    def note(request: object) -> None:
        body = getattr(request, "post_data", None)
        if getattr(request, "method", "") == "POST" and named(body, operation):
            inputs.append(json.loads(body or "{}")["variables"]["input"])

    page.on("request", note)
    return inputs


def keys(inputs: list[dict[str, object]]) -> set[object]:
    return {i["idempotencyKey"] for i in inputs}


async def lose_the_first_answer(page: Page, operation: str) -> list[object]:
    """The first `operation` request reaches the server, which does the work; its answer
    never reaches the page (the connection is reset)."""
    lost: list[object] = []

    async def route(route: Route) -> None:
        if named(route.request.post_data, operation) and not lost:
            lost.append(await route.fetch())
            await route.abort("connectionreset")
        else:
            await route.continue_()

    await page.route("**/graphql", route)
    return lost


async def hold_until_repeated(page: Page, operation: str, pairs: int) -> None:
    """The first request of each of the next `pairs` pairs of `operation` requests goes on
    only once the second is sent (or after 10 s): a double click's second click meets the
    form still waiting however fast the server answers, so the test always sees what the
    repeat carries."""
    waiting: list[asyncio.Future[None]] = []
    seen = 0

    async def route(route: Route) -> None:
        nonlocal seen
        if named(route.request.post_data, operation) and seen < 2 * pairs:
            seen += 1
            if waiting:
                waiting.pop().set_result(None)
            else:
                repeat = asyncio.get_running_loop().create_future()
                waiting.append(repeat)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(repeat), 10)
                if repeat in waiting:
                    waiting.remove(repeat)
        await route.continue_()

    await page.route("**/graphql", route)


async def count(shop: Shop, sql: str, **params: object) -> int:
    return int(await scalar(shop, sql, **params))


LEDGER_ENTRIES = "SELECT count(*) FROM customer_ledger_entries"


async def new_order_form(page: Page, server: str, product: str) -> None:
    await page.goto(base(server) + "/orders/new")
    await page.get_by_label("Customer").fill("ACME")
    await page.get_by_role("radio", name="ACME").click()
    await page.get_by_role("checkbox", name="Print", exact=True).check()
    await page.get_by_label("Product").fill(product)


async def test_a_double_click_on_create_work_order_makes_one_order(
    server: str, shop: Shop, tabs: OpenTab
) -> None:
    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    posts = sent(page, "CreateWorkOrder")
    await hold_until_repeated(page, "CreateWorkOrder", pairs=1)
    await new_order_form(page, server, "Flyers A5")
    await page.get_by_role("button", name="Create work order").dblclick()
    await expect(page.get_by_role("heading", level=1)).to_contain_text("WO-")
    await expect(page.locator(".details")).to_contain_text("Flyers A5")
    print(f"double click sent {len(posts)} CreateWorkOrder request(s), {len(keys(posts))} key(s)")
    assert len(posts) == 2 and len(keys(posts)) == 1
    assert await count(shop, "SELECT count(*) FROM work_orders") == 1
    number = await scalar(shop, "SELECT order_number FROM work_orders")
    await expect(page.get_by_role("heading", level=1)).to_contain_text(number)

    # The next order is another submission: a new key, a second order.
    await new_order_form(page, server, "Posters A2")
    await page.get_by_role("button", name="Create work order").click()
    await expect(page.locator(".details")).to_contain_text("Posters A2")
    assert len(keys(posts)) == 2
    assert await count(shop, "SELECT count(*) FROM work_orders") == 2
    tab.assert_clean()
    await tab.close()


async def test_create_work_order_again_after_a_lost_answer_makes_one_order(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    posts = sent(page, "CreateWorkOrder")
    lost = await lose_the_first_answer(page, "CreateWorkOrder")
    await new_order_form(page, server, "Menus")
    await page.get_by_role("button", name="Create work order").click()
    await expect(page.get_by_role("alert")).to_contain_text("could not be reached")
    await expect(page.get_by_role("alert")).to_contain_text("Nothing is lost")
    assert len(lost) == 1
    assert await count(shop, "SELECT count(*) FROM work_orders") == 1
    # The order may exist already: what was sent holds still until a retry is answered.
    await expect(page.get_by_label("Product")).to_be_disabled()
    await expect(page.get_by_role("checkbox", name="Print", exact=True)).to_be_disabled()
    await shoot(page, screenshots, "new-order-held", axe_source)
    await page.get_by_role("button", name="Create work order").click()
    await expect(page.get_by_role("heading", level=1)).to_contain_text("WO-")
    await expect(page.locator(".details")).to_contain_text("Menus")
    assert len(posts) == 2 and len(keys(posts)) == 1 and posts[0] == posts[1]
    assert await count(shop, "SELECT count(*) FROM work_orders") == 1
    assert await count(shop, "SELECT count(*) FROM events WHERE type = 'WORK_ORDER_CREATED'") == 1
    tab.assert_clean()
    await tab.close()


async def test_create_customer_again_after_a_lost_answer_makes_one_customer(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    posts = sent(page, "CreateCustomer")
    await lose_the_first_answer(page, "CreateCustomer")
    await page.goto(base(server) + "/orders/new")
    await page.get_by_label("Customer").fill("Harbour Books")
    await page.get_by_role("button", name="Create customer “Harbour Books”").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("City").fill("Bristol")
    await dialog.get_by_role("button", name="Create customer").click()
    await expect(dialog.get_by_role("alert")).to_contain_text("could not be reached")
    named = "SELECT count(*) FROM customers WHERE name = 'Harbour Books'"
    assert await count(shop, named) == 1
    await expect(dialog.get_by_label("City")).to_be_disabled()
    await shoot(page, screenshots, "new-customer-held", axe_source)
    await dialog.get_by_role("button", name="Create customer").click()
    await expect(dialog).to_have_count(0)
    await expect(page.get_by_text("Harbour Books", exact=True)).to_be_visible()
    assert len(posts) == 2 and len(keys(posts)) == 1
    assert await count(shop, named) == 1
    tab.assert_clean()
    await tab.close()


async def test_a_double_click_on_create_user_adds_one_person(
    server: str, shop: Shop, tabs: OpenTab
) -> None:
    tab = await tabs(token=shop.tokens["ada"])
    page = tab.page
    posts = sent(page, "CreateUser")
    await hold_until_repeated(page, "CreateUser", pairs=2)
    await page.goto(base(server) + "/admin/people")
    for name in ("Lena", "Nils"):
        await page.get_by_label("Name").fill(name)
        await page.get_by_label("Email").fill(f"{name.lower()}@shop.test")
        await page.get_by_label("Password").fill("long enough password")
        await page.get_by_role("checkbox", name="Print").check()
        await page.get_by_role("button", name="Create user").dblclick()
        await expect(page.get_by_role("status")).to_contain_text(f"{name} can now sign in.")
        await expect(page.get_by_role("row", name=name)).to_contain_text("Print")
    print(f"two double clicks sent {len(posts)} CreateUser request(s), {len(keys(posts))} key(s)")
    assert len(posts) == 4 and len(keys(posts)) == 2
    users = "SELECT count(*) FROM users WHERE email IN ('lena@shop.test', 'nils@shop.test')"
    assert await count(shop, users) == 2
    tab.assert_clean()
    await tab.close()


async def test_accounts_posts_an_entry_by_double_click_once(
    server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    order = await shop.order(["print"])
    tab = await tabs(token=shop.tokens["abe"])
    page = tab.page
    posts = sent(page, "PostEntry")
    await hold_until_repeated(page, "PostEntry", pairs=1)
    await page.goto(base(server) + "/accounts")
    # No entries yet: "none", as a missing quote (no currency to put beside a zero).
    await expect(page.get_by_role("row", name="ACME").get_by_role("cell")).to_have_text("none")
    await page.get_by_role("link", name="ACME").click()
    await expect(page.get_by_role("heading", name="ACME")).to_be_visible()
    await expect(page.locator(".lead")).to_contain_text("Balance: none")
    await page.get_by_role("button", name="New ledger entry").click()
    await page.get_by_label("Kind").select_option("CHARGE")
    await page.get_by_label("Amount").fill("240.00")
    await page.get_by_label("Memo").fill("Invoice 2026-0042")
    await page.get_by_label("Work order (optional)").select_option(gid("WorkOrder", order))
    await page.get_by_role("button", name="Post entry").dblclick()

    await expect(page.get_by_role("status")).to_contain_text("Posted: Charge 240.00 EUR")
    rows = page.locator("table.ledger tbody tr")
    await expect(rows).to_have_count(1)
    await expect(rows.first).to_contain_text("Invoice 2026-0042")
    await expect(page.locator(".lead")).to_contain_text("Balance: 240.00 EUR")
    assert await count(shop, LEDGER_ENTRIES) == 1
    print(f"double click sent {len(posts)} PostEntry request(s), {len(keys(posts))} key(s)")
    assert len(posts) == 2 and len(keys(posts)) == 1

    # A new opening of the form is a new entry, with a new key.
    await page.get_by_role("button", name="New ledger entry").click()
    await page.get_by_label("Kind").select_option("PAYMENT")
    await page.get_by_label("Amount").fill("100.00")
    await page.get_by_role("button", name="Post entry").click()
    await expect(rows).to_have_count(2)
    assert len(posts) == 3 and len(keys(posts)) == 2
    await expect(rows.first).to_contain_text("-100.00 EUR")
    await expect(rows.first).to_contain_text("140.00 EUR")
    # Kinds read alike ("Charge", "Payment"); thousands are grouped, decimals exact.
    await expect(rows.first.locator("td").nth(1)).to_have_text("Payment")
    await expect(rows.nth(1).locator("td").nth(1)).to_have_text("Charge")
    assert await count(shop, LEDGER_ENTRIES) == 2
    await page.get_by_role("button", name="New ledger entry").click()
    await page.get_by_label("Amount").fill("12500.05")
    await page.get_by_role("button", name="Post entry").click()
    await expect(rows).to_have_count(3)
    await expect(rows.first).to_contain_text("12,500.05 EUR")
    await expect(rows.first).to_contain_text("12,640.05 EUR")
    await expect(page.locator(".lead")).to_contain_text("Balance: 12,640.05 EUR")
    tab.assert_clean()
    await tab.close()


async def test_accounts_retries_after_a_lost_response_and_posts_once(
    server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    tab = await tabs(token=shop.tokens["abe"])
    page = tab.page
    posts = sent(page, "PostEntry")
    lost = await lose_the_first_answer(page, "PostEntry")
    await page.goto(base(server) + "/accounts/" + gid("Customer", shop.customer_id))
    await page.get_by_role("button", name="New ledger entry").click()
    await page.get_by_label("Amount").fill("75.50")
    await page.get_by_role("button", name="Post entry").click()
    await expect(page.get_by_role("alert")).to_contain_text("could not be reached")
    assert len(lost) == 1
    assert await count(shop, LEDGER_ENTRIES) == 1
    # It may be posted already: the entry as sent holds still until a retry is answered
    # (an edited retry with the same key would meet DUPLICATE).
    await expect(page.get_by_label("Amount")).not_to_be_editable()
    await expect(page.get_by_label("Kind")).to_be_disabled()
    await page.get_by_role("button", name="Post entry").click()
    await expect(page.get_by_role("status")).to_contain_text("Posted: Charge 75.50 EUR")
    await expect(page.get_by_role("status")).to_contain_text("not posted twice")
    await expect(page.locator("table.ledger tbody tr")).to_have_count(1)
    assert len(posts) == 2 and len(keys(posts)) == 1 and posts[0] == posts[1]
    assert await count(shop, LEDGER_ENTRIES) == 1
    tab.assert_clean()
    await tab.close()
