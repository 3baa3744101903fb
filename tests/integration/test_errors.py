"""Unexpected failures are masked, over HTTP and on both websocket protocols; crafted
cursors and paging arguments are BAD_REQUEST, event cursors on websockets too."""

import base64
import json

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from db import events, reads
from tests.support.client import Client, gid
from tests.support.shop import Shop
from tests.support.subscriptions import PROTOCOLS, QUEUE_EVENTS, RawSocket, error_codes

ORDERS = "query($after: String) { workOrders(first: 2, after: $after) { edges { node { id } } } }"


async def test_an_unexpected_exception_is_masked(
    api: Client, shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    order = await shop.order(["print"])

    async def broken(*args: object) -> list[object]:
        raise RuntimeError("secret connection detail")

    monkeypatch.setattr(reads, "customers", broken)
    body = await api.as_(shop.tokens["sam"]).raw(
        "query($id: ID!) { workOrder(id: $id) { orderNumber customer { name } } }",
        {"id": gid("WorkOrder", order)},
    )
    text = json.dumps(body)
    assert "secret connection detail" not in text
    assert "Traceback" not in text
    assert body["data"] is None or body["data"]["workOrder"] is None
    assert [(e["message"], e["extensions"]["code"]) for e in body["errors"]] == [
        ("Unexpected error.", "INTERNAL_SERVER_ERROR")
    ]


def crafted(key: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(key).encode()).decode()


@pytest.mark.parametrize(
    "after", ["not-base64!", crafted(["x"]), crafted([1, 2]), crafted({"id": 1}), crafted([-5])]
)
async def test_crafted_cursors_are_bad_requests(api: Client, shop: Shop, after: str) -> None:
    body = await api.as_(shop.tokens["sam"]).raw(ORDERS, {"after": after})
    assert [e["extensions"]["code"] for e in body["errors"]] == ["BAD_REQUEST"]
    assert "cursor" in body["errors"][0]["message"]


@pytest.mark.parametrize(
    "after",
    [
        crafted([0, "yesterday", 1]),
        crafted([2, "2026-01-01T00:00:00+00:00", 1]),
        crafted([0, "2026-01-01T00:00:00", 1]),
        crafted([0, "2026-01-01T00:00:00+00:00", "1"]),
    ],
)
async def test_crafted_queue_cursors_are_bad_requests(api: Client, shop: Shop, after: str) -> None:
    body = await api.as_(shop.tokens["pat"]).raw(
        'query($after: String) { queue(department: "print", after: $after) { edges { cursor } } }',
        {"after": after},
    )
    assert [e["extensions"]["code"] for e in body["errors"]] == ["BAD_REQUEST"]


async def test_queue_pages_follow_each_other(api: Client, shop: Shop) -> None:
    for _ in range(5):
        await shop.order(["print"])
    pat = api.as_(shop.tokens["pat"])
    query = """query($after: String) { queue(department: "print", first: 2, after: $after) {
        edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }"""
    seen: list[str] = []
    after = None
    while True:
        page = (await pat(query, {"after": after}))["queue"]
        seen += [e["node"]["id"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert len(seen) == len(set(seen)) == 5


async def test_a_subscription_over_plain_http_is_a_bad_request(api: Client, shop: Shop) -> None:
    for accept in ["application/json", 'multipart/mixed;subscriptionSpec="1.0", application/json']:
        response = await api.http.post(
            api.url,
            json={"query": 'subscription { queueEvents(department: "print") { kind } }'},
            headers={"authorization": f"Bearer {shop.tokens['pat']}", "accept": accept},
        )
        assert "websocket" in response.text
        assert "BAD_REQUEST" in response.text
        assert "INTERNAL_SERVER_ERROR" not in response.text


async def test_bound_values_never_reach_an_error_message(engine: AsyncEngine) -> None:
    """A failing statement's parameters (a password hash, a token) stay out of the error
    SQLAlchemy raises, and so out of every log line built from it."""
    secret = "$argon2id$v=19$m=65536,t=3,p=4$c2VjcmV0LXNhbHQ"
    with pytest.raises(DBAPIError) as failed:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT CAST(:secret AS integer)"), {"secret": secret})
    assert secret not in str(failed.value)
    assert "hidden" in str(failed.value)


# Each decodes as an event cursor, and names what PostgreSQL would refuse to compare with
# (xid8 and bigint are 64 bits).
FORGED_EVENT_CURSORS = {
    "xid past xid8": crafted(["e", 2**64, 1]),
    "id past bigint": crafted(["e", 1, 2**63]),
    "snapshot past xid8": crafted(["s", f"{2**64}:{2**64 + 1}:"]),
    "negative snapshot": crafted(["s", "-5:3:"]),
    "running past xid8": crafted(["e", 1, 1, f"1:5:{2**70}"]),
}


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("after", sorted(FORGED_EVENT_CURSORS))
async def test_forged_event_cursors_are_bad_requests_on_websockets(
    server: str, shop: Shop, protocol: str, after: str
) -> None:
    socket = await RawSocket.open(server, shop.tokens["pat"], protocol)
    try:
        variables = {"department": "print", "after": FORGED_EVENT_CURSORS[after]}
        await socket.subscribe(QUEUE_EVENTS, variables)
        ended = await socket.next()
    finally:
        await socket.ws.close()
    assert error_codes(ended) == ["BAD_REQUEST"], ended
    assert "'after' is not an event cursor" in json.dumps(ended)
    assert "xid8" not in json.dumps(ended)


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_an_unexpected_exception_in_a_subscription_is_masked(
    server: str, shop: Shop, protocol: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await shop.order(["print"])

    async def broken(*args: object) -> list[object]:
        raise RuntimeError("secret connection detail")

    monkeypatch.setattr(events, "replay_page", broken)
    socket = await RawSocket.open(server, shop.tokens["pat"], protocol)
    try:
        after = events.encode_position(events.START)
        await socket.subscribe(QUEUE_EVENTS, {"department": "print", "after": after})
        ended = await socket.next()
    finally:
        await socket.ws.close()
    assert error_codes(ended) == ["INTERNAL_SERVER_ERROR"], ended
    assert "secret connection detail" not in json.dumps(ended)
    assert "Unexpected error." in json.dumps(ended)
