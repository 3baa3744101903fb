"""The work a department will have once customers approve their proofs: for the wall
display, which shows it beside the queue."""

from sqlalchemy.ext.asyncio import AsyncConnection

from db.queries import Q
from db.rows import TaskRow
from domain.enums import ProofStatus
from domain.routing import awaits_proof


async def awaiting_proof(conn: AsyncConnection, department_id: int, limit: int) -> list[TaskRow]:
    """The department's tasks waiting for the customer's approval of their order's latest
    proof (domain.routing.awaits_proof), the earliest due first, at most `limit`."""
    rows = await conn.execute(Q["awaiting_proof"], {"department_id": department_id, "limit": limit})
    return [
        TaskRow.pick(row)
        for row in rows
        if awaits_proof(True, True, ProofStatus(row.latest_proof) if row.latest_proof else None)
    ]
