"""Correcting an open work order through the API: updateWorkOrder (what changed in the
history, a quiet success for the same values, versions that race),
addWorkOrderDepartment (the new task waits by the routing, downstream tasks wait for it)
and removeWorkOrderDepartment (a pending task REMOVED with its reason, what waited for it
freed; started or completed ones refused); closed orders refuse them all."""

import asyncio
from typing import Any

import pytest
from sqlalchemy import text

from db import customers
from db.cancellation import cancel_work_order
from db.engine import unit_of_work
from tests.support.client import Client, gid
from tests.support.database import table_snapshot, task_ids
from tests.support.orders import update, version_of
from tests.support.shop import Shop

ADD = """mutation Add($i: AddWorkOrderDepartmentInput!) { addWorkOrderDepartment(input: $i) {
  workOrder { version tasks { department { code } inQueue waitingFor { code } }
    history { action department { code } } }
  userErrors { code field message } } }"""
REMOVE = """mutation Remove($i: RemoveWorkOrderDepartmentInput!) {
  removeWorkOrderDepartment(input: $i) {
    workOrder { status progress { done total }
      tasks { department { code } status inQueue waitingFor { code }
        history { action fromStatus toStatus reason } }
      history { action department { code } reason } }
    userErrors { code field message } } }"""
FOLLOWS = """mutation($i: SetDepartmentFollowsInput!) {
  setDepartmentFollows(input: $i) { userErrors { code } } }"""
START = """mutation($i: StartTaskInput!) { startTask(input: $i) { changed } }"""


async def test_a_correction_says_what_changed_and_the_same_again_changes_nothing(
    api: Client, shop: Shop
) -> None:
    async with unit_of_work(shop.engine) as conn:
        other = (await customers.create_customer(conn, "Harbour Books", shop.users["sam"])).customer
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
        order = await shop.order(["print"], details={"product": "Cards", "quantity": 1})
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
        ("delivery", "INVALID_INPUT", "Delivery is not chosen per order"),
        ("sales", "INVALID_INPUT", "Sales is not chosen per order"),
        ("nope", "NOT_FOUND", "No department has the code 'nope'."),
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


async def remove(api: Client, shop: Shop, order: int, code: str, who: str = "sam") -> Any:
    variables = {
        "workOrderId": gid("WorkOrder", order),
        "departmentCode": code,
        "reason": "Customer supplies the artwork",
    }
    body = await api.as_(shop.tokens[who]).raw(REMOVE, {"i": variables})
    return body


async def route_chain(api: Client, shop: Shop) -> None:
    ada = api.as_(shop.tokens["ada"])
    for code, follows in (("print", ["design"]), ("finishing", ["print"])):
        body = await ada(FOLLOWS, {"i": {"departmentCode": code, "followsCodes": follows}})
        assert body["setDepartmentFollows"]["userErrors"] == []


async def test_a_removed_task_is_kept_with_its_reason_and_what_waited_for_it_moves_on(
    api: Client, shop: Shop
) -> None:
    await route_chain(api, shop)
    order = await shop.order(["design", "print", "finishing"])
    done = (await remove(api, shop, order, "design"))["data"]["removeWorkOrderDepartment"]
    assert done["userErrors"] == []
    wo = done["workOrder"]
    tasks = {t["department"]["code"]: t for t in wo["tasks"]}
    assert (tasks["design"]["status"], tasks["design"]["inQueue"]) == ("REMOVED", False)
    assert tasks["design"]["history"] == [
        {"action": "REMOVE", "fromStatus": "PENDING", "toStatus": "REMOVED",
         "reason": "Customer supplies the artwork"}
    ]  # fmt: skip
    # Print waited for Design: it joins its queue now.
    assert (tasks["print"]["inQueue"], tasks["print"]["waitingFor"]) == (True, [])
    assert {"action": "DEPARTMENT_REMOVED", "department": {"code": "design"},
            "reason": "Customer supplies the artwork"} in wo["history"]  # fmt: skip
    assert wo["progress"] == {"done": 0, "total": 3}
    # The department can be added again: a new task, the removed one kept.
    again = await add(api, shop, order, "design")
    assert again["userErrors"] == []
    codes = sorted(t["department"]["code"] for t in again["workOrder"]["tasks"])
    assert codes == ["delivery", "design", "design", "finishing", "print"]


async def test_removing_the_last_unfinished_task_frees_delivery(api: Client, shop: Shop) -> None:
    order = await shop.order(["print", "finishing"])
    tasks = await task_ids(shop.engine, order)
    for verb in ("start", "finish"):
        mutation = START.replace("start", verb).replace("Start", verb.title())
        await api.as_(shop.tokens["pat"])(
            mutation, {"i": {"taskId": gid("DepartmentTask", tasks["print"])}}
        )
    done = (await remove(api, shop, order, "finishing"))["data"]["removeWorkOrderDepartment"]
    delivery = next(t for t in done["workOrder"]["tasks"] if t["department"]["code"] == "delivery")
    assert (delivery["inQueue"], delivery["waitingFor"]) == (True, [])


@pytest.mark.parametrize(
    ("code", "started", "error"),
    [
        ("print", True, "INVALID_TRANSITION"),
        ("design", False, "NOT_FOUND"),
        ("delivery", False, "INVALID_INPUT"),
    ],
)
async def test_a_task_that_cannot_be_removed_is_refused_and_changes_nothing(
    api: Client, shop: Shop, code: str, started: bool, error: str
) -> None:
    order = await shop.order(["print"])
    if started:
        task = (await task_ids(shop.engine, order))["print"]
        await api.as_(shop.tokens["pat"])(START, {"i": {"taskId": gid("DepartmentTask", task)}})
    before = await table_snapshot(shop.engine)
    done = (await remove(api, shop, order, code))["data"]["removeWorkOrderDepartment"]
    [refusal] = done["userErrors"]
    assert (refusal["code"], done["workOrder"]) == (error, None)
    assert await table_snapshot(shop.engine) == before


async def test_only_sales_and_admins_remove(api: Client, shop: Shop) -> None:
    order = await shop.order(["print"])
    body = await remove(api, shop, order, "print", who="pat")
    assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    body = await remove(api, shop, order, "print", who="ada")
    assert body["data"]["removeWorkOrderDepartment"]["userErrors"] == []


async def test_remove_is_offered_on_exactly_the_tasks_it_takes(api: Client, shop: Shop) -> None:
    """allowedActions agrees with the writer: Sales and admins may remove a pending
    production task, not the delivery task, nor a started one; workers none."""
    order = await shop.order(["print", "finishing"])
    tasks = await task_ids(shop.engine, order)
    await api.as_(shop.tokens["fin"])(
        START, {"i": {"taskId": gid("DepartmentTask", tasks["finishing"])}}
    )
    query = """query($id: ID!) { workOrder(id: $id) { tasks {
      department { code } allowedActions } } }"""
    for who, removable in (("sam", ["print"]), ("ada", ["print"]), ("pat", [])):
        body = await api.as_(shop.tokens[who])(query, {"id": gid("WorkOrder", order)})
        offered = [
            t["department"]["code"]
            for t in body["workOrder"]["tasks"]
            if "REMOVE" in t["allowedActions"]
        ]
        assert offered == removable, who
    outcomes = {}
    for code in ("finishing", "delivery", "print"):
        done = (await remove(api, shop, order, code))["data"]["removeWorkOrderDepartment"]
        outcomes[code] = [e["code"] for e in done["userErrors"]]
    assert outcomes == {
        "finishing": ["INVALID_TRANSITION"],
        "delivery": ["INVALID_INPUT"],
        "print": [],
    }
