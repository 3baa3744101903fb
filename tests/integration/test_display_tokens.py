"""Display tokens read their departments' queues and nothing else; revoking one closes
its live subscriptions. API tokens act as their creator."""

import asyncio
import contextlib
import json
from typing import Any

import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from tests.support.client import Client, gid
from tests.support.shop import Shop
from tests.support.subscriptions import CREATE_DISPLAY, display_token

REVOKE = """mutation($i: RevokeTokenInput!) { revokeToken(input: $i) {
  token { id revokedAt } userErrors { code field } } }"""
QUEUE = """query($d: String!) { queue(department: $d) { eventCursor edges { node { id } } } }"""


def init(secret: str) -> dict[str, Any]:
    return {"type": "connection_init", "payload": {"authorization": f"Bearer {secret}"}}


async def test_display_token_reads_only_its_queues(api: Client, shop: Shop) -> None:
    created = await display_token(api, shop, ["print"])
    assert created["token"]["kind"] == "DISPLAY"
    assert [d["code"] for d in created["token"]["departments"]] == ["print"]
    display = api.as_(created["secret"])
    await shop.order(["print"])
    page = await display(QUEUE, {"d": "print"})
    assert len(page["queue"]["edges"]) == 1
    for query, variables in [
        (QUEUE, {"d": "finishing"}),
        ("{ workOrders { edges { node { id } } } }", {}),
        ("{ departments { code } }", {}),
    ]:
        body = await display.raw(query, variables)
        assert [e["extensions"]["code"] for e in body["errors"]] == ["FORBIDDEN"]
    body = await display.raw('mutation { createCustomer(input: {name: "X"}) { customer { id } } }')
    assert [e["extensions"]["code"] for e in body["errors"]] == ["FORBIDDEN"]


async def test_only_admins_create_display_tokens(api: Client, shop: Shop) -> None:
    body = await api.as_(shop.tokens["pat"]).raw(
        CREATE_DISPLAY, {"i": {"name": "Mine", "departmentCodes": ["print"]}}
    )
    assert [e["extensions"]["code"] for e in body["errors"]] == ["FORBIDDEN"]
    result = await api.as_(shop.tokens["ada"])(
        CREATE_DISPLAY, {"i": {"name": "Wall", "departmentCodes": ["nope"]}}
    )
    assert result["createDisplayToken"]["userErrors"][0]["code"] == "NOT_FOUND"
    result = await api.as_(shop.tokens["ada"])(
        CREATE_DISPLAY, {"i": {"name": "Wall", "departmentCodes": []}}
    )
    assert result["createDisplayToken"]["userErrors"][0]["field"] == "departmentCodes"


async def test_api_token_acts_as_its_creator_and_can_be_revoked(api: Client, shop: Shop) -> None:
    result = await api.as_(shop.tokens["sam"])(
        'mutation($p: String!) { createApiToken(input: {name: "ERP", password: $p}) '
        "{ secret token { id kind } } }",
        {"p": await shop.password_for("sam")},
    )
    secret = result["createApiToken"]["secret"]
    me = await api.as_(secret)("{ me { name } }")
    assert me["me"]["name"] == "Sam"
    # Someone else cannot revoke it (it is not theirs) ...
    other = await api.as_(shop.tokens["pat"])(
        REVOKE, {"i": {"tokenId": result["createApiToken"]["token"]["id"]}}
    )
    assert other["revokeToken"]["userErrors"][0]["code"] == "NOT_FOUND"
    # ... its owner can.
    mine = await api.as_(shop.tokens["sam"])(
        REVOKE, {"i": {"tokenId": result["createApiToken"]["token"]["id"]}}
    )
    assert mine["revokeToken"]["token"]["revokedAt"] is not None
    body = await api.as_(secret).raw("{ me { name } }")
    assert body["data"]["me"] is None


@pytest.mark.parametrize("protocol", ["graphql-transport-ws", "graphql-ws"])
async def test_revoking_a_display_token_closes_its_live_subscription(
    api: Client, server: str, shop: Shop, protocol: str
) -> None:
    created = await display_token(api, shop, ["print"])
    secret = created["secret"]
    cursor = (await api.as_(secret)(QUEUE, {"d": "print"}))["queue"]["eventCursor"]
    start = "subscribe" if protocol == "graphql-transport-ws" else "start"
    async with websockets.connect(
        server.replace("http://", "ws://"), subprotocols=[protocol]
    ) as ws:
        await ws.send(json.dumps(init(secret)))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        query = (
            'subscription($a: String) { queueEvents(department: "print", after: $a) { cursor } }'
        )
        await ws.send(
            json.dumps(
                {"id": "1", "type": start, "payload": {"query": query, "variables": {"a": cursor}}}
            )
        )
        await api.as_(shop.tokens["ada"])(REVOKE, {"i": {"tokenId": created["token"]["id"]}})
        with pytest.raises(ConnectionClosed) as closed:
            async with asyncio.timeout(10):
                while True:
                    await ws.recv()
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 4403
    # A new connection with the revoked token is refused at connection_init.
    with contextlib.suppress(ConnectionClosed):
        async with websockets.connect(
            server.replace("http://", "ws://"), subprotocols=[protocol]
        ) as ws:
            await ws.send(json.dumps(init(secret)))
            reply = json.loads(await ws.recv())
            assert reply["type"] != "connection_ack"


# What a wall display may reach from a queue item, and what it may not.
DISPLAY_SHOWS = [
    "id status availableAt startedAt",
    "department { code name }",
    "workOrder { orderNumber jobLine status }",
    "workOrder { customer { name } }",
    "pickedUpBy { name }",
]
DISPLAY_NEVER = [
    "history { action }",
    "workOrder { details }",
    "workOrder { history { action } }",
    "workOrder { createdBy { name } }",
    "workOrder { tasks { id } }",
    "workOrder { deliveryTask { id } }",
    "workOrder { quote { amount } }",
    "workOrder { ledger { id } }",
    "workOrder { customer { balance { amount } } }",
    "pickedUpBy { departments { code } }",
    "pickedUpBy { isAdmin }",
    "pickedUpBy { email }",
]


@pytest.mark.parametrize("selection", DISPLAY_SHOWS + DISPLAY_NEVER)
async def test_the_walk_from_a_queue_item_ends_where_a_display_stops(
    api: Client, shop: Shop, selection: str
) -> None:
    created = await display_token(api, shop, ["print"])
    order = await shop.order(["print"], details={"product": "Menus", "quantity": 40})
    task = next(
        t
        for t in (await api.as_(shop.tokens["pat"])(
            "query($id: ID!) { workOrder(id: $id) { tasks { id department { code } } } }",
            {"id": gid("WorkOrder", order)},
        ))["workOrder"]["tasks"]
        if t["department"]["code"] == "print"
    )  # fmt: skip
    await api.as_(shop.tokens["pat"])(
        "mutation($i: StartTaskInput!) { startTask(input: $i) { changed } }",
        {"i": {"taskId": task["id"]}},
    )
    query = f'{{ queue(department: "print") {{ edges {{ node {{ {selection} }} }} }} }}'
    body = await api.as_(created["secret"]).raw(query)
    codes = [e["extensions"]["code"] for e in body.get("errors") or []]
    if selection in DISPLAY_SHOWS:
        assert codes == [], body
        assert body["data"]["queue"]["edges"]
    else:
        assert codes and set(codes) == {"FORBIDDEN"}, body
    # The same walk is open to the print worker, but for the money and others' emails.
    if not any(word in selection for word in ("quote", "ledger", "balance", "email")):
        worker = await api.as_(shop.tokens["pat"]).raw(query)
        assert "errors" not in worker, worker


async def test_the_job_line_is_what_the_display_shows(api: Client, shop: Shop) -> None:
    created = await display_token(api, shop, ["print"])
    await shop.order(["print"], details={"product": "Menus", "quantity": 40, "size": "A4"})
    body = await api.as_(created["secret"])(
        '{ queue(department: "print") { edges { node { workOrder { jobLine } } } } }'
    )
    assert [e["node"]["workOrder"]["jobLine"] for e in body["queue"]["edges"]] == ["40 x Menus"]
