"""A work order's time: due date and priority (rescheduleWorkOrder), lateness, the queue's
order they make, and the hold that takes its pending tasks out of every queue."""

import asyncio
import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import text

from db.engine import unit_of_work
from db.tasks import Actor, transition_task
from domain.enums import TaskAction, WorkOrderPriority
from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop

ORDER = """query($id: ID!) { workOrder(id: $id) {
  version status dueAt priority isLate allowedActions hold { reason since by { name } }
  history { action fromState toState reason actor { name } } } }"""
RESCHEDULE = """mutation($i: RescheduleWorkOrderInput!) { rescheduleWorkOrder(input: $i) {
  changed workOrder { dueAt priority version } userErrors { code field message } } }"""
HOLD = """mutation($i: HoldWorkOrderInput!) { holdWorkOrder(input: $i) {
  changed workOrder { hold { reason } status } userErrors { code field message } } }"""
RESUME = """mutation($i: ResumeWorkOrderInput!) { resumeWorkOrder(input: $i) {
  changed workOrder { hold { reason } } userErrors { code field message } } }"""
CANCEL = """mutation($i: CancelWorkOrderInput!) { cancelWorkOrder(input: $i) {
  workOrder { status } userErrors { code } } }"""
START = """mutation($i: StartTaskInput!) { startTask(input: $i) {
  changed userErrors { code message } } }"""
FINISH = """mutation($i: FinishTaskInput!) { finishTask(input: $i) {
  changed userErrors { code } } }"""
QUEUE = """query($d: String!) { queue(department: $d, first: 100) {
  edges { node { id inQueue queueLane queueRank allowedActions dueAt priority } } } }"""
TASK = """query($id: ID!) { node(id: $id) { ... on DepartmentTask {
  inQueue queueLane allowedActions } } }"""


def at(hours: float) -> datetime:
    return (datetime.now(UTC) + timedelta(hours=hours)).replace(microsecond=0)


async def order_view(api: Client, shop: Shop, order: int) -> dict[str, Any]:
    body = await api.as_(shop.tokens["sam"])(ORDER, {"id": gid("WorkOrder", order)})
    return dict(body["workOrder"])


async def events_of(shop: Shop, order: int, type_: str) -> list[int]:
    """The departments of `order`'s events of this type (null for the order's own)."""
    async with shop.engine.connect() as conn:
        rows = await conn.execute(
            text(
                "SELECT department_id FROM events WHERE work_order_id = :o AND type = :t "
                "ORDER BY id"
            ),
            {"o": order, "t": type_},
        )
        return [r.department_id for r in rows]


async def test_an_order_is_due_late_and_rescheduled_with_history(api: Client, shop: Shop) -> None:
    order = await shop.order(["print"], due_at=at(-2))
    seen = await order_view(api, shop, order)
    assert seen["isLate"] is True and seen["priority"] == "NORMAL"
    assert {"RESCHEDULE", "HOLD"} <= set(seen["allowedActions"])
    assert "RESUME" not in seen["allowedActions"]
    sam = api.as_(shop.tokens["sam"])
    new_due = at(48)
    asked = {
        "workOrderId": gid("WorkOrder", order),
        "dueAt": new_due.isoformat(),
        "priority": "RUSH",
        "expectedVersion": seen["version"],
    }
    done = (await sam(RESCHEDULE, {"i": asked}))["rescheduleWorkOrder"]
    assert done["changed"] is True and done["userErrors"] == []
    assert done["workOrder"]["priority"] == "RUSH"
    assert datetime.fromisoformat(done["workOrder"]["dueAt"]) == new_due
    after = await order_view(api, shop, order)
    assert after["isLate"] is False
    [change] = [h for h in after["history"] if h["action"] == "SCHEDULE_CHANGED"]
    assert change["toState"] == f"due {new_due:%Y-%m-%d %H:%M} UTC, rush"
    assert change["fromState"].startswith("due ") and change["fromState"].endswith(
        ", normal priority"
    )
    assert change["actor"]["name"] == "Sam"
    # Every queue the order is in hears of it (print's pending task), and the order.
    print_id = shop.departments["print"]
    assert await events_of(shop, order, "TASK_REQUEUED") == [print_id]
    # The same schedule again: a quiet success, nothing written.
    asked.pop("expectedVersion")
    again = (await sam(RESCHEDULE, {"i": asked}))["rescheduleWorkOrder"]
    assert again["changed"] is False and again["workOrder"]["version"] == after["version"]
    assert await events_of(shop, order, "TASK_REQUEUED") == [print_id]


async def test_completed_and_cancelled_orders_are_never_late(api: Client, shop: Shop) -> None:
    done = await shop.order(["print"], due_at=at(-5))
    await shop.complete(done)
    cancelled = await shop.order(["print"], due_at=at(-5))
    await api.as_(shop.tokens["sam"])(
        CANCEL, {"i": {"workOrderId": gid("WorkOrder", cancelled), "reason": "Gone."}}
    )
    for order, status in ((done, "COMPLETED"), (cancelled, "CANCELLED")):
        seen = await order_view(api, shop, order)
        assert (seen["status"], seen["isLate"]) == (status, False)
        assert not {"RESCHEDULE", "HOLD", "RESUME"} & set(seen["allowedActions"])


BAD = [
    ("dueAt", {"dueAt": "2031-12-31T00:00:00Z"}, "INVALID_INPUT"),  # beyond five years
    ("dueAt", {"dueAt": "1999-12-31T23:00:00Z"}, "INVALID_INPUT"),
    ("dueAt", {"dueAt": "2027-01-31T18:00:00"}, "INVALID_INPUT"),  # no time zone
]


@pytest.mark.parametrize(("field", "given", "code"), BAD)
async def test_a_bad_schedule_is_refused_and_changes_nothing(
    api: Client, shop: Shop, field: str, given: dict[str, Any], code: str
) -> None:
    order = await shop.order(["print"])
    before = await order_view(api, shop, order)
    asked = {"workOrderId": gid("WorkOrder", order), "priority": "RUSH", **given}
    body = await api.as_(shop.tokens["sam"])(RESCHEDULE, {"i": asked})
    [error] = body["rescheduleWorkOrder"]["userErrors"]
    assert (error["field"], error["code"]) == (field, code)
    assert await order_view(api, shop, order) == before


async def test_bad_hold_and_resume_are_refused_and_change_nothing(api: Client, shop: Shop) -> None:
    sam = api.as_(shop.tokens["sam"])
    order = await shop.order(["print"])
    before = await order_view(api, shop, order)
    blank = await sam(HOLD, {"i": {"workOrderId": gid("WorkOrder", order), "reason": "  "}})
    assert [e["code"] for e in blank["holdWorkOrder"]["userErrors"]] == ["INVALID_INPUT"]
    unknown = await sam.raw(
        RESCHEDULE,
        {"i": {"workOrderId": gid("WorkOrder", order), "dueAt": None, "priority": "SOON"}},
    )
    assert unknown["errors"] and unknown.get("data") is None
    assert await order_view(api, shop, order) == before
    await sam(CANCEL, {"i": {"workOrderId": gid("WorkOrder", order), "reason": "Gone."}})
    resumed = await sam(RESUME, {"i": {"workOrderId": gid("WorkOrder", order)}})
    assert [e["code"] for e in resumed["resumeWorkOrder"]["userErrors"]] == ["WORK_ORDER_CLOSED"]
    worker = await api.as_(shop.tokens["pat"]).raw(
        HOLD, {"i": {"workOrderId": gid("WorkOrder", order), "reason": "Mine."}}
    )
    assert worker["errors"][0]["extensions"]["code"] == "FORBIDDEN"


async def queue_ids(api: Client, shop: Shop, department: str) -> list[str]:
    """The queue's tasks in its order, which is also the order of their ranks."""
    body = await api.as_(shop.tokens["ada"])(QUEUE, {"d": department})
    nodes = [e["node"] for e in body["queue"]["edges"]]
    assert sorted(nodes, key=lambda n: n["queueRank"]) == nodes
    return [n["id"] for n in nodes]


async def test_the_queue_is_rush_first_then_due_then_oldest(api: Client, shop: Shop) -> None:
    """Every combination of priority, due date (none, later, sooner) and availability
    (two tasks of each, the first available sooner), made in an order that differs from
    the queue's; a started task then sorts after every waiting one."""
    never = datetime.max.replace(tzinfo=UTC)
    made = []
    combos = list(itertools.product([None, at(72), at(24)], WorkOrderPriority, range(2)))
    for due, priority, _ in reversed(combos):
        order = await shop.order(["print"], due_at=due, priority=priority)
        task = (await task_ids(shop.engine, order))["print"]
        made.append((priority is not WorkOrderPriority.RUSH, due or never, len(made), task))
    expected = [task for *_, task in sorted(made)]
    assert await queue_ids(api, shop, "print") == [gid("DepartmentTask", t) for t in expected]
    async with unit_of_work(shop.engine) as conn:
        await transition_task(conn, expected[0], TaskAction.START, Actor(shop.users["pat"], False))
    listed = [gid("DepartmentTask", t) for t in [*expected[1:], expected[0]]]
    assert await queue_ids(api, shop, "print") == listed


async def test_a_hold_takes_pending_tasks_out_of_every_queue_until_resumed(
    api: Client, shop: Shop
) -> None:
    sam = api.as_(shop.tokens["sam"])
    order = await shop.order(["print", "finishing"])
    tasks = await task_ids(shop.engine, order)
    fin = Actor(shop.users["fin"], False)
    async with unit_of_work(shop.engine) as conn:
        await transition_task(conn, tasks["finishing"], TaskAction.START, fin)
    printing = gid("DepartmentTask", tasks["print"])
    held = await sam(
        HOLD, {"i": {"workOrderId": gid("WorkOrder", order), "reason": "Waiting for the proof."}}
    )
    assert held["holdWorkOrder"]["changed"] is True
    assert held["holdWorkOrder"]["workOrder"]["status"] == "ACTIVE"
    seen = await order_view(api, shop, order)
    assert (
        seen["hold"]["reason"] == "Waiting for the proof." and seen["hold"]["by"]["name"] == "Sam"
    )
    assert "RESUME" in seen["allowedActions"] and "HOLD" not in seen["allowedActions"]
    assert printing not in await queue_ids(api, shop, "print")
    node = (await api.as_(shop.tokens["pat"])(TASK, {"id": printing}))["node"]
    assert node == {"inQueue": False, "queueLane": None, "allowedActions": []}
    # Only the pending task was withdrawn, from its department's queue.
    assert await events_of(shop, order, "TASK_WITHDRAWN") == [shop.departments["print"]]
    refused = await api.as_(shop.tokens["pat"])(START, {"i": {"taskId": printing}})
    assert [e["code"] for e in refused["startTask"]["userErrors"]] == ["ON_HOLD"]
    assert await status_of(shop, tasks["print"]) == ("PENDING", 0)
    # Work in hand finishes.
    finished = await api.as_(shop.tokens["fin"])(
        FINISH, {"i": {"taskId": gid("DepartmentTask", tasks["finishing"])}}
    )
    assert finished["finishTask"]["changed"] is True
    again = await sam(HOLD, {"i": {"workOrderId": gid("WorkOrder", order), "reason": "Again."}})
    assert again["holdWorkOrder"]["changed"] is False
    resumed = await sam(RESUME, {"i": {"workOrderId": gid("WorkOrder", order)}})
    assert resumed["resumeWorkOrder"]["changed"] is True
    assert resumed["resumeWorkOrder"]["workOrder"]["hold"] is None
    assert printing in await queue_ids(api, shop, "print")
    assert await events_of(shop, order, "TASK_REQUEUED") == [shop.departments["print"]]
    quiet = await sam(RESUME, {"i": {"workOrderId": gid("WorkOrder", order)}})
    assert quiet["resumeWorkOrder"]["changed"] is False
    history = [(h["action"], h["reason"]) for h in (await order_view(api, shop, order))["history"]]
    assert [h for h in history if h[0] in ("HELD", "RESUMED")] == [
        ("HELD", "Waiting for the proof."),
        ("RESUMED", None),
    ]


async def test_a_held_order_can_be_cancelled(api: Client, shop: Shop) -> None:
    sam = api.as_(shop.tokens["sam"])
    order = await shop.order(["print"])
    await sam(HOLD, {"i": {"workOrderId": gid("WorkOrder", order), "reason": "Proof."}})
    cancelled = await sam(CANCEL, {"i": {"workOrderId": gid("WorkOrder", order), "reason": "No."}})
    assert cancelled["cancelWorkOrder"]["workOrder"]["status"] == "CANCELLED"


STATUS = text(
    "SELECT t.status, (SELECT count(*) FROM task_transitions h WHERE h.task_id = t.id) AS moves "
    "FROM department_tasks t WHERE t.id = :t"
)


async def status_of(shop: Shop, task: int) -> tuple[str, int]:
    """A task's status and how many moves its history has."""
    async with shop.engine.connect() as conn:
        row = (await conn.execute(STATUS, {"t": task})).one()
        return row.status, row.moves


async def test_a_start_racing_a_hold_never_commits_after_it(api: Client, shop: Shop) -> None:
    """Whichever commits first: either the start won (the task is STARTED and the hold did
    not withdraw it) or the hold did (the start answers ON_HOLD, nothing written). Never a
    start after the hold, never a withdrawal of a started task. The rounds take turns at
    which request goes first."""
    pat, sam = api.as_(shop.tokens["pat"]), api.as_(shop.tokens["sam"])
    outcomes = set()
    for i in range(30):
        order = await shop.order(["print"])
        task = (await task_ids(shop.engine, order))["print"]
        start = pat(START, {"i": {"taskId": gid("DepartmentTask", task)}})
        hold = sam(HOLD, {"i": {"workOrderId": gid("WorkOrder", order), "reason": "Race"}})
        if i % 2:
            held, started = await asyncio.gather(hold, start)
        else:
            started, held = await asyncio.gather(start, hold)
        assert held["holdWorkOrder"]["changed"] is True
        withdrawn = await events_of(shop, order, "TASK_WITHDRAWN")
        if started["startTask"]["changed"]:
            assert await status_of(shop, task) == ("STARTED", 1)
            assert withdrawn == []
        else:
            assert [e["code"] for e in started["startTask"]["userErrors"]] == ["ON_HOLD"]
            assert await status_of(shop, task) == ("PENDING", 0)
            assert withdrawn == [shop.departments["print"]]
        outcomes.add(started["startTask"]["changed"])
    assert outcomes, "rounds ran"
