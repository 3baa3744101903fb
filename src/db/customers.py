"""Customers. Their balance is derived from the ledger, never stored."""

from typing import Any

from sqlalchemy import Row
from sqlalchemy.ext.asyncio import AsyncConnection

from db.queries import Q


async def create_customer(conn: AsyncConnection, name: str, created_by: int) -> Row[Any]:
    return (
        await conn.execute(Q["insert_customer"], {"name": name, "created_by": created_by})
    ).one()
