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

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncConnection

from db.queries import Q

DUE_SOON = timedelta(hours=24)
STALE_AFTER = timedelta(hours=8)
# How many due timers one transaction fires (workers/timers.py paces the batches).
BATCH = 100


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
