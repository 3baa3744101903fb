"""Reads: the dashboard page through Pressroom, beside PostGraphile 4 on the same database.

    .venv/bin/python -m bench.dashboard              # about a minute on a 2-core machine
    .venv/bin/python -m bench.dashboard --seconds 3  # shorter, noisier

`python -m bench.run` runs the same measurement (`measure()`, bench/dashboard_measure.py)
as its part 5, on the server and database of its other parts; alone, this module makes
its own.

The page is the dashboard's query (bench/dashboard_page.py's DASHBOARD_PAGE, which the
tests' cost and statement counts read too): 50 work orders, newest
first, each with its customer, creator, history with actors, delivery task, and tasks
with department, picker, the picker's departments, and task history with actors. Targets
(the speed issue): at most 3 database round trips per page whatever its size; server CPU
per page <= 15 ms; pages/s at least 0.5 of PostGraphile 4's on the same database, same
page, same concurrency (1 and 8), in the same run.

For each concurrency, aiohttp keep-alive clients (one connection each) ask for the page
as fast as answers come, Pressroom and PostGraphile taking turns in short windows, so
that other load on the machine weighs on both alike. Server CPU per page is the psutil
CPU time of the server's process tree over its windows divided by the pages it served;
PostgreSQL CPU per page, that of the backends connected to the bench database (so not
other benchmarks' on a shared server; Pressroom's event feed holds two of them).
Round trips per page are counted by pg_stat_statements, one client asking a fixed number
of pages in a row (BEGIN and COMMIT count too); what Pressroom's event feed reads in the
background meanwhile (statements on the `events` table, its lag check on
pg_stat_activity, its NOTIFY and its listener's `SELECT 1` probe) is left out and listed
apart.

PostGraphile 4 (the exact version pinned by bench/postgraphile/package-lock.json) is
installed with `npm ci` into ~/.cache/pressroom-bench/postgraphile when node and npm are
on PATH, once; without them, or if the install or its start fails, the bench says
"PostGraphile skipped: <reason>" and its figures are None.

Uses the embedded PostgreSQL (`.pressroom/bench-pgdata`) or DATABASE_URL, in a fresh
database built by the migrations and dropped at the end. Prints a table and writes
bench/dashboard-results.json.
"""

import argparse
import functools
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/dashboard.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.table import Table

from bench import fixture
from bench.dashboard_measure import (
    READS_EXECUTED,
    TARGET_CPU_MS,
    TARGET_RATIO,
    TARGET_ROUND_TRIPS,
    measure,
)
from bench.dashboard_page import PAGE_SIZE
from bench.dashboard_seed import admin_token, seed_orders
from bench.output import fmt, log, verdict, written
from bench.postgraphile_server import add_cache_argument
from bench.servers import ServerProcess
from bench.shop import seed_shop

RESULTS = Path(__file__).with_name("dashboard-results.json")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="bench.dashboard", description=(__doc__ or "").split("\n\n")[0]
    )
    p.add_argument(
        "--seconds", type=float, default=8, help="measured time per server and concurrency (8)"
    )
    p.add_argument("--rounds", type=int, default=2, help="alternating windows per concurrency (2)")
    p.add_argument("--concurrency", default="1,8", help="client counts (1,8)")
    p.add_argument("--orders", type=int, default=200, help="work orders in the database (200)")
    p.add_argument(
        "--round-trip-pages", type=int, default=50, help="pages whose statements are counted (50)"
    )
    p.add_argument("--no-postgraphile", action="store_true", help="Pressroom alone")
    add_cache_argument(p)
    p.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra environment for `pressroom serve` (default: the server as shipped, but "
        "for the read cache, off)",
    )
    p.add_argument("--json", type=Path, default=RESULTS, help="where to write the figures")
    args = p.parse_args(argv)
    if args.orders <= PAGE_SIZE:
        p.error(f"--orders: more than a page ({PAGE_SIZE}) is needed")
    return args


async def run(args: argparse.Namespace, url: str, embedded_server: bool) -> dict[str, Any]:
    await fixture.drop_stale_databases(url)
    log("creating the bench database (migrations)")
    await fixture.create_database(url)
    shop = await seed_shop(url, departments=10, workers=32, displays=0)
    log(f"seeding {args.orders} work orders")
    seeded = await seed_orders(url, shop, args.orders)
    token = await admin_token(url, shop)
    log("starting `pressroom serve`")
    server_env = dict(item.split("=", 1) for item in args.server_env if "=" in item)
    server = ServerProcess(url, extra_env={**READS_EXECUTED, **server_env})
    async with server.running():
        results = await measure(
            url,
            server.http_url,
            token,
            server.pid,
            fixture.postmaster_pid(embedded_server),
            args.seconds,
            tuple(int(c) for c in args.concurrency.split(",") if c.strip()),
            rounds=args.rounds,
            round_trip_pages=args.round_trip_pages,
            postgraphile=not args.no_postgraphile,
            cache=args.postgraphile_cache,
        )
    return {"seeded": seeded, "server_env": server_env, **results}


def report(results: dict[str, Any]) -> Table:
    table = Table(title="Dashboard page (50 work orders)", title_justify="left")
    table.add_column("measure")
    table.add_column("figure", justify="right")
    table.add_column("target", justify="right")
    table.add_column("")
    peer = results["postgraphile"]
    trips = results["round_trips"]
    ours = trips.get("pressroom", {})
    table.add_row(
        "round trips per page, Pressroom",
        fmt(ours.get("per_page"), digits=1),
        f"<= {TARGET_ROUND_TRIPS}",
        verdict(ours.get("per_page"), lambda v: v <= TARGET_ROUND_TRIPS),
    )
    if "transactions_per_page" in ours:
        table.add_row("  transactions per page (approximate)", fmt(ours["transactions_per_page"]))
    if "postgraphile" in trips:
        table.add_row(
            "round trips per page, PostGraphile",
            fmt(trips["postgraphile"].get("per_page"), digits=1),
        )
    table.add_section()
    for n, figures in results["by_clients"].items():
        mine = figures["pressroom"]
        theirs = figures.get("postgraphile", {})
        table.add_row(f"pages/s, {n} client(s): Pressroom", fmt(mine["pages_per_second"], digits=1))
        table.add_row(
            f"pages/s, {n} client(s): PostGraphile",
            fmt(theirs.get("pages_per_second"), digits=1),
        )
        table.add_row(
            f"  server CPU per page, Pressroom, {n} client(s)",
            fmt(mine["server_cpu_ms_per_page"], " ms", 1),
            f"<= {TARGET_CPU_MS:g} ms",
            verdict(mine["server_cpu_ms_per_page"], lambda v: v <= TARGET_CPU_MS),
        )
        table.add_row(
            f"  server CPU per page, PostGraphile, {n} client(s)",
            fmt(theirs.get("server_cpu_ms_per_page"), " ms", 1),
        )
        table.add_row(
            "  PostgreSQL CPU per page (bench database), Pressroom / PostGraphile",
            f"{fmt(mine['postgres_cpu_ms_per_page'], ' ms', 1)}"
            f" / {fmt(theirs.get('postgres_cpu_ms_per_page'), ' ms', 1)}",
        )
        table.add_row(
            f"  Pressroom / PostGraphile, {n} client(s)",
            fmt(figures["ratio"], digits=2),
            f">= {TARGET_RATIO}",
            verdict(figures["ratio"], lambda v: v >= TARGET_RATIO),
            end_section=True,
        )
    if peer["skipped"]:
        table.add_row(f"PostGraphile skipped: {peer['skipped']}")
    else:
        same = results["pages"].get("same_data")
        table.add_row(
            f"PostGraphile {peer['version']}: same data on both pages",
            "yes" if same else "[red]no[/red]",
        )
    return table


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    results = fixture.run_in_database("python -m bench.dashboard", functools.partial(run, args))
    if results is None:
        return 130
    written(args.json, results, report(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
