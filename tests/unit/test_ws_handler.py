"""The graphql-transport-ws handler lets go of its init timer once the connection is up
(Strawberry's own keeps the cancelled task, its traceback and frames, for the
connection's life)."""

import asyncio
import contextlib
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

from graph.engine.view import TransportWSHandler
from graph.schema import schema


class Socket:
    def __init__(self) -> None:
        self.sent: list[Any] = []

    async def send_json(self, message: Any) -> None:
        self.sent.append(message)

    async def close(self, code: int, reason: str) -> None:
        self.sent.append(("close", code))


class View:
    async def on_ws_connect(self, context: Any) -> None:
        return None


async def test_the_init_timer_is_dropped_once_the_connection_is_acknowledged() -> None:
    socket = Socket()
    handler = TransportWSHandler(
        View(),  # type: ignore[arg-type]
        socket,  # type: ignore[arg-type]
        SimpleNamespace(connection_params=None),  # type: ignore[arg-type]
        None,
        schema,
        timedelta(seconds=60),
    )
    handler.on_request_accepted()
    timer = handler.connection_init_timeout_task
    assert timer is not None
    await handler.handle_connection_init({"type": "connection_init"})
    assert [message["type"] for message in socket.sent] == ["connection_ack"]
    with contextlib.suppress(asyncio.CancelledError):
        await timer
    assert timer.cancelled()
    assert handler.connection_init_timeout_task is None
