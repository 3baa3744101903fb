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
        closed: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        initialised = False

        async def close(code: int, reason: str) -> None:
            if not closed.done():
                closed.set_result(code)
                await send({"type": "websocket.close", "code": code, "reason": reason})

        async def deadline() -> None:
            await asyncio.sleep(self.init_timeout_seconds)
            if not initialised:
                await close(INIT_TIMEOUT, "Connection initialisation timeout")

        async def next_message() -> Message | None:
            """The socket's next message, or None if the deadline closed it meanwhile."""
            if initialised or timer is None or timer.done():
                # Only the deadline closes the socket while a receive waits, and only before
                # connection_init: otherwise the receive is awaited as it is, with no task
                # and no futures to race it (they would be kept by every idle wall display).
                return await receive()
            pending: asyncio.Future[Message] = asyncio.ensure_future(receive())
            waiting: list[asyncio.Future[Any]] = [pending, closed]
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            if not pending.done():
                pending.cancel()
                return None
            return pending.result()

        async def guarded_receive() -> Message:
            nonlocal initialised
            message = None if closed.done() else await next_message()
            if message is None:
                return {"type": "websocket.disconnect", "code": closed.result()}
            if message["type"] != "websocket.receive":
                return message
            text: Any = message.get("text")
            size = len(text.encode()) if isinstance(text, str) else len(message.get("bytes") or b"")
            if size > MAX_BODY_BYTES:
                await close(TOO_BIG, f"Messages are limited to {MAX_BODY_BYTES} bytes.")
                return {"type": "websocket.disconnect", "code": TOO_BIG}
            if isinstance(text, str):
                try:
                    kind = message_type(text)
                except Invalid as why:
                    await close(INVALID_MESSAGE, str(why))
                    return {"type": "websocket.disconnect", "code": INVALID_MESSAGE}
                initialised = initialised or kind == "connection_init"
            return message

        timer = asyncio.create_task(deadline()) if legacy else None
        try:
            await self.app(scope, guarded_receive, send)
        finally:
            if timer is not None:
                timer.cancel()
