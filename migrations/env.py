"""Alembic environment (async). The URL comes from the caller (db.migrate)."""

import asyncio

from alembic import context
from sqlalchemy import text
from sqlalchemy.engine import Connection

from db.engine import create_engine
from db.migrate import MIGRATION_LOCK
from db.retention import record
from db.roles import grant_server_role
from db.tables import metadata


def run_sync(connection: Connection) -> None:
    connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
    context.configure(
        connection=connection,
        target_metadata=metadata,
        transaction_per_migration=False,
    )
    with context.begin_transaction():
        context.run_migrations()
        # Under the same lock: concurrent GRANTs on one table fail ("tuple concurrently updated").
        grant_to = context.config.attributes.get("grant_to")
        if grant_to:
            grant_server_role(connection, grant_to)
        retention = context.config.attributes.get("retention")
        if retention is not None:
            record(connection, retention)


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
