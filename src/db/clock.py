"""The shop's clock: every stored time is stamped by `pressroom_now()` in the database,
the transaction's own time unless it was set back to a moment already past."""

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncConnection

from db.queries import Q


async def stamp_as_of(conn: AsyncConnection, at: datetime) -> None:
    """Stamp what the open transaction writes at `at`, not at its own time: for laying out
    a history that took hours (the demo shop's). The database refuses a moment to come
    at the first write."""
    await conn.execute(Q["stamp_as_of"], {"at": at.isoformat()})
