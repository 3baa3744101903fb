"""uvicorn's Sans-I/O websocket protocol, lighter for each idle connection.

A wall display's socket waits for hours. uvicorn's protocol keeps, for the socket's whole
life, an asyncio.Queue for the messages the app will receive (four deques with an Event's
waiters, each deque at least a 64-slot block), an Event for the transport's flow control
(another deque), the handshake's request and response with their headers, and an instance
dictionary too large to share its keys with the class. Here the queue is a mailbox that
keeps no deque while empty, the flag makes no future until a write has to wait, the
handshake is let go once the connection is accepted, and the attributes have slots:
about 11 KB less per idle connection. websockets' own parser keeps the request in its
frame for the connection's life, so its headers are emptied first, and so are the app's
own copy in the ASGI scope (the app reads them only to accept the connection: origin,
subprotocols). Sends are uvicorn's own, unchanged.

Every read from a socket, and every socket lost, is also told to the garbage collector's
pacer (the app's lifespan state under READ). When thousands of wall displays hang up at
once, their teardowns run in one pass of the event loop, too long for the pacer's timer,
while the allocation count stays flat (each teardown frees old objects as it makes new
ones): counted where they arrive, the reads and losses break that pass into several
collections.
"""

import asyncio
import sys
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from db.fanout import Mailbox

READ = "pressroom.websocket_read"


class Flag:
    """asyncio.Event as uvicorn uses it for flow control (set, clear, wait); the future
    that waiters share is made only when one has to wait (the transport asked to pause
    writing), where an Event keeps a deque of waiters for the socket's life."""

    __slots__ = ("_set", "_waiters")

    def __init__(self) -> None:
        self._set = False
        self._waiters: asyncio.Future[None] | None = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        self._set = True
        if self._waiters is not None:
            if not self._waiters.done():
                self._waiters.set_result(None)
            self._waiters = None

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> None:
        while not self._set:
            if self._waiters is None:
                self._waiters = asyncio.get_running_loop().create_future()
            # Shielded: a waiter that is cancelled must not cancel the others' future.
            await asyncio.shield(self._waiters)


class LeanWebSocketProtocol(WebSocketsSansIOProtocol):
    # Every attribute uvicorn's protocol sets, as slots: with more than 30 attributes an
    # instance dictionary no longer shares its keys with the class, and costs 1.6 KB.
    __slots__ = (
        "app",
        "app_state",
        "asgi_version",
        "client",
        "close_sent",
        "close_timeout",
        "close_timer",
        "config",
        "conn",
        "connections",
        "curr_msg_data_type",
        "default_headers",
        "disconnected",
        "frames",
        "handshake_complete",
        "handshake_initiated",
        "initial_response",
        "last_ping_rtt",
        "logger",
        "loop",
        "pending_ping_payload",
        "ping_interval",
        "ping_sent_at",
        "ping_timeout",
        "ping_timer",
        "pong_timer",
        "queue",
        "read_paused",
        "request",
        "response",
        "root_path",
        "scheme",
        "scope",
        "server",
        "tasks",
        "transport",
        "writable",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # uvicorn reads its queue with one reader (the app's receive) and no bound.
        self.queue = Mailbox(maxsize=sys.maxsize)  # type: ignore[assignment]
        writable = Flag()
        writable.set()
        self.writable = writable  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._tell_pacer()

    def connection_lost(self, exc: Exception | None) -> None:
        # A client that goes without a close frame (a display switched off, a process
        # killed) is only this: its teardown follows as surely as after a read.
        super().connection_lost(exc)
        # websockets' parser is a generator whose frame holds its protocol, and the error
        # it ended with holds that frame: a cycle of some 25 objects per connection, which
        # outlives the pacer's collections and waited for a full one (2,700 of them after
        # five minutes of websocket churn, most of a 93 ms pause). Nothing reads the
        # socket again.
        self.conn.parser.close()
        self.conn.parser_exc = None
        self._tell_pacer()

    def _tell_pacer(self) -> None:
        read = self.app_state.get(READ)
        if read is not None:
            read()

    async def send(self, message: Any) -> None:
        await super().send(message)
        if message["type"] == "websocket.accept" and self.handshake_complete:
            # Read only until the response is sent.
            self.request.headers.clear()
            del self.request, self.response
            # The app's copy too, in place (Starlette's Headers may hold the list): the
            # app reads the handshake's headers (origin, subprotocols) only to accept it.
            headers = self.scope["headers"]
            if isinstance(headers, list):
                headers.clear()
