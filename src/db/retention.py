"""Event-log retention: events older than PRESSROOM_EVENT_RETENTION_DAYS leave the log.

The log is pruned from its start, in (xid, id) order, by `prune_events()` (migrations
0015 and 0017), which runs as the schema's owner: the server's role may only read and
append to events, and through it can delete nothing younger than the retention the owner
recorded when it migrated (`record`; the owner itself, nothing younger than a day). Each
call deletes one batch in its own short transaction, up to the first event it must keep,
and records that last event pruned (`events.pruned_through`): what is left is whole after
it, so a cursor at or past it replays with no gap, and one before it has expired
(CURSOR_EXPIRED, a new snapshot is the way back). Enabled webhooks hold the log back at
their cursors and pending deliveries; disabled ones do not.

Every process runs a `PruneLoop`; one at a time prunes: the function takes a
transaction-level advisory lock, and a process that finds it taken leaves the round to
its holder.
"""

from datetime import timedelta

from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection

from db.queries import Q

# Events one transaction deletes: about 10 ms of work (200,000 events laid out 100 days
# back, here), so 1.5 million, a year's backlog, go in about a minute and a half.
BATCH = 2000


async def prune(conn: AsyncConnection, keep: timedelta, batch: int = BATCH) -> int | None:
    """Delete up to `batch` of the oldest events older than `keep`; how many went, or None
    when another process is pruning. One statement: it needs no transaction of its own."""
    params = {"keep_seconds": keep.total_seconds(), "batch": batch}
    pruned = (await conn.execute(Q["prune_events"], params)).scalar_one()
    return None if pruned is None else int(pruned)


def record(connection: Connection, keep: timedelta) -> None:
    """As the owner, in its migration's transaction: `keep` is the shortest retention
    prune_events() takes from any other role (the server's). The server's role migrating
    alone leaves the owner's as it is."""
    if connection.scalar(Q["may_record_event_retention"]):
        connection.execute(Q["record_event_retention"], {"keep_seconds": keep.total_seconds()})
