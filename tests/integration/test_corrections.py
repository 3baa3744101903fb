"""Correcting an open work order through the API: updateWorkOrder (what changed in the
history, a quiet success for the same values, versions that race), and
addWorkOrderDepartment (the new task waits by the routing, downstream tasks wait for it);
closed orders refuse both."""

import asyncio
from typing import Any

import pytest
from sqlalchemy import text

from db import customers
from db.cancellation import cancel_work_order
from db.engine import unit_of_work
from tests.support import Client, Shop, gid, table_snapshot, task_ids

UPDATE = """mutation Update($i: UpdateWorkOrderInput!) { updateWorkOrder(input: $i) {
  changed workOrder { version details needsTransport customer { name }
    history { action fromState toState actor { name } } }
  userErrors { code field message } } }"""
ADD = """mutation Add($i: AddWorkOrderDepartmentInput!) { addWorkOrderDepartment(input: $i) {
  workOrder { version tasks { department { code } inQueue waitingFor { code } }
    history { action department { code } } }
  userErrors { code field message } } }"""
FOLLOWS = """mutation($i: SetDepartmentFollowsInput!) {
  setDepartmentFollows(input: $i) { userErrors { code } } }"""
START = """mutation($i: StartTaskInput!) { startTask(input: $i) { changed } }"""


async def version_of(shop: Shop, order: int) -> int:
    async with shop.engine.connect() as conn:
        found = await conn.scalar(
            text("SELECT version FROM work_orders WHERE id = :o"), {"o": order}
        )
    return int(found)


async def update(api: Client, shop: Shop, order: int, who: str = "sam", **fields: Any) -> Any:
    variables = {"workOrderId": gid("WorkOrder", order), **fields}
    variables.setdefault("expectedVersion", await version_of(shop, order))
    return (await api.as_(shop.tokens[who])(UPDATE, {"i": variables}))["updateWorkOrder"]


async def test_a_correction_says_what_changed_and_the_same_again_changes_nothing(
    api: Client, shop: Shop
) -> None:
    async with unit_of_work(shop.engine) as conn:
        other = await customers.create_customer(conn, "Harbour Books", shop.users["sam"])
    order = await shop.order(["print"], details={"product": "Flyers", "quantity": 500})
    version = await version_of(shop, order)
    done = await update(
        api,
        shop,
        order,
        details={"product": "Flyers", "quantity": 1000, "paper": "matt"},
        needsTransport=True,
        customerId=gid("Customer", other.id),
    )
    assert done["userErrors"] == [] and done["changed"] is True
    wo = done["workOrder"]
    assert (wo["version"], wo["needsTransport"], wo["customer"]) == (
        version + 1,
        True,
        {"name": "Harbour Books"},
    )
    assert wo["details"] == {"product": "Flyers", "quantity": 1000, "paper": "matt"}
    assert wo["history"][-1] == {
        "action": "DETAILS_CHANGED",
        "fromState": "paper: (none); quantity: 500; transport: no; customer: ACME",
        "toState": "paper: matt; quantity: 1000; transport: yes; customer: Harbour Books",
        "actor": {"name": "Sam"},
    }
    events = await count_events(shop, order, "details")
    assert events == 1
    before = await table_snapshot(shop.engine)
    again = await update(api, shop, order, needsTransport=True)
    assert (again["changed"], again["userErrors"]) == (False, [])
    assert await table_snapshot(shop.engine) == before


async def count_events(shop: Shop, order: int, field: str) -> int:
    async with shop.engine.connect() as conn:
        found = await conn.scalar(
            text(
                "SELECT count(*) FROM events WHERE work_order_id = :o "
                "AND type = 'WORK_ORDER_CHANGED' AND payload->>'field' = :f"
            ),
            {"o": order, "f": field},
        )
    return int(found or 0)


async def test_of_two_corrections_made_on_one_version_one_wins(api: Client, shop: Shop) -> None:
    for _ in range(10):
        order = await shop.order(["print"], details={"quantity": 1})
        version = await version_of(shop, order)
        results = await asyncio.gather(
            *(update(api, shop, order, details={"quantity": n}, expectedVersion=version)
              for n in (2, 3))
        )  # fmt: skip
        codes = sorted([e["code"] for e in r["userErrors"]] or ["CHANGED"] for r in results)
        assert codes == [["CHANGED"], ["STALE_OBJECT"]]
        assert await version_of(shop, order) == version + 1
        assert await count_events(shop, order, "details") == 1


async def test_a_stale_or_bad_correction_is_refused_and_changes_nothing(
    api: Client, shop: Shop
) -> None:
    order = await shop.order(["print"])
    before = await table_snapshot(shop.engine)
    stale = await update(api, shop, order, details={"a": 1}, expectedVersion=0)
    assert [(e["code"], e["field"]) for e in stale["userErrors"]] == [
        ("STALE_OBJECT", "expectedVersion")
    ]
    unknown = await update(api, shop, order, customerId=gid("Customer", 999_999))
    assert [(e["code"], e["field"]) for e in unknown["userErrors"]] == [("NOT_FOUND", "customerId")]
    not_object = await update(api, shop, order, details=[1, 2])
    assert [e["field"] for e in not_object["userErrors"]] == ["details"]
    assert await table_snapshot(shop.engine) == before


@pytest.mark.parametrize("closing", ["cancelled", "completed"])
async def test_a_closed_order_takes_no_correction(api: Client, shop: Shop, closing: str) -> None:
    order = await shop.order([])
    if closing == "cancelled":
        async with unit_of_work(shop.engine) as conn:
            await cancel_work_order(conn, order, shop.users["sam"], "Withdrawn.")
    else:
        delivery = (await task_ids(shop.engine, order))["delivery"]
        dan = api.as_(shop.tokens["dan"])
        for verb in ("start", "finish"):
            mutation = START.replace("start", verb).replace("Start", verb.title())
            await dan(mutation, {"i": {"taskId": gid("DepartmentTask", delivery)}})
    before = await table_snapshot(shop.engine)
    refused = [
        await update(api, shop, order, needsRepair=True),
        (
            await api.as_(shop.tokens["sam"])(
                ADD, {"i": {"workOrderId": gid("WorkOrder", order), "departmentCode": "print"}}
            )
        )["addWorkOrderDepartment"],
    ]
    assert [[e["code"] for e in r["userErrors"]] for r in refused] == [["WORK_ORDER_CLOSED"]] * 2
    assert await table_snapshot(shop.engine) == before


async def add(api: Client, shop: Shop, order: int, code: str) -> Any:
    variables = {"workOrderId": gid("WorkOrder", order), "departmentCode": code}
    return (await api.as_(shop.tokens["sam"])(ADD, {"i": variables}))["addWorkOrderDepartment"]


def tasks_of(payload: Any) -> dict[str, tuple[bool, list[str]]]:
    return {
        t["department"]["code"]: (t["inQueue"], [w["code"] for w in t["waitingFor"]])
        for t in payload["workOrder"]["tasks"]
    }


@pytest.mark.parametrize("finishing_started", [False, True], ids=["pending", "started"])
async def test_an_added_task_waits_by_the_routing_and_holds_back_what_follows_it(
    api: Client, shop: Shop, finishing_started: bool
) -> None:
    ada = api.as_(shop.tokens["ada"])
    for code, follows in (("print", ["design"]), ("finishing", ["print"])):
        body = await ada(FOLLOWS, {"i": {"departmentCode": code, "followsCodes": follows}})
        assert body["setDepartmentFollows"]["userErrors"] == []
    order = await shop.order(["design", "finishing"])
    if finishing_started:
        finishing = (await task_ids(shop.engine, order))["finishing"]
        # Finishing waits for Design (Print is absent): Design done first.
        for verb in ("start", "finish"):
            mutation = START.replace("start", verb).replace("Start", verb.title())
            design = (await task_ids(shop.engine, order))["design"]
            await api.as_(shop.tokens["dee"])(
                mutation, {"i": {"taskId": gid("DepartmentTask", design)}}
            )
        started = await api.as_(shop.tokens["fin"])(
            START, {"i": {"taskId": gid("DepartmentTask", finishing)}}
        )
        assert started["startTask"]["changed"] is True
    done = await add(api, shop, order, "print")
    assert done["userErrors"] == []
    tasks = tasks_of(done)
    if finishing_started:
        # Design is done: Print joins its queue; Finishing, already started, keeps going.
        assert tasks["print"] == (True, [])
        assert tasks["finishing"] == (True, [])
    else:
        assert tasks["print"] == (False, ["design"])
        assert tasks["finishing"] == (False, ["print"])
    assert tasks["delivery"] == (False, ["print", "finishing"])
    assert {"action": "DEPARTMENT_ADDED", "department": {"code": "print"}} in done["workOrder"][
        "history"
    ]


@pytest.mark.parametrize(
    ("code", "error", "says"),
    [
        ("print", "DUPLICATE", "Print already has a task on this work order."),
        ("delivery", "INVALID_INPUT", "Delivery cannot be added"),
        ("sales", "INVALID_INPUT", "Sales cannot be added"),
        ("nope", "NOT_FOUND", "No department 'nope'."),
    ],
)
async def test_a_department_that_cannot_be_added_is_refused_and_changes_nothing(
    api: Client, shop: Shop, code: str, error: str, says: str
) -> None:
    order = await shop.order(["print"])
    before = await table_snapshot(shop.engine)
    done = await add(api, shop, order, code)
    [refusal] = done["userErrors"]
    assert (refusal["code"], refusal["field"], done["workOrder"]) == (
        error,
        "departmentCode",
        None,
    )
    assert says in refusal["message"]
    assert await table_snapshot(shop.engine) == before
