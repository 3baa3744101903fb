"""Alembic environment (async). The URL comes from the caller (db.migrate)."""

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from db.engine import create_engine
from db.queries import Q
from db.roles import MIGRATION_LOCK, settle
from db.tables import metadata


def run_sync(connection: Connection) -> None:
    connection.execute(Q["migration_lock"], {"key": MIGRATION_LOCK})
    context.configure(
        connection=connection,
        target_metadata=metadata,
        transaction_per_migration=False,
    )
    with context.begin_transaction():
        context.run_migrations()
        attributes = context.config.attributes
        settle(
            connection, grant_to=attributes.get("grant_to"), retention=attributes.get("retention")
        )


async def run_online() -> None:
    attributes = context.config.attributes
    engine = create_engine(
        attributes["url"], pool_size=1, max_overflow=0, pgbouncer=attributes.get("pgbouncer", False)
    )
    try:
        async with engine.begin() as conn:
            await conn.run_sync(run_sync)
    finally:
        await engine.dispose()


asyncio.run(run_online())
