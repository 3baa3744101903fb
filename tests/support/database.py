"""The test databases: an empty one of its own, a digest of every table to prove a request
wrote nothing, a work order's task ids, the statements a piece of work sends, the event
listeners to kill, the embedded PostgreSQL's processes, and PgBouncer where it is installed."""

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest
from sqlalchemy import event, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from db import admin, embedded, pgbouncer
from db.engine import create_engine
from db.feed import LISTENER_NAME, TASK_PREFIX
from db.tables import metadata


async def recreate_test_database(url: str) -> None:
    """An empty database, whose commits do not wait for the write-ahead log to reach the
    disk: tests commit thousands of small transactions, and a lost commit matters only
    if the test server itself crashes, which ends the run anyway. What other sessions
    see, and when, is unchanged: a commit is visible the moment it returns."""
    await admin.recreate_database(url)
    engine = create_engine(url, pool_size=1, max_overflow=0)
    try:
        async with engine.begin() as conn:
            name = make_url(url).database
            await conn.execute(text(f'ALTER DATABASE "{name}" SET synchronous_commit = off'))
    finally:
        await engine.dispose()


@contextlib.asynccontextmanager
async def scratch_database(server_url: str, prefix: str) -> AsyncIterator[str]:
    """An empty database of its own on the test server, dropped afterwards."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    url = embedded.with_database(server_url, f"{prefix}_{worker}_{os.getpid()}")
    await recreate_test_database(url)
    try:
        yield url
    finally:
        await admin.drop_database(url)


# Every table of the schema but the sign-in counters, digested by tests that prove a
# request wrote nothing: a refused sign-in is counted there by design, and is no data of
# the shop's. (clean_db empties them all.)
# Nor what the webhook relay writes in the background, whatever requests come: its
# deliveries, and its hold on each webhook (the lease, and its place in the event log).
TABLES = tuple(t for t in metadata.tables if t not in ("rate_limit_hits", "webhook_deliveries"))
RELAY_COLUMNS = {"webhooks": {"lease_owner", "lease_until", "cursor_xid", "cursor_id"}}

Snapshot = dict[str, tuple[int, str]]


async def table_snapshot(engine: AsyncEngine) -> Snapshot:
    """Row count and a digest of every row of every table: any insert, update or delete shows."""
    async with engine.connect() as conn:
        # Tables of later migrations are absent from a database migrated to an older one.
        found = set(await conn.scalars(text("SELECT tablename FROM pg_tables")))
        digests = []
        for table in (t for t in TABLES if t in found):
            # The relay's columns left out; every other table as it is (a database migrated
            # to an older revision has older columns).
            skipped = RELAY_COLUMNS.get(table)
            rows = table
            if skipped:
                kept = [
                    f'"{c.name}"' for c in metadata.tables[table].columns if c.name not in skipped
                ]
                rows = f"(SELECT {', '.join(kept)} FROM {table})"
            digests.append(
                f"SELECT '{table}', count(*), coalesce(md5(string_agg(CAST(x AS text), '|' "
                f"ORDER BY CAST(x AS text))), '') FROM {rows} x"
            )
        # Every table in one statement: tests take thousands of snapshots.
        result = await conn.execute(text(" UNION ALL ".join(digests)))
        return {str(row[0]): (int(row[1]), str(row[2])) for row in result}


async def kill_listeners(engine: AsyncEngine) -> int:
    """Terminates this database's event listeners (not other test workers'); how many."""
    async with engine.connect() as conn:
        killed = await conn.scalar(
            text(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE application_name = :name AND datname = current_database()"
            ),
            {"name": LISTENER_NAME},
        )
    return int(killed or 0)


async def task_ids(engine: AsyncEngine, order: int) -> dict[str, int]:
    """A work order's task ids by department code."""
    async with engine.connect() as conn:
        rows = await conn.execute(
            text(
                "SELECT d.code, t.id FROM department_tasks t "
                "JOIN departments d ON d.id = t.department_id WHERE t.work_order_id = :o"
            ),
            {"o": order},
        )
        return {r.code: r.id for r in rows}


def postgres_processes(data_dir: Path) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["name", "cmdline"]):
        cmdline = proc.info["cmdline"] or []
        if proc.info["name"] == "postgres" and any(str(data_dir) in part for part in cmdline):
            found.append(proc)
    return found


# For the modules that run Debian's PgBouncer: skipped, saying why, where it is missing.
needs_pgbouncer = pytest.mark.skipif(
    not pgbouncer.installed(),
    reason="pgbouncer is not installed: apt-get install pgbouncer (scripts/test does)",
)


@contextmanager
def counting(engine: AsyncEngine) -> Iterator[list[str]]:
    """The statements run on `engine` meanwhile, but for those of src/db's background tasks
    (named with TASK_PREFIX): the feed reads whenever events commit, the timer loop at its
    poll."""
    statements: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        task = asyncio.current_task()
        if task is None or not task.get_name().startswith(TASK_PREFIX):
            statements.append(statement)

    event.listen(engine.sync_engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", record)
