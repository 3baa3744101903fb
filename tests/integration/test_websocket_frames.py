"""Websocket hardening: frames are capped like HTTP bodies, malformed frames get a
protocol close code (never a traceback), an anonymous connection_init is refused, and the
legacy protocol has the same connection_init deadline as graphql-transport-ws."""

import asyncio
import json
from typing import Any

import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from routes.body_limit import MAX_BODY_BYTES
from tests.support.shop import Shop
from tests.support.subscriptions import PROTOCOLS


def ws_url(server: str) -> str:
    return server.replace("http://", "ws://")


async def close_code(ws: Any, within: float = 10) -> int:
    with pytest.raises(ConnectionClosed) as closed:
        async with asyncio.timeout(within):
            while True:
                await ws.recv()
    assert closed.value.rcvd is not None
    return int(closed.value.rcvd.code)


async def opened(server: str, protocol: str, shop: Shop) -> Any:
    ws = await websockets.connect(ws_url(server), subprotocols=[protocol], max_size=None)
    init = {"type": "connection_init", "payload": {"authorization": shop.tokens["pat"]}}
    await ws.send(json.dumps(init))
    assert json.loads(await ws.recv())["type"] == "connection_ack"
    return ws


def start(protocol: str) -> str:
    return "subscribe" if protocol == "graphql-transport-ws" else "start"


MALFORMED = {
    "json-array": lambda p: "[1, 2, 3]",
    "string-payload": lambda p: json.dumps({"id": "1", "type": start(p), "payload": "query"}),
    "start-without-payload": lambda p: json.dumps({"id": "1", "type": start(p)}),
    "payload-without-query": lambda p: json.dumps({"id": "1", "type": start(p), "payload": {}}),
    "deeply-nested": lambda p: "[" * 100_000 + "]" * 100_000,
    "not-json": lambda p: "{type: start",
    "type-not-a-string": lambda p: json.dumps({"type": 42}),
}


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("frame", sorted(MALFORMED))
async def test_malformed_frames_get_a_protocol_close_code(
    server: str, shop: Shop, protocol: str, frame: str, caplog: pytest.LogCaptureFixture
) -> None:
    ws = await opened(server, protocol, shop)
    await ws.send(MALFORMED[frame](protocol))
    assert await close_code(ws) == 4400
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_frames_are_capped_like_http_bodies(server: str, shop: Shop, protocol: str) -> None:
    ws = await opened(server, protocol, shop)
    query = 'subscription { queueEvents(department: "print") { cursor } }'
    padding = "#" + "x" * MAX_BODY_BYTES + "\n"
    await ws.send(
        json.dumps({"id": "1", "type": start(protocol), "payload": {"query": padding + query}})
    )
    assert await close_code(ws) == 1009


# graphql-transport-ws closes with Forbidden; the legacy protocol has no such code, so
# Strawberry sends connection_error and closes with 1011.
REFUSED = {"graphql-transport-ws": 4403, "graphql-ws": 1011}


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_an_anonymous_connection_init_is_refused(server: str, protocol: str) -> None:
    async with websockets.connect(ws_url(server), subprotocols=[protocol]) as ws:
        await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
        if protocol == "graphql-ws":
            reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert reply["type"] == "connection_error"
        assert await close_code(ws) == REFUSED[protocol]


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_socket_without_connection_init_is_closed_in_time(
    server: str, protocol: str
) -> None:
    """Both protocols: the test server gives connection_init one second."""
    async with websockets.connect(ws_url(server), subprotocols=[protocol]) as ws:
        assert await close_code(ws, within=10) == 4408
