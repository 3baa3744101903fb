"""What the outboxes that follow the event log share (the webhook relay, the mail outbox):
rounds that follow the feed, and a count of the attempts written that tests and benches
wait on.

A round runs at once after new events (at most one per MIN_ROUND_SECONDS under a stream
of them: a round costs a few statements whatever it sends), and at least every
`poll_seconds` (retries falling due, other processes' leases running out). A round that
fails is logged: what was not written as sent is sent by a later one.
"""

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator
from typing import Generic, TypeVar

from db.feed import EventFeed
from workers.background import BackgroundLoop

log = logging.getLogger("pressroom.outbox")

MIN_ROUND_SECONDS = 0.5

Client = TypeVar("Client")


class OutboxLoop(BackgroundLoop, Generic[Client]):
    """Runs `round(client)` as the feed advances, within one `session()` for its life."""

    def __init__(self, feed: EventFeed, poll_seconds: float) -> None:
        super().__init__()
        self.advanced = feed.advancing()
        self.poll_seconds = poll_seconds
        # Who holds a lease: this process, for as long as it runs.
        self.owner = secrets.token_hex(8)
        self.rounds = 0
        # Attempts written so far, and a condition told of each.
        self.written = 0
        self._written = asyncio.Condition()

    def session(self) -> contextlib.AbstractAsyncContextManager[Client]:
        raise NotImplementedError

    async def round(self, client: Client) -> None:
        raise NotImplementedError

    async def wrote(self, count: int) -> None:
        """`count` more attempts written: whoever waits on them looks again."""
        self.written += count
        async with self._written:
            self._written.notify_all()

    async def written_past(self, count: int) -> None:
        """Until more than `count` attempts have been written."""
        async with self._written:
            await self._written.wait_for(lambda: self.written > count)

    async def _run(self) -> None:
        async with self.session() as client:
            while True:
                began = time.monotonic()
                self.advanced.clear()
                try:
                    self.rounds += 1
                    await self.round(client)
                except Exception as error:
                    log.warning("%s round failed: %r", self.name, error)
                await asyncio.sleep(max(0.0, began + MIN_ROUND_SECONDS - time.monotonic()))
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.poll_seconds):
                        await self.advanced.wait()


@contextlib.asynccontextmanager
async def no_session() -> AsyncIterator[None]:
    """For an outbox that connects afresh each round."""
    yield None
