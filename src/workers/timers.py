"""The timer loop of one server process: fires the durable timers (db/timers.py) as they
fall due."""

import asyncio
import contextlib
import logging

from sqlalchemy.ext.asyncio import AsyncEngine

from db.engine import unit_of_work
from db.feed import EventFeed
from db.timers import BATCH, fire_due
from workers.background import BackgroundLoop

log = logging.getLogger(__name__)

# A burst is fired batch after batch (db.timers.BATCH each), with a pause between them in
# which the floor's own work goes first: under 2,000 timers a second per process, so that
# 5,000 falling due at once fire within about 4 s while task moves keep 0.84 of their
# rate (back to back, 500 a batch: 0.6 s, but 0.59 of the rate; bench/timers.py).
PAUSE = 0.05


class TimerLoop(BackgroundLoop):
    """Fires due timers, then sleeps until the next one falls due or `poll` seconds pass,
    whichever is sooner, or until a timer is armed within the minute here or in another
    process (the arming statement's NOTIFY, heard by the feed's listener). Commits that
    arm nothing due soon do not wake it: under load it stays one look per poll."""

    name = "timers"

    def __init__(self, engine: AsyncEngine, feed: EventFeed, poll: float = 1.0) -> None:
        super().__init__()
        self.engine = engine
        self.feed = feed
        self.poll = poll
        self.fired = 0
        # Looks at the table so far (each a transaction, a burst's batches one look).
        self.rounds = 0
        # Set while the loop sleeps (a stop then finds it there).
        self.idle = asyncio.Event()

    async def _run(self) -> None:
        while True:
            sleep = self.poll
            try:
                next_in = await self.fire_all()
                if next_in is not None:
                    sleep = min(sleep, next_in)
            except Exception as error:
                # The rows wait: the next round fires them (the database may be restarting).
                log.warning("firing timers failed: %r", error)
            # Not asyncio.wait_for: on Python 3.11 it swallows a cancellation that arrives as
            # the event is set (python/cpython#86296), and stop() would wait forever.
            self.idle.set()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(sleep):
                    await self.feed.timer_armed.wait()
            self.idle.clear()
            self.feed.timer_armed.clear()

    async def fire_all(self) -> float | None:
        """Every timer due now, batch after batch; seconds until the next one is due."""
        self.rounds += 1
        while True:
            async with unit_of_work(self.engine) as conn:
                firing = await fire_due(conn)
            self.fired += firing.fired
            if firing.fired:
                self.feed.poke()
            if firing.fired < BATCH:
                return firing.next_in
            await asyncio.sleep(PAUSE)
