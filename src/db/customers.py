"""Customers. Their balance is derived from the ledger, never stored."""

from sqlalchemy.ext.asyncio import AsyncConnection

from db.queries import Q
from db.rows import CustomerRow


async def create_customer(conn: AsyncConnection, name: str, created_by: int) -> CustomerRow:
    params = {"name": name, "created_by": created_by}
    return CustomerRow.of((await conn.execute(Q["insert_customer"], params)).one())
