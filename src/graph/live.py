"""Live websocket connections by token, so that revoking a token closes them everywhere.

A revocation is an event in the log; every server process's feed delivers it,
and the process closes its own connections that authenticated with that token.
"""

import asyncio
import contextlib
import logging
import weakref
from collections import defaultdict

from starlette.websockets import WebSocket

from db.feed import OVERFLOWED, TOKENS_CHANNEL, Delivered, EventFeed

log = logging.getLogger(__name__)

REVOKED_CLOSE_CODE = 4403


class LiveConnections:
    def __init__(self) -> None:
        # Weak: a connection that ended on its own simply drops out.
        self._by_token: dict[int, weakref.WeakSet[WebSocket]] = defaultdict(weakref.WeakSet)
        self._task: asyncio.Task[None] | None = None

    def add(self, token_id: int, websocket: WebSocket) -> None:
        self._by_token[token_id].add(websocket)

    def count(self) -> int:
        return sum(len(s) for s in self._by_token.values())

    async def close_token(self, token_id: int) -> None:
        for websocket in list(self._by_token.pop(token_id, ())):
            with contextlib.suppress(RuntimeError, OSError):
                await websocket.close(code=REVOKED_CLOSE_CODE, reason="Token revoked")

    def start(self, feed: EventFeed) -> None:
        self._task = asyncio.create_task(self._watch(feed), name="token-watcher")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _watch(self, feed: EventFeed) -> None:
        while True:
            async with feed.subscribe(TOKENS_CHANNEL) as queue:
                while True:
                    item = await queue.get()
                    if item.message is OVERFLOWED:
                        break  # resubscribe; a burst of revocations is rare
                    delivered: Delivered = item.message
                    await self.close_token(delivered.event.token_id)
