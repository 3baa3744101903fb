"""Running the Alembic revisions, which are the only source of the schema.

Alembic is imported only when a database is behind: with Mako and Pygments it is a fifth
of a server's start, and a server mostly starts on a database at the head already.
"""

import asyncio
from datetime import timedelta
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from db.engine import create_engine
from db.queries import Q
from db.roles import MIGRATION_LOCK, settle

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"


def alembic_config(
    url: str,
    *,
    grant_to: str | None = None,
    retention: timedelta | None = None,
    pgbouncer: bool = False,
) -> "Config":
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["url"] = url
    cfg.attributes["grant_to"] = grant_to
    cfg.attributes["pgbouncer"] = pgbouncer
    cfg.attributes["retention"] = retention
    return cfg


@cache
def head_revision() -> str:
    """The newest revision, read from the file names: each revision is its file's number
    (0001_initial_schema.py is "0001") and follows the one before
    (tests/unit/test_migration_files.py holds Alembic's reading of them to that)."""
    return max(path.name[:4] for path in (MIGRATIONS / "versions").glob("[0-9]" * 4 + "_*.py"))


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
    from alembic import command

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
    if revision == "head" and await _settled_at_head(
        url, grant_to=grant_to, retention=retention, pgbouncer=pgbouncer
    ):
        return
    # Alembic's async env runs its own event loop, so it gets a thread of its own.
    await asyncio.to_thread(
        upgrade_sync, url, revision, grant_to=grant_to, retention=retention, pgbouncer=pgbouncer
    )


async def _settled_at_head(
    url: str, *, grant_to: str | None, retention: timedelta | None, pgbouncer: bool
) -> bool:
    """At the head, what a migration would do is only its `settle`: done here in one
    transaction under the same lock, and True. Behind (or empty): False, nothing done."""
    engine = create_engine(url, pool_size=1, max_overflow=0, pgbouncer=pgbouncer)
    try:
        async with engine.connect() as conn, conn.begin() as transaction:
            await conn.execute(Q["migration_lock"], {"key": MIGRATION_LOCK})
            if await current_revision(conn) != head_revision():
                await transaction.rollback()
                return False
            await conn.run_sync(settle, grant_to=grant_to, retention=retention)
            return True
    finally:
        await engine.dispose()


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
