"""The websocket guard tells the garbage collector's pacer of every message the app
receives, the hang-up included (thousands of displays leaving at once make one long pass
of the event loop, which only such counts break into several collections)."""

from typing import Any

import pytest

from graph.ws_guard import WebsocketGuard

MESSAGES = [
    {"type": "websocket.connect"},
    {"type": "websocket.receive", "text": '{"type": "connection_init"}'},
    {"type": "websocket.receive", "text": '{"type": "ping"}'},
    {"type": "websocket.disconnect", "code": 1000},
]


@pytest.mark.parametrize("protocol", ["graphql-transport-ws", "graphql-ws"])
async def test_every_message_received_is_counted(protocol: str) -> None:
    inbox = list(MESSAGES)
    got: list[dict[str, Any]] = []
    counted = 0

    def received() -> None:
        nonlocal counted
        counted += 1

    async def receive() -> dict[str, Any]:
        return inbox.pop(0)

    async def send(message: Any) -> None:
        raise AssertionError(f"nothing is sent: {message}")

    async def app(scope: Any, receive: Any, send: Any) -> None:
        for _ in MESSAGES:
            got.append(await receive())

    guard = WebsocketGuard(app, init_timeout_seconds=60, received=received)
    await guard({"type": "websocket", "subprotocols": [protocol]}, receive, send)
    assert got == MESSAGES
    assert counted == len(MESSAGES)
