"""The retention loop of one server process: prunes the event log past the retention
(db/retention.py), at start and then every hour."""

import asyncio
import logging
from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncEngine

from db.engine import unit_of_work
from db.retention import BATCH, prune
from workers.background import BackgroundLoop

log = logging.getLogger(__name__)

# Between batches the floor's own work goes first.
PAUSE = 0.1
# How often a process looks for events past the retention (and once at start).
EVERY = 3600.0


class PruneLoop(BackgroundLoop):
    """Prunes the log past `keep` batch after batch, at start and then every `every`
    seconds."""

    name = "retention"

    def __init__(self, engine: AsyncEngine, keep: timedelta, every: float = EVERY) -> None:
        super().__init__()
        self.engine = engine
        self.keep = keep
        self.every = every
        self.pruned = 0
        # Set while the loop sleeps: a round of anyone else's then meets no round of its.
        self.idle = asyncio.Event()

    async def _run(self) -> None:
        while True:
            try:
                await self.prune_all()
            except Exception as error:
                # The events wait: the next round prunes them (the database may be restarting).
                log.warning("pruning the event log failed: %r", error)
            self.idle.set()
            await asyncio.sleep(self.every)
            self.idle.clear()

    async def prune_all(self) -> int | None:
        """Every event past the retention, batch after batch; how many went, or None when
        another process was pruning."""
        total: int | None = None
        while True:
            async with unit_of_work(self.engine, transaction=False) as conn:
                pruned = await prune(conn, self.keep)
            if pruned is None:
                return total
            total = (total or 0) + pruned
            self.pruned += pruned
            if pruned < BATCH:
                if total:
                    log.info("pruned %d events older than %s from the log", total, self.keep)
                return total
            await asyncio.sleep(PAUSE)
