"""Durable timers: rows armed in the transaction of the change that arms them, fired once
by whichever server process claims them first.

A work order's due date arms WORK_ORDER_DUE_SOON and WORK_ORDER_LATE (`arm_order`); a
task's start arms TASK_STALE (in `transition_task`'s own statement). Every process runs a
`TimerLoop`: it claims due rows with FOR UPDATE SKIP LOCKED and, in the same transaction,
marks each fired and writes its events (`fire_due_timers` in queries.sql), then pokes the
feed. A timer whose subject moved since it was armed (the order completed, cancelled or
rescheduled; the task finished or released) fires no event. A process that was down at
a due time fires on start: the rows wait for it.
"""

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from db.background import BackgroundLoop
from db.engine import unit_of_work
from db.feed import EventFeed
from db.queries import Q

log = logging.getLogger(__name__)

DUE_SOON = timedelta(hours=24)
STALE_AFTER = timedelta(hours=8)
# How many due timers one transaction fires. A burst is fired batch after batch, with a
# pause between them in which the floor's own work goes first: under 2,000 timers a
# second per process, so that 5,000 falling due at once fire within about 4 s while task
# moves keep 0.84 of their rate (back to back, 500 a batch: 0.6 s, but 0.59 of the rate;
# bench/timers.py).
BATCH = 100
PAUSE = 0.05


async def arm_order(
    conn: AsyncConnection, work_order_id: int, due_at: datetime | None, due_soon: timedelta
) -> None:
    """The order's due-date timers for `due_at` (none for no date), in the caller's
    transaction."""
    params = {
        "work_order_id": work_order_id,
        "due_at": due_at,
        "soon_seconds": due_soon.total_seconds(),
    }
    await conn.execute(Q["arm_order_timers"], params)


@dataclass(frozen=True)
class Firing:
    fired: int
    # Seconds until the next unfired timer falls due (None: none is armed).
    next_in: float | None


async def fire_due(conn: AsyncConnection, limit: int = BATCH) -> Firing:
    """Fire up to `limit` due timers in the caller's transaction."""
    row = (await conn.execute(Q["fire_due_timers"], {"limit": limit})).one()
    return Firing(int(row.fired), None if row.next_in is None else float(row.next_in))


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
