"""Live websocket connections, so that a change of access closes them everywhere.

Revoking a token and deactivating a user are events in the log; every server
process's feed delivers them, and the process closes its own connections that use
that token or belong to that user. Expiry is no event: a sweep each second closes
connections whose token has expired. (Subscriptions themselves also check their rights
again, in log order, through the feed's RECHECK marks: see graph/subscriptions.py.)
"""

import asyncio
import contextlib
import logging
import weakref
from dataclasses import dataclass
from datetime import UTC, datetime

from starlette.websockets import WebSocket, WebSocketDisconnect

from api.metrics import Metrics
from api.viewer import Viewer
from db.fanout import ACCESS_CHANNEL, OVERFLOWED, TOKENS_CHANNEL, Delivered
from db.feed import EventFeed
from domain.enums import EventType
from domain.validation import expired

log = logging.getLogger(__name__)

REVOKED_CLOSE_CODE = 4403
EXPIRED_CLOSE_CODE = 4401
SWEEP_SECONDS = 1.0
# How long a close may wait for a socket to take it; the client's connection is then left
# to uvicorn's pings.
CLOSE_SECONDS = 10.0


@dataclass(frozen=True)
class _Holder:
    token_id: int
    user_id: int
    expires_at: datetime | None


class LiveConnections:
    def __init__(self) -> None:
        # Weak: a connection that ended on its own simply drops out.
        self._sockets: weakref.WeakKeyDictionary[WebSocket, _Holder] = weakref.WeakKeyDictionary()
        self._tasks: list[asyncio.Task[None]] = []
        # Closes under way (a task is kept here until it ends, or it could be collected).
        self._closing: set[asyncio.Task[None]] = set()
        self._feed: EventFeed | None = None

    def add(self, viewer: Viewer, websocket: WebSocket) -> None:
        self._sockets[websocket] = _Holder(viewer.token_id, viewer.user_id, viewer.expires_at)

    def expose(self, metrics: Metrics) -> None:
        metrics.function(
            "pressroom_live_connections",
            "Authenticated websocket connections.",
            lambda: float(self.count()),
        )

    def count(self) -> int:
        return len(self._sockets)

    async def _close(self, sockets: list[WebSocket], code: int, reason: str) -> None:
        """Each socket is closed by a task of its own: closing waits until the socket can
        be written to, which a client that stopped reading may never allow, and the
        watchers that call this must go on to the next revocation. Such a client gets
        nothing more anyway: its subscriptions check their rights again and end."""
        for websocket in sockets:
            self._sockets.pop(websocket, None)
            closing = asyncio.create_task(self._close_one(websocket, code, reason))
            self._closing.add(closing)
            closing.add_done_callback(self._closed)

    def _closed(self, closing: "asyncio.Task[None]") -> None:
        # No one awaits a close: what it raised is looked at here, or asyncio reports it
        # as never retrieved when the task is collected.
        self._closing.discard(closing)
        if not closing.cancelled() and (error := closing.exception()) is not None:
            log.warning("closing a websocket failed: %r", error)

    @staticmethod
    async def _close_one(websocket: WebSocket, code: int, reason: str) -> None:
        # A client already gone (signed out, its page closed) is what a close often finds:
        # Starlette says so with WebSocketDisconnect.
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError, TimeoutError):
            async with asyncio.timeout(CLOSE_SECONDS):
                await websocket.close(code=code, reason=reason)

    async def close_token(self, token_id: int) -> None:
        sockets = [w for w, h in list(self._sockets.items()) if h.token_id == token_id]
        await self._close(sockets, REVOKED_CLOSE_CODE, "Token revoked")

    async def close_user(self, user_id: int) -> None:
        sockets = [w for w, h in list(self._sockets.items()) if h.user_id == user_id]
        await self._close(sockets, REVOKED_CLOSE_CODE, "User deactivated")

    async def close_expired(self) -> None:
        now = datetime.now(UTC)
        ended = [(w, h) for w, h in list(self._sockets.items()) if expired(h.expires_at, now)]
        for _, holder in ended:
            if self._feed is not None:
                self._feed.fanout.recheck_token(holder.token_id)
        await self._close([w for w, _ in ended], EXPIRED_CLOSE_CODE, "Token expired")

    def start(self, feed: EventFeed) -> None:
        self._feed = feed
        self._tasks = [
            asyncio.create_task(self._watch(feed, TOKENS_CHANNEL), name="token-watcher"),
            asyncio.create_task(self._watch(feed, ACCESS_CHANNEL), name="access-watcher"),
            asyncio.create_task(self._sweep(), name="expiry-sweeper"),
        ]

    async def stop(self) -> None:
        tasks = [*self._tasks, *self._closing]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            await self.close_expired()

    async def _watch(self, feed: EventFeed, channel: str) -> None:
        while True:
            async with feed.subscribe(channel) as queue:
                while True:
                    item = await queue.get()
                    if item.message is OVERFLOWED:
                        break  # resubscribe; a burst of revocations is rare
                    event = item.message.event if isinstance(item.message, Delivered) else None
                    if event is None:
                        continue
                    if event.type == EventType.TOKEN_REVOKED:
                        await self.close_token(event.token_id)
                    elif event.type == EventType.USER_ACCESS_CHANGED and event.deactivates:
                        await self.close_user(event.user_id)
