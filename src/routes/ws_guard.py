"""Websocket frames checked before Strawberry's protocol handlers see them.

- A frame larger than the HTTP body limit closes the socket (1009, message too big).
- A frame that is not a JSON object with a string `type`, whose `payload` is not an
  object, or a `subscribe`/`start` without a payload holding a `query` string, closes
  the socket with 4400 (the graphql-transport-ws code for an invalid message): never a
  traceback.
- The legacy graphql-ws protocol gets the same `connection_init` deadline that Strawberry
  gives graphql-transport-ws (4408 when it passes).
- At most `per_address` open sockets per client address (an IPv6 /64) and `per_token`
  per bearer token, in this process: one over either is accepted and closed at once with
  4429, so a client learns why (a refused handshake says nothing). Tokens are counted by
  their SHA-256, as they are stored.
"""

import asyncio
import hashlib
import json
from collections import Counter
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.auth import init_authorization, init_token
from api.throttle import address_key
from routes.body_limit import MAX_BODY_BYTES

INVALID_MESSAGE = 4400
TOO_MANY_SOCKETS = 4429
SOCKETS_PER_TOKEN = 50
SOCKETS_PER_ADDRESS = 500
INIT_TIMEOUT = 4408
TOO_BIG = 1009
OPERATIONS = ("subscribe", "start")


class Invalid(ValueError):
    pass


def _message(text: str) -> tuple[str, dict[str, Any] | None]:
    """The `type` and `payload` of a text frame that is a well-formed protocol message;
    Invalid says why it is not one."""
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
    return kind, payload


class WebsocketGuard:
    def __init__(
        self,
        app: ASGIApp,
        init_timeout_seconds: float,
        per_token: int = SOCKETS_PER_TOKEN,
        per_address: int = SOCKETS_PER_ADDRESS,
    ) -> None:
        self.app = app
        self.init_timeout_seconds = init_timeout_seconds
        self.per_address = per_address
        self.tokens = _Open(per_token)
        self.addresses: Counter[str] = Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        offered = scope.get("subprotocols", ())
        client = scope.get("client")
        address = address_key(client[0]) if client else "unknown"
        if self.addresses[address] >= self.per_address:
            await _refuse(
                receive, send, offered, f"At most {self.per_address} sockets per address."
            )
            return
        legacy = "graphql-ws" in offered and "graphql-transport-ws" not in offered
        socket = _Socket(receive, send, self.tokens)
        if legacy:
            socket.timer = asyncio.create_task(socket.deadline(self.init_timeout_seconds))
        self.addresses[address] += 1
        try:
            await self.app(scope, socket.receive, send)
        finally:
            self.addresses[address] -= 1
            if not self.addresses[address]:
                del self.addresses[address]
            self.tokens.leave(socket.token)
            if socket.timer is not None:
                socket.timer.cancel()


async def _refuse(receive: Receive, send: Send, offered: Any, reason: str) -> None:
    """Accepted, then closed with TOO_MANY_SOCKETS: the client sees the code and why."""
    if (await receive())["type"] != "websocket.connect":
        return
    ours = [p for p in ("graphql-transport-ws", "graphql-ws") if p in offered]
    await send({"type": "websocket.accept", "subprotocol": ours[0] if ours else None})
    await send({"type": "websocket.close", "code": TOO_MANY_SOCKETS, "reason": reason})


class _Open:
    """Open sockets per bearer token (by its hash) in this process."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.counts: Counter[bytes] = Counter()

    @staticmethod
    def key(payload: dict[str, Any] | None) -> bytes | None:
        """What a connection_init's token counts under (read as the server reads it to
        sign the socket in); None when it names none."""
        token = init_token(init_authorization(payload))
        return None if token is None else hashlib.sha256(token.encode()).digest()

    def full(self, key: bytes) -> bool:
        return self.counts[key] >= self.limit

    def join(self, key: bytes) -> None:
        self.counts[key] += 1

    def leave(self, key: bytes | None) -> None:
        if key is not None:
            self.counts[key] -= 1
            if not self.counts[key]:
                del self.counts[key]


class _Socket:
    """One socket's guarded receive. An object with slots rather than closures: a wall
    display keeps it for hours."""

    __slots__ = (
        "_closing",
        "_receive",
        "_send",
        "_tokens",
        "closed",
        "initialised",
        "timer",
        "token",
    )

    def __init__(self, receive: Receive, send: Send, tokens: _Open) -> None:
        self._receive = receive
        self._send = send
        self._tokens = tokens
        # The token it counts under, once its connection_init named one.
        self.token: bytes | None = None
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
                kind, payload = _message(text)
            except Invalid as why:
                await self.close(INVALID_MESSAGE, str(why))
                return {"type": "websocket.disconnect", "code": INVALID_MESSAGE}
            if kind == "connection_init" and not self.initialised:
                key = self._tokens.key(payload)
                if key is not None and self._tokens.full(key):
                    reason = f"At most {self._tokens.limit} sockets per token."
                    await self.close(TOO_MANY_SOCKETS, reason)
                    return {"type": "websocket.disconnect", "code": TOO_MANY_SOCKETS}
                if key is not None:
                    self._tokens.join(key)
                    self.token = key
            self.initialised = self.initialised or kind == "connection_init"
        return message
