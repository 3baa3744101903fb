"""uvicorn's Sans-I/O websocket protocol, lighter for each idle connection.

A wall display's socket waits for hours. uvicorn's protocol keeps, for the socket's whole
life, an asyncio.Queue for the messages the app will receive (four deques with an Event's
waiters, each deque at least a 64-slot block) and the handshake's request and response
with their headers. Here the queue is a mailbox that keeps no deque while empty, and the
handshake is let go once the connection is accepted: about 8 KB less per idle connection.
websockets' own parser keeps the request in its frame for the connection's life, so its
headers are emptied first (the app has its own copy, in the ASGI scope). The way out
(sends and their flow control) is uvicorn's own, unchanged.

Every read from a socket, and every socket lost, is also told to the garbage collector's
pacer (the app's lifespan state under READ). When thousands of wall displays hang up at
once, their teardowns run in one pass of the event loop, too long for the pacer's timer,
while the allocation count stays flat (each teardown frees old objects as it makes new
ones): counted where they arrive, the reads and losses break that pass into several
collections.
"""

import sys
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from db.fanout import Mailbox

READ = "pressroom.websocket_read"


class LeanWebSocketProtocol(WebSocketsSansIOProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # uvicorn reads its queue with one reader (the app's receive) and no bound.
        self.queue = Mailbox(maxsize=sys.maxsize)  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._tell_pacer()

    def connection_lost(self, exc: Exception | None) -> None:
        # A client that goes without a close frame (a display switched off, a process
        # killed) is only this: its teardown follows as surely as after a read.
        super().connection_lost(exc)
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
