"""Documents that would make the server walk far more than they weigh are refused before
anything runs: fragments spread twice per level (the expansion limit), and event cursors
nested too deeply to decode (BAD_REQUEST, no masked error, nothing in the log)."""

import base64
import logging
from typing import Any

import pytest

from graph.schema import DocumentLimits
from graph.shape import MAX_FIELDS
from tests.support import PROTOCOLS, QUEUE_EVENTS, Client, RawSocket, Shop, counting, table_snapshot

# 400 levels are over the token cap too, which refuses them while they are parsed.
LEVELS = {
    18: f"over the limit of {MAX_FIELDS:,} fields",
    30: f"over the limit of {MAX_FIELDS:,} fields",
    400: f"more than {DocumentLimits.MAX_TOKENS} tokens",
}
CREATE = 'createCustomer(input: {name: "Twin"}) { customer { name } }'


def doubling(levels: int, root: str, leaf: str) -> str:
    spreads = "".join(
        f"fragment F{i} on {root} {{ ...F{i + 1} ...F{i + 1} }}\n" for i in range(1, levels)
    )
    kind = root.lower()
    return f"{kind} Q {{ ...F1 }}\n{spreads}fragment F{levels} on {root} {{ {leaf} }}\n"


def refused_for_its_size(body: dict[str, Any], says: str) -> None:
    assert body.get("data") is None, body
    [error] = body["errors"]
    assert error["extensions"]["code"] == "BAD_REQUEST"
    assert says in error["message"]


@pytest.mark.parametrize("levels", LEVELS)
async def test_an_anonymous_doubling_query_is_refused_before_anything_runs(
    api: Client, shop: Shop, running_app: tuple[str, Any], levels: int
) -> None:
    query = doubling(levels, "Query", "workOrders { edges { node { orderNumber } } }")
    with counting(running_app[1].state.services.engine) as statements:
        body = await api.as_(None).raw(query)
    refused_for_its_size(body, LEVELS[levels])
    assert statements == []


@pytest.mark.parametrize("levels", LEVELS)
async def test_a_doubling_mutation_is_refused_and_writes_nothing(
    api: Client, shop: Shop, running_app: tuple[str, Any], levels: int
) -> None:
    mutation = doubling(levels, "Mutation", CREATE)
    before = await table_snapshot(shop.engine)
    with counting(running_app[1].state.services.engine) as statements:
        body = await api.as_(shop.tokens["sam"]).raw(mutation)
    refused_for_its_size(body, LEVELS[levels])
    # Only Sam's token was looked up.
    assert len(statements) == 1 and "FROM tokens" in statements[0], statements
    assert await table_snapshot(shop.engine) == before


async def test_the_same_mutation_spread_once_runs(api: Client, shop: Shop) -> None:
    """The refusal is about the expansion, not about fragments: two levels run."""
    mutation = doubling(2, "Mutation", CREATE)
    body = await api.as_(shop.tokens["sam"]).raw(mutation)
    assert body.get("errors") is None, body
    assert body["data"] == {"createCustomer": {"customer": {"name": "Twin"}}}


NESTED_CURSOR = base64.urlsafe_b64encode(b"[" * 12_000).decode()


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_an_event_cursor_nested_too_deeply_is_a_bad_request(
    server: str, shop: Shop, protocol: str, caplog: pytest.LogCaptureFixture
) -> None:
    socket = await RawSocket.open(server, shop.tokens["pat"], protocol)
    try:
        with caplog.at_level(logging.WARNING):
            await socket.subscribe(QUEUE_EVENTS, {"department": "print", "after": NESTED_CURSOR})
            message = await socket.next()
    finally:
        await socket.ws.close()
    payload = message["payload"]
    errors = payload if isinstance(payload, list) else payload.get("errors", [payload])
    assert [e["extensions"]["code"] for e in errors] == ["BAD_REQUEST"], message
    assert "not an event cursor" in errors[0]["message"]
    assert "RecursionError" not in caplog.text
    assert "unexpected error" not in caplog.text


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_doubling_subscription_is_refused_on_the_socket(
    server: str, shop: Shop, protocol: str
) -> None:
    spreads = "".join(
        f"fragment F{i} on Subscription {{ ...F{i + 1} ...F{i + 1} }}\n" for i in range(1, 30)
    )
    document = (
        f"subscription S {{ ...F1 }}\n{spreads}"
        'fragment F30 on Subscription { queueEvents(department: "print") { cursor } }\n'
    )
    socket = await RawSocket.open(server, shop.tokens["pat"], protocol)
    try:
        await socket.subscribe(document, {})
        message = await socket.next()
    finally:
        await socket.ws.close()
    payload = message["payload"]
    errors = payload if isinstance(payload, list) else payload.get("errors", [payload])
    assert [e["extensions"]["code"] for e in errors] == ["BAD_REQUEST"], message
    assert f"over the limit of {MAX_FIELDS:,} fields" in errors[0]["message"]
