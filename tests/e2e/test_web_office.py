"""The office through the app: an admin reopens a task with a reason and it shows in
the order's timeline; Sales edits a quote someone else changed meanwhile, and cancels an
order with a reason."""

import json
import re
from pathlib import Path

import pytest
from playwright.async_api import WebSocketRoute, expect

from db import customers
from db.engine import unit_of_work
from tests.e2e.web.support import (
    OpenTab,
    base,
    scalar,
)
from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop
from tests.support.subscriptions import FINISH, START

pytestmark = pytest.mark.e2e

QUOTE = """mutation($i: UpdateWorkOrderQuoteInput!) {
  updateWorkOrderQuote(input: $i) { userErrors { code } } }"""
CANCEL = """mutation($i: CancelWorkOrderInput!) { cancelWorkOrder(input: $i) {
  userErrors { code } } }"""
POST = """mutation($i: PostLedgerEntryInput!) { postLedgerEntry(input: $i) {
  userErrors { message } } }"""


async def test_an_admin_reopens_a_task_with_a_reason_and_it_shows_in_the_timeline(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    order = await shop.order(["print"], details={"product": "Menus", "quantity": 40})
    task = (await task_ids(shop.engine, order))["print"]
    pat = api.as_(shop.tokens["pat"])
    await pat(START, {"i": {"taskId": gid("DepartmentTask", task)}})
    await pat(FINISH, {"i": {"taskId": gid("DepartmentTask", task)}})

    tab = await tabs(token=shop.tokens["ada"])
    page = tab.page
    await page.goto(base(server) + "/orders/" + gid("WorkOrder", order))
    row = page.locator(f"tr[data-task-id='{gid('DepartmentTask', task)}']")
    await expect(row).to_contain_text("Done")
    await expect(page.locator(".timeline")).to_contain_text("Print: finished")
    # The details' keys read as labels.
    await expect(page.locator(".details dt")).to_have_text(["Product", "Quantity"])
    await row.get_by_role("button", name="Reopen").click()
    dialog = page.get_by_role("dialog")
    await expect(dialog).to_contain_text("Reopen the Print task")
    # The reason is required.
    await dialog.get_by_role("button", name="Reopen task").click()
    await expect(dialog.get_by_label("Reason")).to_have_attribute("aria-invalid", "true")
    await dialog.get_by_label("Reason").fill("Colours are off; reprint")
    await dialog.get_by_role("button", name="Reopen task").click()
    await expect(dialog).to_have_count(0)

    entry = page.locator(".timeline li", has_text="Print: reopened")
    await expect(entry).to_contain_text("by Ada")
    await expect(entry).to_contain_text("Reason: Colours are off; reprint")
    await expect(row).to_contain_text("Waiting")
    assert await scalar(
        shop,
        "SELECT reason FROM task_transitions WHERE task_id = :t AND action = 'REOPEN'",
        t=task,
    ) == ("Colours are off; reprint")
    # Live: a worker's move elsewhere shows up on the open page.
    await pat(START, {"i": {"taskId": gid("DepartmentTask", task)}})
    await expect(page.locator(".timeline li").last).to_contain_text("Print: started")
    await expect(row).to_contain_text("In progress")
    tab.assert_clean()
    await tab.close()


async def test_sales_edits_a_stale_quote_and_cancels_with_a_reason(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    order = await shop.order(["print"])
    order_id = gid("WorkOrder", order)
    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    await page.goto(base(server) + "/orders/" + order_id)
    await expect(page.locator(".quote")).to_have_text("Quote: none")
    await page.get_by_role("button", name="Edit quote").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("Amount").fill("1200.00")
    # Meanwhile someone else changes the quote.
    changed = await api.as_(shop.tokens["ada"])(
        QUOTE, {"i": {"workOrderId": order_id, "quote": {"amount": "99.00", "currency": "EUR"}}}
    )
    assert changed["updateWorkOrderQuote"]["userErrors"] == []
    await dialog.get_by_role("button", name="Save quote").click()
    await expect(dialog.get_by_role("alert")).to_contain_text("the quote is now 99.00 EUR")
    await expect(dialog.get_by_label("Amount")).to_have_value("1200.00")
    await dialog.get_by_role("button", name="Save quote again").click()
    await expect(dialog).to_have_count(0)
    # Amounts are grouped, in the quote and in the history the server wrote.
    await expect(page.locator(".quote")).to_have_text("Quote: 1,200.00 EUR")
    timeline = page.locator(".timeline")
    # The first quote is "set", not changed from the server's NONE.
    await expect(timeline).to_contain_text("Quote set to 99.00 EUR")
    await expect(timeline).not_to_contain_text("NONE")
    await expect(timeline).to_contain_text("Quote changed from 99.00 EUR to 1,200.00 EUR")

    await page.get_by_role("button", name="Cancel work order").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_role("button", name="Keep work order").click()
    await expect(dialog).to_have_count(0)
    assert await scalar(shop, "SELECT status FROM work_orders WHERE id = :o", o=order) == "ACTIVE"
    task = (await task_ids(shop.engine, order))["print"]
    started = await api.as_(shop.tokens["pat"])(
        START, {"i": {"taskId": gid("DepartmentTask", task)}}
    )
    assert started["startTask"]["changed"] is True
    await page.get_by_role("button", name="Cancel work order").click()
    await dialog.get_by_label("Reason").fill("Customer withdrew the order")
    await dialog.get_by_role("button", name="Confirm cancellation").click()
    await expect(page.get_by_role("heading", level=1)).to_contain_text("Cancelled")
    # One action, one entry: the started Print task's release is a line of the cancellation.
    cancelled = timeline.locator(":scope > li").filter(has_text="Work order cancelled")
    await expect(cancelled.locator(".reason")).to_have_text("Reason: Customer withdrew the order")
    await expect(cancelled.locator(".changes li")).to_have_text(
        ["Print: released (back to the queue)"]
    )
    await expect(timeline.locator(":scope > li").filter(has_text="released")).to_have_count(1)
    await expect(page.get_by_role("button", name="Cancel work order")).to_have_count(0)
    # The server refuses a cancelled order's quote: no "Edit quote" either.
    await expect(page.get_by_role("button", name="Edit quote")).to_have_count(0)
    assert await scalar(shop, "SELECT status FROM work_orders WHERE id = :o", o=order) == (
        "CANCELLED"
    )
    tab.assert_clean()
    await tab.close()


async def test_accounts_see_what_was_charged_and_paid_on_the_order_page(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    order = await shop.order(["print"])
    order_id = gid("WorkOrder", order)
    abe = api.as_(shop.tokens["abe"])
    for kind, amount, key in [("CHARGE", "1240.00", "c1"), ("PAYMENT", "100.00", "p1")]:
        posted = await abe(
            POST,
            {"i": {"customerId": gid("Customer", shop.customer_id), "workOrderId": order_id,
                   "kind": kind, "amount": amount, "idempotencyKey": key}},
        )  # fmt: skip
        assert posted["postLedgerEntry"]["userErrors"] == []

    tab = await tabs(token=shop.tokens["abe"])
    page = tab.page
    await page.goto(base(server) + "/orders/" + order_id)
    await expect(page.locator(".charged")).to_have_text("Charged: 1,240.00 EUR")
    await expect(page.locator(".paid")).to_have_text("Paid: 100.00 EUR")
    await page.get_by_role("link", name=re.compile(r"^ACME.s ledger$")).click()
    await expect(page).to_have_url(base(server) + "/accounts/" + gid("Customer", shop.customer_id))
    await expect(page.locator("table.ledger tbody tr")).to_have_count(2)
    tab.assert_clean()
    await tab.close()

    # Sales sees the quote but not the ledger's sums, and gets no FORBIDDEN error.
    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    async with page.expect_response(
        lambda r: "WorkOrderPage" in (r.request.post_data or "")
    ) as answer:
        await page.goto(base(server) + "/orders/" + order_id)
    body = await (await answer.value).json()
    assert "errors" not in body and "charged" not in body["data"]["workOrder"]
    await expect(page.locator(".quote")).to_have_text("Quote: none")
    await expect(page.locator(".ledger-sums")).to_have_count(0)
    tab.assert_clean()
    await tab.close()


async def test_a_cancelled_order_offers_no_task_moves_and_says_there_is_no_delivery(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
    screenshots: Path,
) -> None:
    order = await shop.order(["print", "finishing"])
    ids = await task_ids(shop.engine, order)
    pat = api.as_(shop.tokens["pat"])
    await pat(START, {"i": {"taskId": gid("DepartmentTask", ids["print"])}})
    await pat(FINISH, {"i": {"taskId": gid("DepartmentTask", ids["print"])}})
    cancelled = await api.as_(shop.tokens["sam"])(
        CANCEL, {"i": {"workOrderId": gid("WorkOrder", order), "reason": "Customer withdrew"}}
    )
    assert cancelled["cancelWorkOrder"]["userErrors"] == []

    tab = await tabs(token=shop.tokens["ada"])
    page = tab.page
    await page.goto(base(server) + "/orders/" + gid("WorkOrder", order))
    await expect(page.get_by_role("heading", level=1)).to_contain_text("Cancelled")
    rows = page.locator("table.tasks-table tbody tr")
    await expect(rows).to_have_count(3)
    # Every admin move is WORK_ORDER_CLOSED on a cancelled order: none is offered.
    for name in ("Release", "Complete", "Reopen", "Edit quote", "Cancel work order"):
        await expect(page.get_by_role("button", name=name)).to_have_count(0)
    await expect(rows.first).to_contain_text("None")
    # The gate panel and the delivery row say the order is cancelled, not "gate closed".
    gate = page.locator(".gate")
    await expect(gate).to_contain_text("cancelled, so there is no delivery")
    await expect(gate).not_to_contain_text("waiting for")
    delivery = page.locator(f"tr[data-task-id='{gid('DepartmentTask', ids['delivery'])}']")
    await expect(delivery).to_contain_text("Cancelled")
    await expect(delivery).to_contain_text("Not queued")
    await expect(page.locator("table.tasks-table")).not_to_contain_text("gate closed")
    await page.screenshot(path=str(screenshots / "work-order-cancelled-admin-desktop.png"))
    tab.assert_clean()
    await tab.close()


async def test_a_completed_order_takes_a_quote_edit_and_a_reopen(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    order = await shop.order(["print"])
    ids = await task_ids(shop.engine, order)
    for who, code in (("pat", "print"), ("dan", "delivery")):
        worker = api.as_(shop.tokens[who])
        await worker(START, {"i": {"taskId": gid("DepartmentTask", ids[code])}})
        await worker(FINISH, {"i": {"taskId": gid("DepartmentTask", ids[code])}})
    assert await scalar(shop, "SELECT status FROM work_orders WHERE id = :o", o=order) == (
        "COMPLETED"
    )

    # Sales: the quote of a completed order can still change; it cannot be cancelled.
    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    await page.goto(base(server) + "/orders/" + gid("WorkOrder", order))
    await expect(page.get_by_role("heading", level=1)).to_contain_text("Completed")
    await expect(page.get_by_role("button", name="Cancel work order")).to_have_count(0)
    await page.get_by_role("button", name="Edit quote").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("Amount").fill("80.00")
    await dialog.get_by_role("button", name="Save quote").click()
    await expect(dialog).to_have_count(0)
    await expect(page.locator(".quote")).to_have_text("Quote: 80.00 EUR")
    await expect(page.locator(".timeline")).to_contain_text("Quote set to 80.00 EUR")
    tab.assert_clean()
    await tab.close()

    # An admin: a completed order's tasks can be reopened (the order is active again).
    tab = await tabs(token=shop.tokens["ada"])
    page = tab.page
    await page.goto(base(server) + "/orders/" + gid("WorkOrder", order))
    row = page.locator(f"tr[data-task-id='{gid('DepartmentTask', ids['print'])}']")
    await row.get_by_role("button", name="Reopen").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("Reason").fill("Wrong paper")
    await dialog.get_by_role("button", name="Reopen task").click()
    await expect(dialog).to_have_count(0)
    await expect(page.get_by_role("heading", level=1)).to_contain_text("Active")
    await expect(row).to_contain_text("Waiting")
    tab.assert_clean()
    await tab.close()


async def test_the_order_page_says_why_it_is_not_live(
    server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    order = await shop.order(["print"])
    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    refusal = "Not allowed to follow this work order."

    async def refuse_order_events(ws: WebSocketRoute) -> None:
        # Everything goes through to the server except the order's subscription, which
        # the "server" refuses (as it would a FORBIDDEN subscription).
        server_side = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "subscribe" and "WorkOrderLive" in json.dumps(data):
                ws.send(json.dumps({
                    "id": data["id"],
                    "type": "error",
                    "payload": [{"message": refusal, "extensions": {"code": "FORBIDDEN"}}],
                }))  # fmt: skip
            else:
                server_side.send(message)

        ws.on_message(from_page)

    await page.route_web_socket(re.compile(r".*/graphql"), refuse_order_events)
    await page.goto(base(server) + "/orders/" + gid("WorkOrder", order))
    await expect(page.locator(".title-row .live-status")).to_contain_text("Not live")
    await expect(page.locator(".message.notice")).to_contain_text(refusal)
    # The page itself still loaded.
    await expect(page.get_by_role("heading", level=1)).to_contain_text("WO-")
    tab.assert_clean()
    await tab.close()


# The tab comes back into view (headless Chromium is always "visible"; the event is what
# a person switching back to the tab causes).
BACK_TO_THE_TAB = "document.dispatchEvent(new Event('visibilitychange'))"


async def test_lists_are_read_again_on_return_to_the_tab_and_on_refresh(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    await shop.order(["print"])
    tab = await tabs(token=shop.tokens["pat"])
    page = tab.page
    await page.goto(base(server) + "/orders")
    rows = page.locator("table.orders tbody tr")
    await expect(rows).to_have_count(1)
    await shop.order(["print"])
    await page.evaluate(BACK_TO_THE_TAB)
    await expect(rows).to_have_count(2)
    await shop.order(["print"])
    await page.get_by_role("button", name="Refresh").click()
    await expect(rows).to_have_count(3)
    tab.assert_clean()
    await tab.close()

    abe = api.as_(shop.tokens["abe"])
    customer = gid("Customer", shop.customer_id)

    async def post(amount: str, key: str) -> None:
        posted = await abe(
            POST,
            {"i": {"customerId": customer, "kind": "CHARGE", "amount": amount,
                   "idempotencyKey": key}},
        )  # fmt: skip
        assert posted["postLedgerEntry"]["userErrors"] == []

    tab = await tabs(token=shop.tokens["abe"])
    page = tab.page
    await page.goto(base(server) + "/accounts")
    acme = page.get_by_role("row", name="ACME")
    await expect(acme).to_contain_text("none")
    await post("50.00", "r1")
    await page.evaluate(BACK_TO_THE_TAB)
    await expect(acme).to_contain_text("50.00 EUR")
    await post("25.00", "r2")
    await page.get_by_role("button", name="Refresh").click()
    await expect(acme).to_contain_text("75.00 EUR")

    await acme.get_by_role("link", name="ACME").click()
    entries = page.locator("table.ledger tbody tr")
    await expect(entries).to_have_count(2)
    await post("5.00", "r3")
    await page.evaluate(BACK_TO_THE_TAB)
    await expect(entries).to_have_count(3)
    await expect(page.locator(".lead")).to_contain_text("Balance: 80.00 EUR")
    await post("1.00", "r4")
    await page.get_by_role("button", name="Refresh").click()
    await expect(entries).to_have_count(4)
    await expect(page.locator(".lead")).to_contain_text("Balance: 81.00 EUR")
    tab.assert_clean()
    await tab.close()


async def test_an_admin_manages_people_departments_and_display_tokens(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    tab = await tabs(token=shop.tokens["ada"])
    page = tab.page
    await page.goto(base(server) + "/")
    await page.get_by_role("link", name="Admin").click()
    await expect(page).to_have_url(base(server) + "/admin/people")
    ada = page.get_by_role("row", name="Ada")
    await expect(ada).to_contain_text("Admin")
    await expect(page.get_by_role("row", name="Pat")).to_contain_text("No")

    # Departments: create one.
    await page.get_by_role("link", name="Departments").click()
    # The one Delivery department exists already: it is not offered again.
    await expect(page.get_by_label("Kind").locator("option")).to_have_text(
        ["Production", "Sales", "Accounts"]
    )
    await page.get_by_label("Name").fill("Large format")
    await page.get_by_label("Code").fill("large-format")
    await page.get_by_label("Kind").select_option("PRODUCTION")
    await page.get_by_role("button", name="Create department").click()
    row = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="Large format"))
    await expect(row).to_contain_text("large-format")
    # It gates delivery (the default for production): the delivery row says so.
    delivery = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="Delivery"))
    await expect(delivery).to_contain_text("Large format")

    # People: create a user in it, then move Pat into it as well.
    await page.get_by_role("link", name="People").click()
    await page.get_by_label("Name").fill("Lena")
    await page.get_by_label("Email").fill("lena@shop.test")
    await page.get_by_label("Password").fill("long enough password")
    await page.get_by_role("checkbox", name="Large format").check()
    await page.get_by_role("button", name="Create user").click()
    await expect(page.get_by_role("row", name="Lena")).to_contain_text("Large format")
    login = await api(
        "mutation($i: LoginInput!) { login(input: $i) { user { name } } }",
        {"i": {"email": "lena@shop.test", "password": "long enough password"}},
    )
    assert login["login"]["user"] == {"name": "Lena"}
    await page.get_by_role("row", name="Pat").get_by_role("button", name="Set departments").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_role("checkbox", name="Large format").check()
    await dialog.get_by_role("button", name="Save departments").click()
    await expect(page.get_by_role("row", name="Pat")).to_contain_text("Large format, Print")

    # Tokens: a display token, its secret once with a ready link, then revoked.
    await page.get_by_role("link", name="Tokens").click()
    await page.get_by_label("Token name").fill("Press hall")
    await page.get_by_role("checkbox", name="Print").check()
    await page.get_by_role("button", name="Create display token").click()
    link = page.get_by_role("link", name="Open the Print wall display")
    href = await link.get_attribute("href")
    assert href is not None and href.startswith("/display/print?token=prs_")
    secret = href.split("token=")[1]
    await expect(page.locator(".secret-value")).to_have_text(secret)
    queue = '{ queue(department: "print") { eventCursor } }'
    assert "queue" in await api.as_(secret)(queue)
    await page.get_by_role("button", name="Done, hide the secret").click()
    await expect(page.locator(".secret-value")).to_have_count(0)
    row = page.get_by_role("row", name="Press hall")
    await row.get_by_role("button", name="Revoke").click()
    await page.get_by_role("dialog").get_by_role("button", name="Revoke token").click()
    await expect(row).to_contain_text("Revoked")
    body = await api.as_(secret).raw(queue)
    assert body["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    tab.assert_clean()
    await tab.close()


async def test_the_work_order_list_searches_filters_and_pages(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    for n in range(27):
        await shop.order(["print"], details={"product": f"Job {n}"})
    async with unit_of_work(shop.engine) as conn:
        made = await customers.create_customer(conn, "Zeta Print Co", shop.users["sam"])
    zeta = [await shop.order(["print"], customer_id=made.customer.id) for _ in range(2)]
    cancelled = await api.as_(shop.tokens["sam"])(
        "mutation($i: CancelWorkOrderInput!) { cancelWorkOrder(input: $i) {"
        " userErrors { code } } }",
        {"i": {"workOrderId": gid("WorkOrder", zeta[0]), "reason": "Test"}},
    )
    assert cancelled["cancelWorkOrder"]["userErrors"] == []

    tab = await tabs(token=shop.tokens["pat"])
    page = tab.page
    await page.goto(base(server) + "/orders")
    rows = page.locator("table.orders tbody tr")
    await expect(rows).to_have_count(25)
    # Newest first; keyset paging continues after the last one shown.
    await expect(rows.first).to_contain_text("Zeta Print Co")
    await page.get_by_role("button", name="Show more").click()
    await expect(rows).to_have_count(29)
    await expect(page.get_by_role("button", name="Show more")).to_have_count(0)
    numbers = [await rows.nth(i).locator("th").inner_text() for i in range(29)]
    assert len(set(numbers)) == 29

    await page.get_by_label("Search").fill("zeta")
    await expect(rows).to_have_count(2)
    await expect(page).to_have_url(base(server) + "/orders?q=zeta")
    await page.get_by_label("Status").select_option("CANCELLED")
    await expect(rows).to_have_count(1)
    await expect(rows.first).to_contain_text("Cancelled")
    await page.get_by_label("Search").fill("")
    await page.get_by_label("Status").select_option("")
    await expect(rows).to_have_count(25)

    # Filter by customer from a row; the filter names the customer and can be cleared.
    await rows.first.get_by_role("link", name="Zeta Print Co").click()
    await expect(rows).to_have_count(2)
    await expect(page.locator(".chip")).to_contain_text("Customer: Zeta Print Co")
    await page.go_back()
    await expect(rows).to_have_count(25)
    await page.go_forward()
    await expect(rows).to_have_count(2)
    await page.get_by_role("button", name="Clear customer filter").click()
    await expect(rows).to_have_count(25)

    # Read again, the list keeps the pages shown (not the first alone), with the new order.
    await page.get_by_role("button", name="Show more").click()
    await expect(rows).to_have_count(29)
    await shop.order(["print"], details={"product": "Job late"})
    await page.evaluate(BACK_TO_THE_TAB)
    await expect(rows).to_have_count(30)
    await expect(rows.first).to_contain_text("Job late")
    await page.get_by_role("button", name="Refresh").click()
    await expect(rows).to_have_count(30)
    await expect(page.get_by_role("button", name="Show more")).to_have_count(0)
    tab.assert_clean()
