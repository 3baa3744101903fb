"""The exports' rows, streamed: a server-side cursor in one read-only snapshot, handed out
a batch at a time, so a year of history never sits in memory whole."""

from collections.abc import AsyncIterator, Sequence
from typing import Any

from sqlalchemy import RowMapping
from sqlalchemy.ext.asyncio import AsyncEngine

from db.engine import one_snapshot
from db.queries import Q

BATCH = 2000


async def stream(
    engine: AsyncEngine, name: str, params: dict[str, Any]
) -> AsyncIterator[Sequence[RowMapping]]:
    """Batches of the rows of statement `name` (export_work_orders, export_task_transitions,
    export_ledger); the connection is held until the last batch is taken or the stream is
    closed."""
    async with one_snapshot(engine) as conn:
        result = await conn.stream(Q[name].execution_options(yield_per=BATCH), params)
        async for batch in result.mappings().partitions(BATCH):
            yield batch
