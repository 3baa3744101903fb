"""What a dashboard page costs beside its answer (bench/dashboard.py): the CPU of each
group of processes over a window, and the database statements or transactions per page."""

import asyncio
import contextlib
import re
import time
from collections.abc import Callable
from typing import Any, Protocol

import asyncpg
import psutil

from bench.dashboard_page import PageClients
from bench.statements import StatementCounter

# --- CPU --------------------------------------------------------------------------------


Readings = dict[object, float]


def _seconds(process: psutil.Process) -> float:
    times = process.cpu_times()
    return float(times.user + times.system)


def tree_cpu(pid: int | None) -> Readings | None:
    """CPU seconds used so far by a process, by each of its live descendants, and by the
    children it has reaped; None when unknown."""
    if pid is None:
        return None
    try:
        root = psutil.Process(pid)
        times = root.cpu_times()
        readings: Readings = {
            pid: times.user + times.system,
            "reaped": times.children_user + times.children_system,
        }
        children = root.children(recursive=True)
    except psutil.Error:
        return None
    for child in children:
        with contextlib.suppress(psutil.Error):
            readings[child.pid] = _seconds(child)
    return readings


def backends_cpu(postmaster_pid: int | None, database: str) -> Readings | None:
    """CPU seconds used so far by each PostgreSQL backend connected to `database` (its
    process title names it): the bench database's share of a server that other
    benchmarks may be using too. None when the postmaster is unknown (an outside server)."""
    if postmaster_pid is None:
        return None
    try:
        children = psutil.Process(postmaster_pid).children()
    except psutil.Error:
        return None
    readings: Readings = {}
    for child in children:
        with contextlib.suppress(psutil.Error):
            if database in " ".join(child.cmdline()).split():
                readings[child.pid] = _seconds(child)
    return readings


class Meter(Protocol):
    """CPU of groups of processes over a window, in cores (bench.stats.CpuMeter)."""

    def start(self) -> None: ...

    def stop(self) -> dict[str, float]: ...


# A Meter for one window, given the servers' pids by name ("pressroom", "postgraphile").
MeterFactory = Callable[[dict[str, int | None]], Meter]


def weighted_cores(samples: list[tuple[float, dict[str, float]]]) -> dict[str, float]:
    """Cores of several windows as one, each window weighing as long as it lasted."""
    seconds = sum(elapsed for elapsed, _ in samples)
    if seconds <= 0:
        return {}
    keys = sorted({key for _, cores in samples for key in cores})
    return {
        key: round(sum(elapsed * cores.get(key, 0.0) for elapsed, cores in samples) / seconds, 2)
        for key in keys
    }


class CpuWatch:
    """CPU seconds of groups of processes over a phase. What a process used before the
    phase is taken off; a process that started during it counts in full, one that ended
    during it is lost (both rare here: the servers keep their connections)."""

    def __init__(self, groups: dict[str, Callable[[], Readings | None]]) -> None:
        self.groups = groups
        self.base: dict[str, Readings | None] = {}

    def start(self) -> None:
        self.base = {name: read() for name, read in self.groups.items()}

    def stop(self) -> dict[str, float | None]:
        used: dict[str, float | None] = {}
        for name, read in self.groups.items():
            now, base = read(), self.base.get(name)
            if now is None or base is None:
                used[name] = None
            else:
                used[name] = sum(value - base.get(key, 0.0) for key, value in now.items())
        return used


# --- database round trips ---------------------------------------------------------------

# What Pressroom's event feed sends in the background, whatever the requests do: reads of
# the `events` table, its lag check (pg_stat_activity), its NOTIFY, and its listener's
# probe (`SELECT 1`; its constant may show as `$1`). No request of the page sends them.
BACKGROUND = re.compile(
    r"\bevents\b|pg_notify|pg_stat_activity|^\s*SELECT (?:1|\$1)\s*;?\s*$", re.IGNORECASE
)


async def count_statements(
    counter: StatementCounter, clients: PageClients, pages: int
) -> dict[str, Any]:
    """Statements of `pages` pages asked one after the other, the feed's apart."""
    await counter.reset()
    run = await clients.run(seconds=600, pages=pages)
    # The statistics are written as each statement ends; a moment for the last ones.
    await asyncio.sleep(0.3)
    counted: list[dict[str, Any]] = []
    background: list[dict[str, Any]] = []
    for calls, shown in await counter.executed():
        query = " ".join(shown.split())
        kept = background if BACKGROUND.search(query) else counted
        kept.append({"calls": calls, "query": query[:300]})
    total = sum(s["calls"] for s in counted)
    return {
        "pages": run.pages,
        "errors": run.errors,
        "first_error": run.first_error,
        "per_page": round(total / run.pages, 2) if run.pages else None,
        "statements": counted,
        "background_left_out": background,
    }


async def transactions_per_page(dsn: str, clients: PageClients, pages: int) -> dict[str, Any]:
    """Without pg_stat_statements: transactions (xact_commit + xact_rollback of
    pg_stat_database) per page, less what an idle window of the same length shows (the
    feed's background reads). Not statements: a transaction may hold several. Backends
    report these statistics with a delay, so the figure is approximate."""
    conn = await asyncpg.connect(dsn)
    query = (
        "SELECT xact_commit + xact_rollback FROM pg_stat_database "
        "WHERE datname = current_database()"
    )
    try:
        settle = 1.5
        await asyncio.sleep(settle)
        t0, before = time.perf_counter(), int(await conn.fetchval(query))
        run = await clients.run(seconds=600, pages=pages)
        await asyncio.sleep(settle)
        busy_seconds, during = time.perf_counter() - t0, int(await conn.fetchval(query))
        t1 = time.perf_counter()
        await asyncio.sleep(busy_seconds)
        idle = int(await conn.fetchval(query)) - during
        idle_rate = idle / (time.perf_counter() - t1)
    finally:
        await conn.close()
    # Minus the counter's own two reads.
    total = during - before - 2 - idle_rate * busy_seconds
    return {
        "pages": run.pages,
        "transactions_per_page": round(total / run.pages, 2) if run.pages else None,
    }
