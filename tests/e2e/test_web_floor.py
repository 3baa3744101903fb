"""The floor through the app: a worker starts and finishes a task; Sales creates a
customer and a work order and it appears live in a print worker's queue; two workers
press Start at the same moment; the queue keeps up when the server's listener dies and
when the page's own websocket drops."""

import asyncio
import json
import re
from pathlib import Path

import pytest
from playwright.async_api import Page, Route, expect

from tests.e2e.web.support import (
    OpenTab,
    base,
    scalar,
    sign_in,
    under_service_worker,
    user_with_password,
)
from tests.support.client import Client, gid
from tests.support.database import kill_listeners
from tests.support.shop import Shop
from tests.support.subscriptions import FINISH, START, print_tasks

pytestmark = pytest.mark.e2e


async def order_number(shop: Shop, task: int) -> str:
    return str(
        await scalar(
            shop,
            "SELECT w.order_number FROM work_orders w JOIN department_tasks t "
            "ON t.work_order_id = w.id WHERE t.id = :t",
            t=task,
        )
    )


def queue(page: Page, code: str = "print") -> tuple[object, object]:
    column = page.locator(f"section.queue[data-department='{code}']")
    return column.locator("ol.waiting"), column.locator("ol.in-progress")


async def test_a_worker_signs_in_starts_and_finishes_a_task(
    server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    email = await user_with_password(shop, "wes", ["print"])
    [task] = await print_tasks(shop, 1)
    number = await order_number(shop, task)
    # The one journey under the app's service worker, as on a tablet: with the worker
    # controlling the page, the moves still reach the server (it handles only GETs of the
    # app's own files, from the network first).
    tab = await tabs(service_worker=True)
    page = tab.page
    await sign_in(page, server, email)
    await under_service_worker(page)
    column = page.locator("section.queue[data-department='print']")
    waiting = column.locator("ol.waiting li", has_text=number)
    await expect(waiting).to_be_visible()
    start = waiting.get_by_role("button", name="Start", exact=True)
    box = await start.bounding_box()
    assert box is not None and box["height"] >= 44 and box["width"] >= 44
    await start.click()

    mine = column.locator("ol.in-progress li", has_text=number)
    await expect(mine).to_contain_text("You")
    await expect(column.locator("ol.waiting li", has_text=number)).to_have_count(0)
    assert await scalar(shop, "SELECT status FROM department_tasks WHERE id = :t", t=task) == (
        "STARTED"
    )
    # By keyboard: focus the Finish button and press Enter.
    await mine.get_by_role("button", name="Finish", exact=True).focus()
    await page.keyboard.press("Enter")
    await expect(column.locator("li", has_text=number)).to_have_count(0)
    row = await scalar(
        shop,
        "SELECT status || ' ' || picked_up_by FROM department_tasks WHERE id = :t",
        t=task,
    )
    assert row == f"COMPLETED {shop.users['wes']}"
    tab.assert_clean()
    await tab.close()


async def test_sales_creates_an_order_that_appears_live_in_the_print_queue(
    server: str,
    shop: Shop,
    tabs: OpenTab,
    screenshots: Path,
) -> None:
    printer = await tabs(token=shop.tokens["pat"])
    await printer.page.goto(base(server) + "/queues")
    column = printer.page.locator("section.queue[data-department='print']")
    await expect(column.get_by_role("status")).to_have_text("● Live")

    email = await user_with_password(shop, "sue", ["sales"])
    sales = await tabs(viewport={"width": 800, "height": 1280})
    page = sales.page
    await sign_in(page, server, email)
    await expect(page).to_have_url(base(server) + "/orders")
    await page.get_by_role("link", name="New work order").click()
    await page.get_by_label("Customer").fill("Bakery Nord")
    await page.get_by_role("button", name="Create customer “Bakery Nord”").click()
    await page.get_by_role("dialog").get_by_role("button", name="Create customer").click()
    await expect(page.get_by_text("Bakery Nord", exact=True)).to_be_visible()
    await page.get_by_role("checkbox", name="Print", exact=True).check()
    await page.get_by_role("checkbox", name="Needs transport").check()
    await page.get_by_label("Product").fill("Flyers A5")
    # A quantity that is not a whole number: the server's check (job.quantity), shown
    # under Quantity (not under Notes).
    quantity = page.get_by_label("Quantity")
    await quantity.fill("2.5")
    await page.get_by_role("button", name="Create work order").click()
    await expect(quantity).to_have_attribute("aria-invalid", "true")
    described = await quantity.get_attribute("aria-describedby")
    assert described is not None
    await expect(page.locator(f"[id='{described.split()[-1]}']")).to_have_text(
        "⚠ Give the quantity as a whole number from 1 to 10,000,000."
    )
    await expect(page.get_by_label("Notes")).not_to_have_attribute("aria-invalid", "true")
    await expect(page.locator(".field-error")).to_have_count(1)
    await page.screenshot(path=str(screenshots / "new-work-order-quantity-tablet.png"))
    await quantity.fill("500")
    # A refused quote: the server's userError appears next to its field.
    await page.get_by_label("Quote amount").fill("-5")
    await page.get_by_role("button", name="Create work order").click()
    amount = page.get_by_label("Quote amount")
    await expect(amount).to_have_attribute("aria-invalid", "true")
    described = await amount.get_attribute("aria-describedby")
    assert described is not None
    error_id = described.split()[-1]
    await expect(page.locator(f"[id='{error_id}']")).to_contain_text("cannot be negative")
    await amount.fill("240.00")
    await page.get_by_role("button", name="Create work order").click()

    heading = page.get_by_role("heading", level=1)
    await expect(heading).to_contain_text("WO-")
    number = (await heading.inner_text()).split()[0]
    await expect(page.locator(".lead")).to_contain_text("Bakery Nord")
    await expect(page.locator(".quote")).to_have_text("Quote: 240.00 EUR")

    # Live in the print worker's queue, with what the job is.
    item = column.locator("ol.waiting li", has_text=number)
    await expect(item).to_contain_text("Bakery Nord")
    await expect(item).to_contain_text("500 x Flyers A5")
    assert await scalar(shop, "SELECT count(*) FROM customers WHERE name = 'Bakery Nord'") == 1
    printer.assert_clean()
    sales.assert_clean()
    await printer.close()
    await sales.close()


async def test_two_workers_press_start_at_the_same_moment(
    server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    [task] = await print_tasks(shop, 1)
    number = await order_number(shop, task)
    tabs = {
        key: await tabs(token=shop.tokens[key], viewport={"width": 800, "height": 1280})
        for key in ("pat", "pia")
    }
    # Hold each page's startTask until both have sent theirs, then let both go at once.
    held: list[Route] = []
    both = asyncio.Event()

    async def hold_start(route: Route) -> None:
        body = route.request.post_data or ""
        if route.request.method == "POST" and json.loads(body).get("operationName") == "StartTask":
            held.append(route)
            if len(held) == 2:
                both.set()
            await both.wait()
        await route.continue_()

    for tab in tabs.values():
        await tab.page.route("**/graphql", hold_start)
        await tab.page.goto(base(server) + "/queues")
        await expect(tab.page.locator("ol.waiting li", has_text=number)).to_be_visible()
    await asyncio.gather(
        *(
            tab.page.locator("ol.waiting li", has_text=number)
            .get_by_role("button", name="Start", exact=True)
            .click()
            for tab in tabs.values()
        )
    )
    holder = None
    async with asyncio.timeout(10):
        await both.wait()
        # Both requests are on their way; one of them commits the start.
        while holder is None:
            await asyncio.sleep(0.05)
            holder = await scalar(
                shop,
                "SELECT u.name FROM department_tasks t JOIN users u ON u.id = t.picked_up_by "
                "WHERE t.id = :t",
                t=task,
            )
    winner = "pat" if holder == "Pat" else "pia"
    loser = "pia" if winner == "pat" else "pat"
    assert holder in ("Pat", "Pia")
    won, lost = tabs[winner].page, tabs[loser].page
    await expect(won.locator("ol.in-progress li", has_text=number)).to_contain_text("You")
    alert = lost.get_by_role("alert")
    await expect(alert).to_contain_text(f"{number}: {holder} has already started this task.")
    # The loser's list is current: the task is in progress, held by the winner.
    theirs = lost.locator("ol.in-progress li", has_text=number)
    await expect(theirs).to_contain_text(holder)
    await expect(theirs.get_by_role("button", name="Finish")).to_have_count(0)
    await expect(lost.locator("ol.waiting li", has_text=number)).to_have_count(0)
    transitions = await scalar(
        shop, "SELECT count(*) FROM task_transitions WHERE task_id = :t", t=task
    )
    assert transitions == 1
    for tab in tabs.values():
        tab.assert_clean()
        await tab.close()


async def test_the_queue_keeps_up_through_listener_and_websocket_drops(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    tasks = await print_tasks(shop, 3)
    numbers = [await order_number(shop, t) for t in tasks]
    tab = await tabs(token=shop.tokens["pat"])
    page = tab.page
    await page.goto(base(server) + "/queues")
    column = page.locator("section.queue[data-department='print']")
    status = column.get_by_role("status")
    await expect(status).to_have_text("● Live")
    for number in numbers:
        await expect(column.locator("ol.waiting li", has_text=number)).to_be_visible()
    pia = api.as_(shop.tokens["pia"])

    # The server's listener connection is terminated; the next move still arrives.
    assert await kill_listeners(shop.engine) >= 1
    await pia(START, {"i": {"taskId": gid("DepartmentTask", tasks[0])}})
    await expect(column.locator("ol.in-progress li", has_text=numbers[0])).to_contain_text("Pia")

    # The page's own websocket drops: it says so, resumes from its last cursor, and the
    # moves made while it was away arrive.
    connects = await page.evaluate("window.__pressroom.connects")
    await page.evaluate("window.__pressroom.drop()")
    await expect(status).to_have_text(re.compile("Reconnecting…"))
    await pia(START, {"i": {"taskId": gid("DepartmentTask", tasks[1])}})
    await pia(FINISH, {"i": {"taskId": gid("DepartmentTask", tasks[0])}})
    await expect(status).to_have_text("● Live")
    await expect(column.locator("ol.in-progress li", has_text=numbers[1])).to_contain_text("Pia")
    await expect(column.locator("li", has_text=numbers[0])).to_have_count(0)
    assert await page.evaluate("window.__pressroom.connects") == connects + 1

    # And it still works both ways: Start from the page after all that.
    item = column.locator("ol.waiting li", has_text=numbers[2])
    await item.get_by_role("button", name="Start", exact=True).click()
    await expect(column.locator("ol.in-progress li", has_text=numbers[2])).to_contain_text("You")
    tab.assert_clean()
    await tab.close()


SET_DEPARTMENTS = """mutation($i: SetUserDepartmentsInput!) { setUserDepartments(input: $i) {
  userErrors { code message } } }"""
# A request the app's own transport sends and the server refuses FORBIDDEN (a print
# worker may not list customers), as any screen's request would be.
FORBIDDEN_REQUEST = """async () => {
  const { transport } = await import("/app/lib/session.js");
  try {
    await transport.request("query Forbidden { customers(first: 1) { edges { node { id } } } }");
  } catch (error) {
    return error.code;
  }
  return null;
}"""


async def test_a_worker_gets_a_new_departments_queue_without_reloading(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    ada = api.as_(shop.tokens["ada"])

    async def set_departments(codes: list[str]) -> None:
        done = await ada(
            SET_DEPARTMENTS,
            {"i": {"userId": gid("User", shop.users["pat"]), "departmentCodes": codes}},
        )
        assert done["setUserDepartments"]["userErrors"] == []

    tab = await tabs(token=shop.tokens["pat"])
    page = tab.page
    await page.goto(base(server) + "/queues")
    columns = page.locator("section.queue")
    await expect(page.locator("section.queue[data-department='print']")).to_be_visible()
    await expect(columns).to_have_count(1)

    # Added to Finishing: the column appears when the tab is looked at again.
    await set_departments(["print", "finishing"])
    await page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    await expect(page.locator("section.queue[data-department='finishing']")).to_be_visible()
    await expect(columns).to_have_count(2)

    # Added to Delivery: a request refused FORBIDDEN makes the app read `me` again too.
    await set_departments(["print", "finishing", "delivery"])
    assert await page.evaluate(FORBIDDEN_REQUEST) == "FORBIDDEN"
    await expect(page.locator("section.queue[data-department='delivery']")).to_be_visible()
    await expect(columns).to_have_count(3)
    tab.assert_clean()
    await tab.close()


async def test_a_worker_in_three_departments_sees_the_queues_side_by_side(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path
) -> None:
    await shop.add_user("tri", ["design", "print", "finishing"])
    await shop.order(["design", "print", "finishing"])
    tab = await tabs(token=shop.tokens["tri"])
    await tab.page.goto(base(server) + "/queues")
    columns = tab.page.locator("section.queue")
    await expect(columns).to_have_count(3)
    for n in range(3):
        await expect(columns.nth(n).get_by_role("status")).to_have_text("● Live")
    boxes = [await columns.nth(n).bounding_box() for n in range(3)]
    assert all(box is not None for box in boxes)
    # One row of three at 1366 px: the same top, left to right.
    tops = {round(box["y"]) for box in boxes if box}
    lefts = [box["x"] for box in boxes if box]
    assert len(tops) == 1 and lefts == sorted(lefts), boxes
    await tab.page.screenshot(path=str(screenshots / "queues-three-departments-desktop.png"))
    # On a tablet held upright, one above the other.
    await tab.page.set_viewport_size({"width": 800, "height": 1280})
    stacked = [await columns.nth(n).bounding_box() for n in range(3)]
    assert len({round(box["x"]) for box in stacked if box}) == 1, stacked
    tab.assert_clean()
    await tab.close()
