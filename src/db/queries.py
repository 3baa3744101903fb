"""Loads the named statements of queries.sql as SQLAlchemy `text()` constructs.

Keeping every statement in one file makes the SQL reviewable as SQL: a claim is
one guarded statement you can read top to bottom. The busiest paths run theirs through
asyncpg itself (`fetch_native`), on the same connection and in the same transaction.
"""

import functools
import re
from pathlib import Path
from typing import Any

import asyncpg
import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import asyncpg as asyncpg_dialect
from sqlalchemy.ext.asyncio import AsyncConnection

from db.engine import begin, driver_adapter, through_driver

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
    order."""
    compiled = Q[name].compile(dialect=asyncpg_dialect.dialect())  # type: ignore[no-untyped-call]
    return compiled.string, tuple(compiled.positiontup or ())


class Record(asyncpg.Record):  # type: ignore[misc]
    """A row read through asyncpg itself: fields by name (`row["id"]`) and, like the rows
    of SQLAlchemy's `execute`, by attribute (`row.id`)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


async def fetch_native(conn: AsyncConnection, name: str, **params: Any) -> list[Any]:
    """Rows of a named statement, run by asyncpg on `conn`'s own connection (inside its
    transaction, if any) without SQLAlchemy's work per statement (a one-row SELECT, measured
    on a 2-core VM: 130 against 51 µs of CPU). For the paths where that counts: a task's
    move and the settlement of its work order, the legacy import's bulk reads. Read by
    attribute, as SQLAlchemy's rows are: an engine made not to go `through_driver` runs
    the statement through SQLAlchemy instead."""
    if not through_driver(conn):
        return list((await conn.execute(Q[name], params)).all())
    sql, order = native(name)
    # In a SQLAlchemy transaction (not a unit of work's, which starts its own), the adapter
    # sends BEGIN with the first statement it runs itself, so a first statement run here
    # would commit on its own: start it as the adapter does, under the adapter's lock
    # (tests/integration/test_native_statements.py).
    adapter = driver_adapter(conn)
    if conn.in_transaction() and adapter._transaction is None:
        await begin(conn, adapter)
    async with adapter._execute_mutex:
        rows: list[Record] = await adapter._connection.fetch(
            sql, *(params[k] for k in order), record_class=Record
        )
    return rows


def in_transaction(conn: AsyncConnection) -> bool:
    """Whether the statements `fetch_native` runs on `conn` share one transaction: a unit
    of work's, or one SQLAlchemy began on a connection that is not in autocommit mode."""
    if not through_driver(conn):
        return conn.in_transaction()
    adapter = driver_adapter(conn)
    return adapter._transaction is not None or (conn.in_transaction() and not adapter.autocommit)
