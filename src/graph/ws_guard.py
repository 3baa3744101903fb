"""Websocket frames checked before Strawberry's protocol handlers see them.

- A frame larger than the HTTP body limit closes the socket (1009, message too big).
- A frame that is not a JSON object with a string `type`, whose `payload` is not an
  object, or a `subscribe`/`start` without a payload holding a `query` string, closes
  the socket with 4400 (the graphql-transport-ws code for an invalid message): never a
  traceback.
- The legacy graphql-ws protocol gets the same `connection_init` deadline that Strawberry
  gives graphql-transport-ws (4408 when it passes).
"""

import asyncio
import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graph.body_limit import MAX_BODY_BYTES

INVALID_MESSAGE = 4400
INIT_TIMEOUT = 4408
TOO_BIG = 1009
OPERATIONS = ("subscribe", "start")


class Invalid(ValueError):
    pass


def message_type(text: str) -> str:
    """The `type` of a text frame that is a well-formed protocol message; Invalid says why
    it is not one."""
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        raise Invalid("Not JSON.") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise Invalid("A message is a JSON object with a string 'type'.")
    kind: str = message["type"]
    payload = message.get("payload")
    if payload is not None and not isinstance(payload, dict):
        raise Invalid("'payload' must be an object.")
    if kind in OPERATIONS and not (
        isinstance(payload, dict) and isinstance(payload.get("query"), str)
    ):
        raise Invalid(f"'{kind}' needs a payload with a 'query' string.")
    return kind


class WebsocketGuard:
    def __init__(self, app: ASGIApp, init_timeout_seconds: float) -> None:
        self.app = app
        self.init_timeout_seconds = init_timeout_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        legacy = "graphql-ws" in scope.get("subprotocols", ()) and (
            "graphql-transport-ws" not in scope.get("subprotocols", ())
        )
        socket = _Socket(receive, send)
        if legacy:
            socket.timer = asyncio.create_task(socket.deadline(self.init_timeout_seconds))
        try:
            await self.app(scope, socket.receive, send)
        finally:
            if socket.timer is not None:
                socket.timer.cancel()


class _Socket:
    """One socket's guarded receive. An object with slots rather than closures: a wall
    display keeps it for hours."""

    __slots__ = ("_closing", "_receive", "_send", "closed", "initialised", "timer")

    def __init__(self, receive: Receive, send: Send) -> None:
        self._receive = receive
        self._send = send
        # The code this guard closed the socket with.
        self.closed: int | None = None
        # What a receive raced against the legacy deadline waits on besides the message.
        self._closing: asyncio.Future[None] | None = None
        self.initialised = False
        # The legacy protocol's connection_init deadline.
        self.timer: asyncio.Task[None] | None = None

    async def close(self, code: int, reason: str) -> None:
        if self.closed is None:
            self.closed = code
            if self._closing is not None and not self._closing.done():
                self._closing.set_result(None)
            await self._send({"type": "websocket.close", "code": code, "reason": reason})

    async def deadline(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
        if not self.initialised:
            await self.close(INIT_TIMEOUT, "Connection initialisation timeout")

    async def _next_message(self) -> Message | None:
        """The socket's next message, or None if the deadline closed it meanwhile."""
        if self.initialised or self.timer is None or self.timer.done():
            # Only the deadline closes the socket while a receive waits, and only before
            # connection_init: otherwise the receive is awaited as it is, with no task
            # and no futures to race it (they would be kept by every idle wall display).
            return await self._receive()
        if self._closing is None:
            self._closing = asyncio.get_running_loop().create_future()
        pending: asyncio.Future[Message] = asyncio.ensure_future(self._receive())
        waiting: list[asyncio.Future[Any]] = [pending, self._closing]
        await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        if not pending.done():
            pending.cancel()
            return None
        return pending.result()

    async def receive(self) -> Message:
        message = None if self.closed is not None else await self._next_message()
        if message is None:
            return {"type": "websocket.disconnect", "code": self.closed}
        if message["type"] != "websocket.receive":
            return message
        text: Any = message.get("text")
        size = len(text.encode()) if isinstance(text, str) else len(message.get("bytes") or b"")
        if size > MAX_BODY_BYTES:
            await self.close(TOO_BIG, f"Messages are limited to {MAX_BODY_BYTES} bytes.")
            return {"type": "websocket.disconnect", "code": TOO_BIG}
        if isinstance(text, str):
            try:
                kind = message_type(text)
            except Invalid as why:
                await self.close(INVALID_MESSAGE, str(why))
                return {"type": "websocket.disconnect", "code": INVALID_MESSAGE}
            self.initialised = self.initialised or kind == "connection_init"
        return message
