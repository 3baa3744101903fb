"""Loads the named statements of queries.sql as SQLAlchemy `text()` constructs.

Keeping every statement in one file makes the SQL reviewable as SQL: a claim is
one guarded statement you can read top to bottom.
"""

import functools
import re
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import asyncpg as asyncpg_dialect
from sqlalchemy.ext.asyncio import AsyncConnection

_NAME = re.compile(r"^-- name: (\w+)\s*$", re.MULTILINE)


def _load(path: Path) -> dict[str, sa.TextClause]:
    source = path.read_text()
    parts = _NAME.split(source)
    statements: dict[str, sa.TextClause] = {}
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        if name in statements:
            raise ValueError(f"statement {name!r} is defined twice in {path.name}")
        statements[name] = sa.text(body.strip())
    return statements


Q = _load(Path(__file__).with_name("queries.sql"))


@functools.cache
def native(name: str) -> tuple[str, tuple[str, ...]]:
    """A statement as asyncpg takes it ($1, $2, ...) with the names of its parameters in
    order, for bulk paths that skip SQLAlchemy's per-row work (the legacy import, the feed)."""
    compiled = Q[name].compile(dialect=asyncpg_dialect.dialect())  # type: ignore[no-untyped-call]
    return compiled.string, tuple(compiled.positiontup or ())


async def fetch_native(conn: AsyncConnection, name: str, **params: Any) -> list[Any]:
    """Rows of a named statement as asyncpg records (fields by name: `row["id"]`)."""
    sql, order = native(name)
    raw = await conn.get_raw_connection()
    driver: Any = raw.driver_connection
    rows: list[Any] = await driver.fetch(sql, *(params[k] for k in order))
    return rows
