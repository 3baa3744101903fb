"""Creating and dropping whole databases (the app's, and the per-worker test ones)."""

import contextlib

import asyncpg
from sqlalchemy.engine import make_url


def _dsn(url: str, database: str | None = None) -> str:
    parsed = make_url(url).set(drivername="postgresql")
    if database is not None:
        parsed = parsed.set(database=database)
    return parsed.render_as_string(hide_password=False)


async def ensure_database(url: str, owner: str | None = None) -> None:
    """Create the database named in `url` if it does not exist yet (owned by `owner`)."""
    name = make_url(url).database
    assert name
    conn = await asyncpg.connect(_dsn(url, "postgres"))
    try:
        exists = await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name)
        if not exists:
            owned = f' OWNER "{owner}"' if owner else ""
            # Another process starting at the same moment may create it first.
            with contextlib.suppress(asyncpg.DuplicateDatabaseError):
                await conn.execute(f'CREATE DATABASE "{name}"{owned}')
    finally:
        await conn.close()


async def recreate_database(url: str) -> None:
    name = make_url(url).database
    assert name
    conn = await asyncpg.connect(_dsn(url, "postgres"))
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()


async def drop_database(url: str) -> None:
    name = make_url(url).database
    assert name
    conn = await asyncpg.connect(_dsn(url, "postgres"))
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()
