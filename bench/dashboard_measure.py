"""The dashboard page's measurement (bench/dashboard.py's, and bench.run's part 5): both
servers' pages checked alike, pages/s and CPU per page in turns of short windows, and
database round trips per page; with the targets they are held to."""

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
from sqlalchemy.engine import make_url

from bench import fixture
from bench.dashboard_costs import (
    CpuWatch,
    MeterFactory,
    backends_cpu,
    count_statements,
    transactions_per_page,
    tree_cpu,
    weighted_cores,
)
from bench.dashboard_page import (
    DASHBOARD_PAGE,
    PAGE_SIZE,
    POSTGRAPHILE_FIELDS,
    POSTGRAPHILE_PAGE,
    PRESSROOM_FIELDS,
    PageClients,
    PageRun,
    Target,
    check_page,
    target,
)
from bench.load import HTTP_ERRORS
from bench.output import console, log
from bench.postgraphile_server import (
    POSTGRAPHILE_CACHE,
    POSTGRAPHILE_OPTIONS,
    PostGraphileProcess,
    install_postgraphile,
    pinned_postgraphile,
)
from bench.statements import EXTENSION, StatementCounter
from bench.stats import percentile, ratio
from domain.enums import DepartmentKind

TARGET_ROUND_TRIPS = 3
# The server's environment for this measurement: every page executed. With nothing
# written, the read cache would answer all but the first (its bench, with writes:
# bench/read_cache.py).
READS_EXECUTED = {"PRESSROOM_READ_CACHE": "false"}
TARGET_CPU_MS = 15.0
TARGET_RATIO = 0.5


def ms_per_page(cpu_seconds: float | None, pages: int) -> float | None:
    return round(cpu_seconds * 1000 / pages, 2) if cpu_seconds is not None and pages else None


def percentile_ms(values: list[float], q: float) -> float | None:
    value = percentile(values, q)
    return None if value is None else round(value * 1000, 2)


async def measure(
    url: str,
    http_url: str,
    token: str,
    server_pid: int | None,
    postmaster_pid: int | None,
    seconds: float,
    concurrency: tuple[int, ...] = (1, 8),
    *,
    rounds: int = 2,
    warmup_seconds: float | None = None,
    round_trip_pages: int = 50,
    postgraphile: bool = True,
    cache: Path = POSTGRAPHILE_CACHE,
    meter: MeterFactory | None = None,
) -> dict[str, Any]:
    """The dashboard page through Pressroom (at `http_url`, as the admin whose bearer
    token is `token`) and through PostGraphile 4 started here on the same database: at
    each concurrency, pages/s and server CPU per page, `seconds` of each in `rounds`
    alternating windows after a warm-up; then database round trips per page; then the
    ratios Pressroom / PostGraphile. The database must already hold more than a page of
    work orders with tasks (seed_orders), the newest of them (the page) made by
    seed_orders. With `meter`, each server's figures also hold "cpu_cores": what the
    meters made for its windows read, averaged over them."""
    dsn = fixture.dsn(url)
    warmup = warmup_seconds if warmup_seconds is not None else max(0.5, min(2.0, seconds / 4))
    results: dict[str, Any] = {
        "page_size": PAGE_SIZE,
        "seconds": seconds,
        "rounds": rounds,
        "warmup_seconds": warmup,
        "concurrency": list(concurrency),
    }
    conn = await asyncpg.connect(dsn)
    try:
        results["postgres"] = await conn.fetchval("SHOW server_version")
        delivery = await conn.fetchval(
            "SELECT id FROM departments WHERE kind = $1", DepartmentKind.DELIVERY.value
        )
        results["work_orders_in_database"] = await conn.fetchval("SELECT count(*) FROM work_orders")
    finally:
        await conn.close()

    targets = [
        target(
            "pressroom",
            http_url,
            DASHBOARD_PAGE,
            {"first": PAGE_SIZE},
            PRESSROOM_FIELDS,
            server_pid,
            token,
        )
    ]
    async with postgraphile_peer(dsn, delivery, postgraphile, cache) as (peer, peer_info):
        results["postgraphile"] = peer_info
        if peer is not None:
            targets.append(peer)
        results["pages"] = await check_pages(targets, peer_info)
        if peer_info["skipped"] and len(targets) > 1:
            targets = targets[:1]
        database = str(make_url(url).database)
        results["by_clients"] = await throughput(
            targets, postmaster_pid, database, seconds, concurrency, rounds, warmup, meter
        )
        results["round_trips"] = await round_trips(dsn, targets, round_trip_pages)
        if peer_info["skipped"]:
            # Its figures are there, None, beside Pressroom's.
            for figures in results["by_clients"].values():
                figures["postgraphile"] = dict.fromkeys(figures["pressroom"])
            results["round_trips"]["postgraphile"] = {"per_page": None}
    return results


@contextlib.asynccontextmanager
async def postgraphile_peer(
    dsn: str, delivery: int, postgraphile: bool = True, cache: Path = POSTGRAPHILE_CACHE
) -> AsyncIterator[tuple[Target | None, dict[str, Any]]]:
    """PostGraphile 4 started on the database at `dsn`, as a target asking for the page
    (`delivery`: the delivery department's id), and what to record of it; no target when
    it is skipped (not asked for, not installable, or it did not start), and why."""
    version = pinned_postgraphile()
    info: dict[str, Any] = {
        "version": version,
        "query": POSTGRAPHILE_PAGE,
        "options": list(POSTGRAPHILE_OPTIONS),
        "skipped": None,
    }
    process: PostGraphileProcess | None = None
    found: Target | None = None
    try:
        if not postgraphile:
            info["skipped"] = "--no-postgraphile"
        else:
            cli, said = await asyncio.to_thread(install_postgraphile, cache)
            if cli is None:
                info["skipped"] = said
            else:
                log(said)
                process = PostGraphileProcess(cli, dsn)
                try:
                    await process.start()
                    log(f"postgraphile {version} answering at {process.http_url}")
                    found = target(
                        "postgraphile",
                        process.http_url,
                        POSTGRAPHILE_PAGE,
                        {"first": PAGE_SIZE, "delivery": str(delivery)},
                        POSTGRAPHILE_FIELDS,
                        process.pid,
                    )
                except RuntimeError as error:
                    info["skipped"] = f"it did not start: {error}"
        if info["skipped"]:
            console.print(f"[yellow]PostGraphile skipped: {info['skipped']}[/yellow]")
        yield found, info
    finally:
        if process is not None:
            process.stop()
            process.remove_log()


async def check_pages(targets: list[Target], peer_info: dict[str, Any]) -> dict[str, Any]:
    """One page from each server, checked: 50 work orders with nested data, and the same
    data from both. A PostGraphile page that fails marks it skipped."""
    shapes: dict[str, Any] = {}
    for t in targets:
        clients = PageClients(t, 1)
        try:
            shape = check_page(t, await clients.one())
        except (RuntimeError, KeyError, TypeError, ValueError, *HTTP_ERRORS) as error:
            if t.name == "pressroom":
                raise
            peer_info["skipped"] = f"its page failed: {error}"
            console.print(f"[yellow]PostGraphile skipped: {peer_info['skipped']}[/yellow]")
            continue
        finally:
            await clients.close()
        shapes[t.name] = shape.__dict__
        log(f"{t.name} page: {shape}")
    if len(shapes) == 2:
        shapes["same_data"] = shapes["pressroom"] == shapes["postgraphile"]
        if not shapes["same_data"]:
            console.print("[yellow]the two pages differ (see pages in the results)[/yellow]")
    return shapes


async def throughput(
    targets: list[Target],
    postmaster_pid: int | None,
    database: str,
    seconds: float,
    concurrency: tuple[int, ...],
    rounds: int,
    warmup: float,
    meter: MeterFactory | None = None,
) -> dict[str, Any]:
    by_clients: dict[str, Any] = {}
    window = seconds / rounds
    pids = {t.name: t.pid for t in targets}
    for n in concurrency:
        pools = {t.name: PageClients(t, n) for t in targets}
        totals = {t.name: PageRun() for t in targets}
        cpu: dict[str, dict[str, float | None]] = {
            t.name: {"server": 0.0, "postgres": 0.0} for t in targets
        }
        cores: dict[str, list[tuple[float, dict[str, float]]]] = {t.name: [] for t in targets}
        try:
            for t in targets:
                log(f"{t.name}: warm-up, {n} client(s)")
                await pools[t.name].run(warmup)
            for r in range(rounds):
                # Each takes the first window in turn.
                order = targets if r % 2 == 0 else targets[::-1]
                for t in order:
                    log(f"{t.name}: {n} client(s), round {r + 1} of {rounds}")
                    watch = CpuWatch(
                        {
                            "server": functools.partial(tree_cpu, t.pid),
                            "postgres": functools.partial(backends_cpu, postmaster_pid, database),
                        }
                    )
                    metered = meter(pids) if meter is not None else None
                    watch.start()
                    if metered is not None:
                        metered.start()
                    run = await pools[t.name].run(window)
                    if metered is not None:
                        cores[t.name].append((run.elapsed, metered.stop()))
                    used = watch.stop()
                    totals[t.name].add(run)
                    for name, value in used.items():
                        so_far = cpu[t.name][name]
                        cpu[t.name][name] = (
                            None if value is None or so_far is None else so_far + value
                        )
        finally:
            await asyncio.gather(*(p.close() for p in pools.values()))
        figures: dict[str, Any] = {}
        for t in targets:
            total = totals[t.name]
            figures[t.name] = {
                "pages": total.pages,
                "seconds": round(total.elapsed, 2),
                "pages_per_second": round(total.rate, 2),
                "server_cpu_ms_per_page": ms_per_page(cpu[t.name]["server"], total.pages),
                "postgres_cpu_ms_per_page": ms_per_page(cpu[t.name]["postgres"], total.pages),
                "latency_p50_ms": percentile_ms(total.latencies, 50),
                "latency_p99_ms": percentile_ms(total.latencies, 99),
                "errors": total.errors,
                "first_error": total.first_error,
            }
            if meter is not None:
                figures[t.name]["cpu_cores"] = weighted_cores(cores[t.name])
        peer = figures.get("postgraphile", {}).get("pages_per_second")
        figures["ratio"] = ratio(figures["pressroom"]["pages_per_second"], peer)
        by_clients[str(n)] = figures
    return by_clients


async def round_trips(dsn: str, targets: list[Target], pages: int) -> dict[str, Any]:
    """Database statements per page for each server, one page at a time."""
    part: dict[str, Any] = {"pages": pages}
    counter = StatementCounter(dsn)
    why_not = await counter.open(need_utility=False)
    try:
        if why_not is None:
            part["method"] = f"{EXTENSION}: top-level statements of the bench database" + (
                "" if counter.track_utility else " (track_utility off: BEGIN/COMMIT unseen)"
            )
            part["left_out"] = (
                "Pressroom's event feed in the background: statements on the events table, "
                "its lag check (pg_stat_activity), NOTIFY, and its listener's SELECT 1 probe"
            )
        else:
            part["method"] = f"not counted: {why_not}; transactions per page instead"
            console.print(f"[yellow]round trips per page not counted: {why_not}[/yellow]")
        for t in targets:
            log(f"{t.name}: round trips, {pages} pages one at a time")
            clients = PageClients(t, 1)
            try:
                if why_not is None:
                    part[t.name] = await count_statements(counter, clients, pages)
                else:
                    part[t.name] = {"per_page": None} | await transactions_per_page(
                        dsn, clients, pages
                    )
            finally:
                await clients.close()
    finally:
        await counter.close()
    return part
