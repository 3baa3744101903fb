"""Work waiting for customers to approve their proofs: a department's tasks (the wall
display shows them beside the queue), and the orders whose proof waits."""

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


async def oldest_order_awaiting_customer(conn: AsyncConnection) -> int | None:
    """The oldest open work order whose latest proof version waits for the customer."""
    found = await conn.scalar(Q["oldest_order_awaiting_customer"])
    return int(found) if found is not None else None
