"""The server tells the screens what the viewer may do, by the rules its writers refuse
with: a work order's allowedActions agree with what cancelWorkOrder,
updateWorkOrderQuote, updateWorkOrder and addWorkOrderDepartment then do; a task's
inQueue with what queue() lists; `access` names the rules of graph/permissions.py the
person passes; waitingFor is the gates' own rule. (A task's allowedActions are checked
against every move in test_transition_matrix.py.)"""

from decimal import Decimal
from typing import Any

import pytest

from db.cancellation import cancel_work_order
from db.engine import unit_of_work
from db.tasks import Actor, transition_task
from domain.enums import TaskAction
from domain.money import Money, parse_money
from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop

ORDER = "query($id: ID!) { workOrder(id: $id) { status version allowedActions } }"
CANCEL = """mutation($i: CancelWorkOrderInput!) { cancelWorkOrder(input: $i) {
  userErrors { code } } }"""
QUOTE = """mutation($i: UpdateWorkOrderQuoteInput!) { updateWorkOrderQuote(input: $i) {
  userErrors { code } } }"""
UPDATE = """mutation($i: UpdateWorkOrderInput!) { updateWorkOrder(input: $i) {
  userErrors { code } } }"""
ADD = """mutation($i: AddWorkOrderDepartmentInput!) { addWorkOrderDepartment(input: $i) {
  userErrors { code } } }"""
LINK = """mutation($i: CreateCustomerLinkInput!) { createCustomerLink(input: $i) {
  userErrors { code } } }"""


async def order_in(shop: Shop, status: str, quote: Money | None = None) -> int:
    order = await shop.order(["print"], quote=quote)
    if status == "COMPLETED":
        await shop.complete(order)
    if status == "CANCELLED":
        async with unit_of_work(shop.engine) as conn:
            await cancel_work_order(conn, order, shop.users["sam"], "Withdrawn.")
    return order


async def asked(api: Client, shop: Shop, who: str, command: str, order: int, version: int) -> bool:
    """Whether `who` asking `command` of `order` was done (no error of any kind)."""
    target = {"workOrderId": gid("WorkOrder", order)}
    query, field, variables = {
        "CANCEL": (CANCEL, "cancelWorkOrder", {"reason": "Changed plans."}),
        "EDIT_QUOTE": (
            QUOTE,
            "updateWorkOrderQuote",
            {"quote": {"amount": "99", "currency": "EUR"}},
        ),
        "EDIT_DETAILS": (
            UPDATE,
            "updateWorkOrder",
            {"expectedVersion": version, "needsRepair": True},
        ),
        "CHANGE_DEPARTMENTS": (ADD, "addWorkOrderDepartment", {"departmentCode": "design"}),
        "LINK_CUSTOMER": (LINK, "createCustomerLink", {}),
    }[command]
    body = await api.as_(shop.tokens[who]).raw(query, {"i": {**target, **variables}})
    return not body.get("errors") and not body["data"][field]["userErrors"]


@pytest.mark.parametrize("status", ["ACTIVE", "COMPLETED", "CANCELLED"])
@pytest.mark.parametrize("who", ["sam", "ada", "abe", "pat"])
@pytest.mark.parametrize(
    "command", ["CANCEL", "EDIT_QUOTE", "EDIT_DETAILS", "CHANGE_DEPARTMENTS", "LINK_CUSTOMER"]
)
async def test_a_work_orders_allowed_actions_are_what_its_writers_do(
    api: Client, shop: Shop, status: str, who: str, command: str
) -> None:
    order = await order_in(shop, status)
    seen = await api.as_(shop.tokens[who])(ORDER, {"id": gid("WorkOrder", order)})
    assert seen["workOrder"]["status"] == status
    offered = command in seen["workOrder"]["allowedActions"]
    version = seen["workOrder"]["version"]
    assert offered == await asked(api, shop, who, command, order, version)


QUEUE = """query($d: String!) { queue(department: $d, first: 100) { edges { node { id } } } }"""
TASK = """query($id: ID!) { node(id: $id) { ... on DepartmentTask { inQueue
  department { code } waitingFor { name } } } }"""


CHARGE = """mutation($i: ChargeWorkOrderQuoteInput!) { chargeWorkOrderQuote(input: $i) {
  userErrors { code } } }"""


@pytest.mark.parametrize("quoted", [True, False])
@pytest.mark.parametrize("status", ["ACTIVE", "COMPLETED", "CANCELLED"])
@pytest.mark.parametrize("who", ["sam", "ada", "abe"])
async def test_charge_quote_is_offered_when_charge_work_order_quote_does_it(
    api: Client, shop: Shop, quoted: bool, status: str, who: str
) -> None:
    order = await order_in(
        shop, status, parse_money(Decimal("80.00"), "EUR", "quote") if quoted else None
    )
    seen = await api.as_(shop.tokens[who])(ORDER, {"id": gid("WorkOrder", order)})
    offered = "CHARGE_QUOTE" in seen["workOrder"]["allowedActions"]
    body = await api.as_(shop.tokens[who]).raw(
        CHARGE, {"i": {"workOrderId": gid("WorkOrder", order)}}
    )
    done = not body.get("errors") and not body["data"]["chargeWorkOrderQuote"]["userErrors"]
    assert offered == done
    # Accounts and admins, on a quoted order that is not cancelled.
    assert offered == (who in ("abe", "ada") and quoted and status != "CANCELLED")


POST = """mutation($i: PostLedgerEntryInput!) { postLedgerEntry(input: $i) {
  userErrors { code } } }"""


@pytest.mark.parametrize(
    ("entries", "offered"),
    [
        ([], True),
        ([("CHARGE", "30.00")], True),
        ([("CHARGE", "30.00"), ("CHARGE", "50.00")], False),
        ([("CHARGE", "90.00"), ("CREDIT", "10.00")], False),
        ([("CHARGE", "90.00"), ("CREDIT", "20.00")], True),
    ],
)
async def test_charge_quote_is_not_offered_once_the_charges_come_to_the_quote(
    api: Client, shop: Shop, entries: list[tuple[str, str]], offered: bool
) -> None:
    order = await order_in(shop, "ACTIVE", parse_money(Decimal("80.00"), "EUR", "quote"))
    for n, (kind, amount) in enumerate(entries):
        entry = {"customerId": gid("Customer", shop.customer_id), "kind": kind, "amount": amount}
        await api.as_(shop.tokens["abe"])(
            POST,
            {"i": {**entry, "workOrderId": gid("WorkOrder", order), "idempotencyKey": f"e{n}"}},
        )
    seen = await api.as_(shop.tokens["abe"])(ORDER, {"id": gid("WorkOrder", order)})
    assert ("CHARGE_QUOTE" in seen["workOrder"]["allowedActions"]) == offered
    body = await api.as_(shop.tokens["abe"])(
        CHARGE, {"i": {"workOrderId": gid("WorkOrder", order)}}
    )
    errors = body["chargeWorkOrderQuote"]["userErrors"]
    # Refused exactly when not offered: the order's charges already come to 80.00.
    assert errors == ([] if offered else [{"code": "INVALID_INPUT"}])


CUSTOMER = "query($id: ID!) { customer(id: $id) { name allowedActions } }"
UPDATE_CUSTOMER = """mutation($i: UpdateCustomerInput!) { updateCustomer(input: $i) {
  customer { name } userErrors { code } } }"""


@pytest.mark.parametrize("who", ["sam", "ada", "abe", "pat"])
async def test_a_customers_allowed_actions_are_what_update_customer_does(
    api: Client, shop: Shop, who: str
) -> None:
    customer = gid("Customer", shop.customer_id)
    seen = await api.as_(shop.tokens[who])(CUSTOMER, {"id": customer})
    offered = "EDIT" in seen["customer"]["allowedActions"]
    body = await api.as_(shop.tokens[who]).raw(
        UPDATE_CUSTOMER, {"i": {"customerId": customer, "name": f"Renamed by {who}"}}
    )
    done = not body.get("errors") and not body["data"]["updateCustomer"]["userErrors"]
    assert offered == done
    # Sales and admins may; Accounts and the floor may not: both answers occur.
    assert offered == (who in ("sam", "ada"))


async def test_in_queue_is_what_the_queue_lists(api: Client, shop: Shop) -> None:
    waiting = await shop.order(["print", "finishing"])
    started = await shop.order(["print"])
    cancelled = await shop.order(["print"])
    tasks = {
        "waiting": await task_ids(shop.engine, waiting),
        "started": await task_ids(shop.engine, started),
        "cancelled": await task_ids(shop.engine, cancelled),
    }
    pat = Actor(shop.users["pat"], is_admin=False)
    async with unit_of_work(shop.engine) as conn:
        await transition_task(conn, tasks["started"]["print"], TaskAction.START, pat)
        await transition_task(conn, tasks["started"]["print"], TaskAction.FINISH, pat)
        fin = Actor(shop.users["fin"], is_admin=False)
        await transition_task(conn, tasks["waiting"]["finishing"], TaskAction.START, fin)
        await cancel_work_order(conn, cancelled, shop.users["sam"], "Withdrawn.")
    listed: set[str] = set()
    for code in ("print", "finishing", "delivery"):
        body = await api.as_(shop.tokens["ada"])(QUEUE, {"d": code})
        listed |= {e["node"]["id"] for e in body["queue"]["edges"]}
    answers: dict[str, bool] = {}
    for order in tasks.values():
        for task in order.values():
            node = gid("DepartmentTask", task)
            answers[node] = (await api.as_(shop.tokens["ada"])(TASK, {"id": node}))["node"][
                "inQueue"
            ]
    assert {node for node, inside in answers.items() if inside} == listed
    # Both answers occur: waiting, started and delivery-after-print tasks are in; the
    # finished, the gated and the cancelled are out.
    assert set(answers.values()) == {True, False}


async def test_waiting_for_is_the_delivery_gates_rule(api: Client, shop: Shop) -> None:
    order = await shop.order(["design", "print", "finishing"])
    tasks = await task_ids(shop.engine, order)

    async def waiting_for(code: str) -> list[str]:
        node = await api.as_(shop.tokens["ada"])(TASK, {"id": gid("DepartmentTask", tasks[code])})
        return [d["name"] for d in node["node"]["waitingFor"]]

    # Design does not gate delivery; print and finishing do (in route order: by name here).
    assert await waiting_for("delivery") == ["Finishing", "Print"]
    assert await waiting_for("print") == []
    pat = Actor(shop.users["pat"], is_admin=False)
    async with unit_of_work(shop.engine) as conn:
        await transition_task(conn, tasks["print"], TaskAction.START, pat)
        await transition_task(conn, tasks["print"], TaskAction.FINISH, pat)
    assert await waiting_for("delivery") == ["Finishing"]
    # Cancelled: its gate will never open, so it waits for nothing.
    async with unit_of_work(shop.engine) as conn:
        await cancel_work_order(conn, order, shop.users["sam"], "Withdrawn.")
    assert await waiting_for("delivery") == []


ACCESS = "{ me { access } }"


@pytest.mark.parametrize(
    ("who", "rules"),
    [
        ("sam", ["STAFF", "SALES", "SEES_QUOTES"]),
        ("abe", ["STAFF", "SEES_QUOTES", "READS_LEDGER"]),
        ("pat", ["STAFF"]),
        ("ada", ["STAFF", "ADMINS", "SALES", "SEES_QUOTES", "READS_LEDGER"]),
    ],
)
async def test_access_names_the_rules_a_person_passes(
    api: Client, shop: Shop, who: str, rules: list[str]
) -> None:
    assert (await api.as_(shop.tokens[who])(ACCESS))["me"]["access"] == rules


async def test_access_is_for_the_person_alone(api: Client, shop: Shop) -> None:
    query = "query($id: ID!) { node(id: $id) { ... on User { access } } }"
    body: dict[str, Any] = await api.as_(shop.tokens["ada"]).raw(
        query, {"id": gid("User", shop.users["sam"])}
    )
    assert [e["extensions"]["code"] for e in body["errors"]] == ["FORBIDDEN"]


async def test_departments_say_whether_they_have_a_queue(api: Client, shop: Shop) -> None:
    body = await api.as_(shop.tokens["pat"])("{ departments { code hasQueue } }")
    assert {d["code"]: d["hasQueue"] for d in body["departments"]} == {
        "sales": False,
        "accounts": False,
        "design": True,
        "print": True,
        "finishing": True,
        "delivery": True,
    }


RANKED = """query($d: String!, $after: String) { queue(department: $d, first: 3, after: $after) {
  pageInfo { hasNextPage endCursor } edges { node { id status queueLane queueRank } } } }"""


async def test_a_queues_lanes_and_order_are_its_tasks_ranks(api: Client, shop: Shop) -> None:
    """Sorting a queue's tasks by queueRank gives the queue's own order, page after page,
    and queueLane is the lane each is listed in (the screens group and sort by these)."""
    orders = [await shop.order(["print"]) for _ in range(5)]
    pat = Actor(shop.users["pat"], is_admin=False)
    # Started out of their order of availability, one transaction each (a transaction's
    # moves share its moment): the second lane's order is by start.
    for order in (orders[3], orders[1]):
        task = (await task_ids(shop.engine, order))["print"]
        async with unit_of_work(shop.engine) as conn:
            await transition_task(conn, task, TaskAction.START, pat)
    listed: list[dict[str, Any]] = []
    after = None
    while True:
        page = (await api.as_(shop.tokens["ada"])(RANKED, {"d": "print", "after": after}))["queue"]
        listed += [e["node"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert len(listed) == 5
    assert [t["queueRank"] for t in listed] == sorted(t["queueRank"] for t in listed)
    lanes = {"PENDING": "WAITING", "STARTED": "IN_PROGRESS"}
    assert [t["queueLane"] for t in listed] == [lanes[t["status"]] for t in listed]
    started = [t["id"] for t in listed if t["status"] == "STARTED"]
    ids = [gid("DepartmentTask", (await task_ids(shop.engine, o))["print"]) for o in orders]
    assert started == [ids[3], ids[1]]


KINDS = "{ departmentKinds { kind available canGateDelivery gatesDeliveryByDefault } }"
CHOSEN = "{ departments { code kind chosenPerOrder } }"


async def test_department_kinds_are_what_create_department_accepts(api: Client, shop: Shop) -> None:
    offered = {c["kind"]: c for c in (await api.as_(shop.tokens["ada"])(KINDS))["departmentKinds"]}
    create = """mutation($i: CreateDepartmentInput!) { createDepartment(input: $i) {
      department { kind gatesDelivery } userErrors { code field } } }"""
    for kind, choice in offered.items():
        for gates in (True, None):
            code = f"k-{kind.lower()}-{'g' if gates else 'd'}"
            body = (
                await api.as_(shop.tokens["ada"])(
                    create,
                    {"i": {"code": code, "name": code, "kind": kind, "gatesDelivery": gates}},
                )
            )["createDepartment"]
            made = body["department"] is not None
            assert made == (choice["available"] and (gates is None or choice["canGateDelivery"]))
            if made and gates is None:
                assert body["department"]["gatesDelivery"] == choice["gatesDeliveryByDefault"]
    # The shop has its delivery department: a second one is not offered, and refused.
    assert offered["DELIVERY"]["available"] is False
    assert {k for k, c in offered.items() if c["canGateDelivery"]} == {"PRODUCTION"}
    chosen = (await api.as_(shop.tokens["ada"])(CHOSEN))["departments"]
    assert {d["kind"] for d in chosen if d["chosenPerOrder"]} == {"PRODUCTION"}
