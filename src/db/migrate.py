"""Running the Alembic revisions, which are the only source of the schema."""

import asyncio
from datetime import timedelta
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from db.queries import Q

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"
# Several server processes may boot at once; one migrates (migrations/env.py takes this
# advisory lock), the others wait.
MIGRATION_LOCK = 0x7072657373  # "press"


def alembic_config(
    url: str,
    *,
    grant_to: str | None = None,
    retention: timedelta | None = None,
    pgbouncer: bool = False,
) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["url"] = url
    cfg.attributes["grant_to"] = grant_to
    cfg.attributes["pgbouncer"] = pgbouncer
    cfg.attributes["retention"] = retention
    return cfg


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config("")).get_current_head()
    assert head is not None
    return head


def upgrade_sync(
    url: str,
    revision: str = "head",
    *,
    grant_to: str | None = None,
    retention: timedelta | None = None,
    pgbouncer: bool = False,
) -> None:
    """Migrate the database of `url`; then, with `grant_to`, give that role the server's
    rights on the schema (db.roles), and with `retention`, record it as the shortest the
    server's role may prune events at (db.retention), in the same transaction. With
    `pgbouncer`, `url` is a PgBouncer in transaction mode: the migration is one
    transaction, so it runs on one server connection, and its engine prepares nothing to
    outlive it (db.engine)."""
    command.upgrade(
        alembic_config(url, grant_to=grant_to, retention=retention, pgbouncer=pgbouncer),
        revision,
    )


async def upgrade(
    url: str,
    revision: str = "head",
    *,
    grant_to: str | None = None,
    retention: timedelta | None = None,
    pgbouncer: bool = False,
) -> None:
    # Alembic's async env runs its own event loop, so it gets a thread of its own.
    await asyncio.to_thread(
        upgrade_sync, url, revision, grant_to=grant_to, retention=retention, pgbouncer=pgbouncer
    )


async def current_revision(conn: AsyncConnection) -> str | None:
    exists = await conn.scalar(text("SELECT to_regclass('public.alembic_version') IS NOT NULL"))
    if not exists:
        return None
    revision: str | None = await conn.scalar(text("SELECT version_num FROM alembic_version"))
    return revision


async def readiness(engine: AsyncEngine) -> tuple[bool, bool]:
    """Whether the database answers, and whether it is at the migrations' head."""
    try:
        async with engine.connect() as conn:
            await conn.execute(Q["ping"])
            revision = await current_revision(conn)
    except Exception:
        return False, False
    return True, revision == head_revision()
