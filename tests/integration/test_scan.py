"""`scan`: a job ticket scanned at the queues. The worker's task on the order and the move
one scan makes (START, then FINISH for who holds it), by order number (any case) or by the
order page's address the QR code holds; and, in words, why a scan can do nothing: an
unknown number, no task in the worker's departments, a task held by someone else, a task
waiting for another department, an order on hold or cancelled, a task done."""

from typing import Any

import pytest

from db import schedule
from db.cancellation import cancel_work_order
from db.engine import unit_of_work
from db.tasks import Actor, transition_task
from domain.enums import TaskAction
from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop

SCAN = """query Scan($code: String!) { scan(code: $code) {
  message action task { id department { code } } workOrder { orderNumber } } }"""


async def scanned(api: Client, shop: Shop, who: str, code: str) -> dict[str, Any]:
    answer: dict[str, Any] = (await api.as_(shop.tokens[who])(SCAN, {"code": code}))["scan"]
    return answer


async def move(shop: Shop, task: int, action: TaskAction, who: str) -> None:
    async with unit_of_work(shop.engine) as conn:
        await transition_task(conn, task, action, Actor(shop.users[who], who == "ada"))


async def test_one_scan_starts_the_next_finishes(shop: Shop, api: Client, server: str) -> None:
    order = await shop.order(["print"])
    tasks = await task_ids(shop.engine, order)
    first = await scanned(api, shop, "pat", "WO-000001")
    assert first == {
        "message": "WO-000001 · Print",
        "action": "START",
        "task": {"id": gid("DepartmentTask", tasks["print"]), "department": {"code": "print"}},
        "workOrder": {"orderNumber": "WO-000001"},
    }
    await move(shop, tasks["print"], TaskAction.START, "pat")
    # The QR code's address, as a scanner types it, and the number in any case.
    url = server.replace("/graphql", "/orders/" + gid("WorkOrder", order))
    for code in (url, " wo-000001 "):
        again = await scanned(api, shop, "pat", code)
        assert (again["action"], again["message"]) == ("FINISH", "WO-000001 · Print")


@pytest.mark.parametrize(
    ("case", "who", "message"),
    [
        ("unknown", "pat", "No work order has the number 'WO-999999'."),
        ("elsewhere", "dan", "WO-000001 · Delivery — Not ready yet: it waits for Finishing "
                             "and Print."),
        ("not mine", "abe", "WO-000001 has no task in your departments: its tasks are for "
                            "Finishing, Print and Delivery."),
        ("held by another", "pia", "WO-000001 · Print — Pat has already started this task."),
        ("on hold", "fin", "WO-000001 · Finishing — The work order is on hold: its tasks "
                           "wait until it is resumed."),
        ("cancelled", "pat", "WO-000001 · Print — The work order is cancelled."),
        ("done", "pat", "WO-000001's Print task is already done."),
        ("too long", "pat", "That is too long for an order number or an order's address."),
        ("nul", "pat", "That is not an order number or an order's address."),
        ("empty", "pat", "Scan a job ticket."),
    ],
)  # fmt: skip
async def test_a_scan_that_can_do_nothing_says_why(
    shop: Shop, api: Client, case: str, who: str, message: str
) -> None:
    order = await shop.order(["print", "finishing"])
    tasks = await task_ids(shop.engine, order)
    code = {
        "unknown": "WO-999999",
        "too long": "WO-" + "1" * 400,
        "empty": "  ",
        "nul": "WO-\x00",
    }.get(case, "WO-000001")
    if case == "held by another":
        await move(shop, tasks["print"], TaskAction.START, "pat")
    if case == "on hold":
        async with unit_of_work(shop.engine) as conn:
            await schedule.hold(conn, order, "Proof not signed.", shop.users["sam"])
    if case == "cancelled":
        async with unit_of_work(shop.engine) as conn:
            await cancel_work_order(conn, order, shop.users["ada"], "Withdrawn.")
    if case == "done":
        await move(shop, tasks["print"], TaskAction.START, "pat")
        await move(shop, tasks["print"], TaskAction.FINISH, "pat")
    answer = await scanned(api, shop, who, code)
    assert answer["action"] is None
    assert answer["message"].startswith(message), answer["message"]


async def test_a_worker_in_two_departments_finishes_before_starting(
    shop: Shop, api: Client
) -> None:
    await shop.add_user("two", ["print", "finishing"])
    order = await shop.order(["print", "finishing"])
    tasks = await task_ids(shop.engine, order)
    # Unrouted, both may start: the first in route order (by name) is offered.
    assert (await scanned(api, shop, "two", "WO-000001"))["message"] == "WO-000001 · Finishing"
    await move(shop, tasks["print"], TaskAction.START, "two")
    answer = await scanned(api, shop, "two", "WO-000001")
    assert (answer["action"], answer["message"]) == ("FINISH", "WO-000001 · Print")
