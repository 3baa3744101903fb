"""Proof versions of a work order: their rows, and their bytes kept in parts (proof_chunks)."""

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncConnection

from db.queries import Q
from db.rows import ProofRow


async def proofs(conn: AsyncConnection, ids: Sequence[int]) -> list[ProofRow]:
    return ProofRow.all(await conn.execute(Q["proofs_by_id"], {"ids": list(ids)}))


async def proofs_of_work_orders(conn: AsyncConnection, ids: Sequence[int]) -> list[ProofRow]:
    """Each order's versions, newest first."""
    return ProofRow.all(await conn.execute(Q["proofs_of_work_orders"], {"ids": list(ids)}))
