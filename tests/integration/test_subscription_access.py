"""Who may subscribe to `deliveryGateEvents` and `workOrderEvents` (docs/api.md,
Subscriptions), what the field rules null inside their payloads, and how deactivating
an admin ends the display tokens she made.

Every subscription here is sent with `after` set to a cursor taken before the events
under test were committed, so the events arrive by replay, in log order: what a caller
receives does not depend on when the server registered the subscription.
"""

import json
from dataclasses import dataclass
from typing import Any

import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop
from tests.support.subscriptions import PROTOCOLS, RawSocket, cursor_now, display_token, error_codes

GATE_EVENTS = """subscription($after: String) { deliveryGateEvents(after: $after) {
  cursor kind task { id status availableAt department { code } workOrder { orderNumber } } } }"""
ORDER_EVENTS = """subscription($order: ID!, $after: String) {
  workOrderEvents(workOrderId: $order, after: $after) {
    cursor kind task { id status department { code } } workOrder { id status } } }"""
QUEUE_EVENTS = """subscription($after: String) {
  queueEvents(department: "print", after: $after) { cursor kind task { id } } }"""

MOVE = "mutation($i: {input}!) {{ {name}(input: $i) {{ changed userErrors {{ code }} }} }}"
QUOTE = """mutation($i: UpdateWorkOrderQuoteInput!) { updateWorkOrderQuote(input: $i) {
  workOrder { id } userErrors { code } } }"""
CANCEL = """mutation($i: CancelWorkOrderInput!) { cancelWorkOrder(input: $i) {
  workOrder { status } userErrors { code } } }"""
POST_ENTRY = """mutation($i: PostLedgerEntryInput!) { postLedgerEntry(input: $i) {
  entry { id } userErrors { code } } }"""
DEACTIVATE = """mutation($i: DeactivateUserInput!) { deactivateUser(input: $i) {
  user { isActive } userErrors { code } } }"""
WALL_QUEUE = "query($d: String!) { queue(department: $d) { eventCursor } }"


def is_result(message: dict[str, Any]) -> bool:
    return message["type"] in ("next", "data")


async def refusal(socket: RawSocket) -> dict[str, Any]:
    """The message that ends a refused subscription, after checking that it carried no
    data and that the subscription is over (a `complete` follows an errored result)."""
    ended = await socket.next()
    assert ended["type"] in ("next", "data", "error"), ended
    if is_result(ended):
        assert ended["payload"].get("data") is None, ended
        done = await socket.next()
        assert done == {"id": "1", "type": "complete"}, done
    return ended


# -- the shop's moves --------------------------------------------------------------------------


async def move(api: Client, shop: Shop, who: str, name: str, task: int, **extra: str) -> None:
    input_type = name[0].upper() + name[1:] + "Input"
    body = await api.as_(shop.tokens[who])(
        MOVE.format(input=input_type, name=name),
        {"i": {"taskId": gid("DepartmentTask", task), **extra}},
    )
    assert body[name] == {"changed": True, "userErrors": []}, body


async def open_gate(api: Client, shop: Shop, order: int) -> dict[str, int]:
    """pat does the order's only gating task (print), which opens its delivery gate."""
    tasks = await task_ids(shop.engine, order)
    await move(api, shop, "pat", "startTask", tasks["print"])
    await move(api, shop, "pat", "finishTask", tasks["print"])
    return tasks


async def set_quote(api: Client, shop: Shop, order: int, amount: str) -> None:
    quote = {"amount": amount, "currency": "EUR"}
    body = await api.as_(shop.tokens["sam"])(
        QUOTE, {"i": {"workOrderId": gid("WorkOrder", order), "quote": quote}}
    )
    assert body["updateWorkOrderQuote"]["userErrors"] == []


async def token_of(api: Client, shop: Shop, caller: str) -> str:
    """A caller's token: a person's session, or a display token ada makes now."""
    if caller.startswith("display-"):
        return str((await display_token(api, shop, [caller.removeprefix("display-")]))["secret"])
    return shop.tokens[caller]


# -- 1. who may subscribe ----------------------------------------------------------------------


@dataclass(frozen=True)
class Receives:
    """Allowed: the events committed after the cursor arrive, exactly these, in order."""


@dataclass(frozen=True)
class Refused:
    code: str


RECEIVES = Receives()
FORBIDDEN = Refused("FORBIDDEN")

CALLERS = ("pat", "sam", "dan", "ada", "abe", "display-print", "display-delivery")
# Delivery gates: the delivery department, admins and delivery walls. A work order's
# events: every signed-in person, no wall display (displays read their queues only).
TABLE: dict[str, dict[str, Receives | Refused]] = {
    "deliveryGateEvents": {
        "pat": FORBIDDEN,
        "sam": FORBIDDEN,
        "dan": RECEIVES,
        "ada": RECEIVES,
        "abe": FORBIDDEN,
        "display-print": FORBIDDEN,
        "display-delivery": RECEIVES,
    },
    "workOrderEvents": {
        "pat": RECEIVES,
        "sam": RECEIVES,
        "dan": RECEIVES,
        "ada": RECEIVES,
        "abe": RECEIVES,
        "display-print": FORBIDDEN,
        "display-delivery": FORBIDDEN,
    },
}


def test_the_table_names_every_caller_and_can_fail_both_ways() -> None:
    # A subscription whose rows were all alike could not tell a loosened rule from a
    # tightened one.
    for subscription, rows in TABLE.items():
        assert tuple(rows) == CALLERS, subscription
        assert RECEIVES in rows.values() and FORBIDDEN in rows.values(), subscription
    # Per the docs: gates for delivery, admins and delivery walls; orders for persons.
    assert [c for c, o in TABLE["deliveryGateEvents"].items() if o == RECEIVES] == [
        "dan",
        "ada",
        "display-delivery",
    ]
    assert [c for c, o in TABLE["workOrderEvents"].items() if o == RECEIVES] == [
        c for c in CALLERS if not c.startswith("display-")
    ]


async def gate_scenario(api: Client, shop: Shop) -> tuple[str, dict[str, Any], list[Any]]:
    """Two orders' gates open, then the first one's closes again (ada reopens its print
    task), after a cursor; the task moves around them are no gate events."""
    first, second = await shop.order(["print"]), await shop.order(["print"])
    after = await cursor_now(api, shop.tokens["ada"])
    tasks = await open_gate(api, shop, first)
    other = await open_gate(api, shop, second)
    await move(api, shop, "ada", "reopenTask", tasks["print"], reason="Misprint.")

    def gate(kind: str, task: int, number: str, open_: bool) -> tuple[Any, ...]:
        return (kind, gid("DepartmentTask", task), "PENDING", open_, "delivery", number)

    expected = [
        gate("DELIVERY_GATE_OPENED", tasks["delivery"], "WO-000001", True),
        gate("DELIVERY_GATE_OPENED", other["delivery"], "WO-000002", True),
        gate("DELIVERY_GATE_CLOSED", tasks["delivery"], "WO-000001", False),
    ]
    return GATE_EVENTS, {"after": after}, expected


def gate_seen(data: dict[str, Any]) -> tuple[Any, ...]:
    event = data["deliveryGateEvents"]
    task = event["task"]
    return (
        event["kind"],
        task["id"],
        task["status"],
        task["availableAt"] is not None,
        task["department"]["code"],
        task["workOrder"]["orderNumber"],
    )


async def order_scenario(api: Client, shop: Shop) -> tuple[str, dict[str, Any], list[Any]]:
    """sam quotes the order, quotes another one (not this subscription's), then cancels
    the first: its change, its own change and the withdrawal of its pending tasks."""
    order, elsewhere = await shop.order(["print"]), await shop.order(["print"])
    tasks = await task_ids(shop.engine, order)
    after = await cursor_now(api, shop.tokens["ada"])
    await set_quote(api, shop, order, "120.00")
    await set_quote(api, shop, elsewhere, "80.00")
    cancelled = await api.as_(shop.tokens["sam"])(
        CANCEL, {"i": {"workOrderId": gid("WorkOrder", order), "reason": "Customer went away"}}
    )
    assert cancelled["cancelWorkOrder"] == {"workOrder": {"status": "CANCELLED"}, "userErrors": []}
    # The order is read when each event is delivered: CANCELLED in every one.
    wo = (gid("WorkOrder", order), "CANCELLED")

    def withdrawn(code: str) -> tuple[Any, ...]:
        return ("TASK_WITHDRAWN", (gid("DepartmentTask", tasks[code]), "PENDING", code), wo)

    expected = [
        ("WORK_ORDER_CHANGED", None, wo),  # the quote
        withdrawn("print"),  # the cancel: its pending tasks, then the order itself
        withdrawn("delivery"),
        ("WORK_ORDER_CHANGED", None, wo),
    ]
    return ORDER_EVENTS, {"order": gid("WorkOrder", order), "after": after}, expected


def order_seen(data: dict[str, Any]) -> tuple[Any, ...]:
    event = data["workOrderEvents"]
    task = event["task"]
    seen_task = None if task is None else (task["id"], task["status"], task["department"]["code"])
    return (event["kind"], seen_task, (event["workOrder"]["id"], event["workOrder"]["status"]))


SCENARIOS = {
    "deliveryGateEvents": (gate_scenario, gate_seen),
    "workOrderEvents": (order_scenario, order_seen),
}

ROWS = [
    pytest.param(subscription, caller, protocol, id=f"{subscription}-{caller}-{protocol}")
    for subscription, rows in TABLE.items()
    for caller in rows
    for protocol in PROTOCOLS
]


@pytest.mark.parametrize(("subscription", "caller", "protocol"), ROWS)
async def test_who_may_subscribe(
    api: Client, server: str, shop: Shop, subscription: str, caller: str, protocol: str
) -> None:
    outcome = TABLE[subscription][caller]
    token = await token_of(api, shop, caller)
    make, seen = SCENARIOS[subscription]
    query, variables, expected = await make(api, shop)
    socket = await RawSocket.open(server, token, protocol)
    try:
        await socket.subscribe(query, variables)
        if isinstance(outcome, Refused):
            ended = await refusal(socket)
            assert error_codes(ended) == [outcome.code], ended
            payload = ended["payload"]
            errors = payload if isinstance(payload, list) else [payload]
            assert [e.get("path") for e in errors] == [[subscription]], ended
            return
        results = await socket.results(len(expected))
        assert [r.get("errors") for r in results] == [None] * len(expected), results
        assert [seen(r["data"]) for r in results] == expected
    finally:
        await socket.ws.close()


async def test_an_unknown_department_is_not_found(server: str, shop: Shop) -> None:
    """Its own code (the wall display says so in words), not a malformed request's."""
    socket = await RawSocket.open(server, shop.tokens["ada"], PROTOCOLS[0])
    try:
        query = QUEUE_EVENTS.replace('"print"', '"bindery"')
        await socket.subscribe(query, {"after": None})
        ended = await refusal(socket)
    finally:
        await socket.ws.close()
    assert error_codes(ended) == ["NOT_FOUND"], ended
    assert "No department has the code 'bindery'." in json.dumps(ended)


# -- 2. field rules inside a WorkOrderEvent ----------------------------------------------------

QUOTE_SELECTION = "workOrder { quote { amount currency } }"
BALANCE_SELECTION = "workOrder { customer { name balance { amount currency } } }"
# The schema's field rules: quote for Sales, Accounts and admins; balance for Accounts
# and admins.
READS_QUOTE = {"pat": False, "dan": False, "sam": True, "abe": True, "ada": True}
READS_BALANCE = {"pat": False, "dan": False, "sam": False, "abe": True, "ada": True}


@pytest.mark.parametrize("caller", list(READS_QUOTE))
@pytest.mark.parametrize("field", ["quote", "balance"])
async def test_money_fields_in_work_order_events(
    api: Client, server: str, shop: Shop, caller: str, field: str
) -> None:
    order = await shop.order(["print"])
    customer = gid("Customer", shop.customer_id)
    charge = {"customerId": customer, "kind": "CHARGE", "amount": "45.50", "currency": "EUR"}
    posted = await api.as_(shop.tokens["abe"])(
        POST_ENTRY, {"i": {**charge, "idempotencyKey": "k1"}}
    )
    assert posted["postLedgerEntry"]["userErrors"] == []
    after = await cursor_now(api, shop.tokens["ada"])
    # Two events, each read after both quotes committed: 150.00 in both.
    await set_quote(api, shop, order, "120.00")
    await set_quote(api, shop, order, "150.00")
    selection = QUOTE_SELECTION if field == "quote" else BALANCE_SELECTION
    query = f"""subscription($order: ID!, $after: String) {{
      workOrderEvents(workOrderId: $order, after: $after) {{ kind {selection} }} }}"""
    socket = await RawSocket.open(server, shop.tokens[caller], PROTOCOLS[0])
    try:
        await socket.subscribe(query, {"order": gid("WorkOrder", order), "after": after})
        results = await socket.results(2)
    finally:
        await socket.ws.close()
    path = ["workOrderEvents", "workOrder", "quote"]
    if field == "balance":
        path = ["workOrderEvents", "workOrder", "customer", "balance"]
    allowed = (READS_QUOTE if field == "quote" else READS_BALANCE)[caller]
    for result in results:
        errors = [(e["extensions"]["code"], e["path"]) for e in result.get("errors") or []]
        if not allowed:
            # One FORBIDDEN per event, naming the field.
            assert errors == [("FORBIDDEN", path)], result
            if field == "quote":
                # quote is nullable: only it is nulled, the event still arrives.
                assert result["data"]["workOrderEvents"] == {
                    "kind": "WORK_ORDER_CHANGED",
                    "workOrder": {"quote": None},
                }
            else:
                # balance is non-null, and so is every parent up to the event: the
                # event's data is nulled whole, and nothing of the customer leaks.
                assert result["data"] is None, result
            continue
        assert errors == [], result
        event = result["data"]["workOrderEvents"]
        assert event["kind"] == "WORK_ORDER_CHANGED"
        if field == "quote":
            assert event["workOrder"] == {"quote": {"amount": "150.00", "currency": "EUR"}}
        else:
            assert event["workOrder"]["customer"] == {
                "name": "ACME",
                "balance": [{"amount": "45.50", "currency": "EUR"}],
            }


# -- 3. deactivating the admin who made display tokens -----------------------------------------


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_deactivating_an_admin_stops_the_display_tokens_she_made(
    api: Client, server: str, shop: Shop, protocol: str
) -> None:
    await shop.add_user("ari", [], is_admin=True)
    print_wall = await display_token(api, shop, ["print"])
    delivery_wall = await display_token(api, shop, ["delivery"])
    # A wall another admin made: the control that must keep working.
    ari_wall = await display_token(api, shop, ["print"], by="ari")
    first, later = await shop.order(["print"]), await shop.order(["print"])
    after = await cursor_now(api, shop.tokens["ada"])
    await open_gate(api, shop, first)

    # Each socket is live once it has every event committed so far (replayed after
    # `after`): print's start and finish, the gate opening.
    first_print = gid("DepartmentTask", (await task_ids(shop.engine, first))["print"])
    later_print = gid("DepartmentTask", (await task_ids(shop.engine, later))["print"])
    sockets = {
        "print": (await RawSocket.open(server, print_wall["secret"], protocol), QUEUE_EVENTS, 2),
        "delivery": (
            await RawSocket.open(server, delivery_wall["secret"], protocol),
            GATE_EVENTS,
            1,
        ),
        "ari": (await RawSocket.open(server, ari_wall["secret"], protocol), QUEUE_EVENTS, 2),
    }
    try:
        for socket, query, count in sockets.values():
            await socket.subscribe(query, {"after": after})
            results = await socket.results(count)
            assert [r.get("errors") for r in results] == [None] * count, results
            if query == QUEUE_EVENTS:
                seen = [r["data"]["queueEvents"]["task"]["id"] for r in results]
                assert seen == [first_print] * 2, results
            else:
                assert results[0]["data"]["deliveryGateEvents"]["kind"] == "DELIVERY_GATE_OPENED"
        done = await api.as_(shop.tokens["ari"])(
            DEACTIVATE, {"i": {"userId": gid("User", shop.users["ada"])}}
        )
        assert done["deactivateUser"] == {"user": {"isActive": False}, "userErrors": []}
        await open_gate(api, shop, later)

        for name in ("print", "delivery"):
            socket = sockets[name][0]
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    # Nothing committed after the deactivation reaches her walls (an
                    # error ending the subscription may come before the close).
                    message = await socket.next()
                    assert not is_result(message) or error_codes(message), message
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403, name
        # ari's wall goes on: it receives the later order's start and finish.
        results = await sockets["ari"][0].results(2)
        assert [r.get("errors") for r in results] == [None, None], results
        assert [r["data"]["queueEvents"]["task"]["id"] for r in results] == [later_print] * 2
    finally:
        for socket, _, _ in sockets.values():
            await socket.ws.close()

    # Her walls' new requests are refused as unauthenticated, ari's still answered.
    for wall, code in ((print_wall, "print"), (delivery_wall, "delivery")):
        body = await api.as_(wall["secret"]).raw(WALL_QUEUE, {"d": code})
        assert [e["extensions"]["code"] for e in body["errors"]] == ["UNAUTHENTICATED"], body
        assert body["data"] is None
    assert (await api.as_(ari_wall["secret"])(WALL_QUEUE, {"d": "print"}))["queue"]["eventCursor"]
    # And a new socket of hers is refused at connection_init.
    async with websockets.connect(
        server.replace("http://", "ws://"), subprotocols=[protocol]
    ) as ws:
        init = {
            "type": "connection_init",
            "payload": {"authorization": f"Bearer {print_wall['secret']}"},
        }
        await ws.send(json.dumps(init))
        try:
            reply = json.loads(await ws.recv())
        except ConnectionClosed as refused:
            assert refused.rcvd is not None and refused.rcvd.code == 4403
        else:
            assert reply["type"] == "connection_error", reply
