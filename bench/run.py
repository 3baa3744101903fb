"""Pressroom benchmarks: ratios measured side by side in one run (the README's Benchmarks section).

    .venv/bin/python -m bench.run            # a little over 5 minutes on a 2-core machine
    .venv/bin/python -m bench.run --quick    # about a minute and a half, noisier

1. Transitions/s through GraphQL over HTTP (`pressroom serve` in a subprocess, 1, 8 and
   32 aiohttp keep-alive clients sending startTask then finishTask with variables) versus
   the same SQL from asyncpg at as many connections (the raw floor). Target: ratio >= 0.5.
   Then database round trips per mutation: 200 startTask, then 200 finishTask, one at a
   time, counted by pg_stat_statements (BEGIN and COMMIT included; the bench's embedded
   server preloads it, another server needs it in shared_preload_libraries). Targets:
   1 per startTask, 4 per finishTask (1.1 and 4.1: the window holds the background
   loops' rounds too). What the event feed reads meanwhile is reported apart, per
   transition; a table lists each statement of a start, a finish and a dashboard page.
2. Commits/s of the transition (asyncpg, 1 and 16 clients): (a) plain, (b) pg_notify
   inside every transaction (the naive design), (c) our path: no NOTIFY in the
   transaction, `EventFeed.poke()` after the commit, its coalescing notifier and reader
   running alongside, as in the server. Target: (c)/(a) >= 0.9. A diagnostic (c') runs
   the notifier alone, to tell its cost from the reader's. The modes take turns in
   short windows, round after round, so that other load on the machine hits them alike.
3. Transitions/s through the server with 0 and with N live `queueEvents` subscribers
   (aiohttp websockets, graphql-transport-ws, display tokens) in processes of their own, and
   commit-to-receipt latency at the subscribers (receipt time minus the event's
   occurredAt), under that load and at a light steady load; then whether every
   subscriber received every event of its department exactly once.
4. Delivery as subscribers grow (500, 1,000, 2,000, 5,000; quick: 500, 1,000): at each
   step the server's memory, idle, and commit-to-receipt latency at the light load; at
   the last step the full-load rate beside the rate without subscribers.
5. The dashboard page, through the same server (bench/dashboard.py's measurement, which
   also runs alone as `python -m bench.dashboard`): 200 work orders made as the server
   makes them, after every other part's tasks, so that the page (newest first) is
   theirs; then the dashboard's query through Pressroom and through PostGraphile 4 on
   the same database (installed with npm into ~/.cache/pressroom-bench/postgraphile,
   started and stopped within the part), at 1 and 8 clients, taking turns in short
   windows: pages/s, server CPU per page, and database round trips per page
   (pg_stat_statements). Targets: <= 3 round trips per page, <= 15 ms of server CPU
   per page, Pressroom / PostGraphile >= 0.5 at each concurrency. Without node or npm
   (or with --no-postgraphile) Pressroom is measured alone and the table says
   "PostGraphile skipped: <reason>"; --no-dashboard leaves the part out.

In every phase with the server, its garbage collector pauses (its /metrics, before and
after): collections and the longest pause. Target: no pause over 20 ms.

Uses the embedded PostgreSQL (`.pressroom/bench-pgdata`) or DATABASE_URL, in a fresh
database built by the migrations and dropped at the end. Prints three tables (every
figure beside its target or peer, CPU per phase, the server's GC per phase) and writes
bench/results.json (part 5's figures under "dashboard").
"""

import argparse
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/run.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncpg

from bench import dashboard_measure, dashboard_page, dashboard_seed, fixture
from bench.fanout import Fanout
from bench.measuring import Plan
from bench.output import log, written
from bench.run_tables import gc_table, report, run_cpu_table, statements_table
from bench.servers import ServerProcess
from bench.shop import Shop, TaskPool, seed_shop
from bench.stats import SERVING, CpuMeter, process_tree, ratio, this_process
from bench.throughput import MODES
from db.feed import EventFeed

RESULTS = Path(__file__).with_name("results.json")

# Part 5's concurrencies (the speed issue's: 1 and 8 clients).
DASHBOARD_CLIENTS = (1, 8)


def at_least_one(text: str) -> int:
    number = int(text)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {number}")
    return number


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="bench.run", description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="short phases: 1.5 minutes in all")
    p.add_argument("--graphql-seconds", type=float, help="each GraphQL phase (12; quick 3)")
    p.add_argument("--raw-seconds", type=float, help="the asyncpg floor (10; quick 2.5)")
    p.add_argument(
        "--commit-seconds",
        type=float,
        help="measured time per mode and client count in part 2 (6; quick 1.2)",
    )
    p.add_argument(
        "--commit-rounds", type=int, help="part 2's modes take turns this many times (3; quick 2)"
    )
    p.add_argument("--subscriber-seconds", type=float, help="load with subscribers (12; quick 2.5)")
    p.add_argument("--light-seconds", type=float, help="light-load latency (6; quick 2.5)")
    p.add_argument("--warmup-seconds", type=float, help="before each phase (1.5; quick 0.5)")
    p.add_argument("--clients", type=int, default=32, help="HTTP clients and asyncpg conns (32)")
    p.add_argument(
        "--ratio-clients",
        help="client counts at which part 1 compares GraphQL with asyncpg (1,8,--clients)",
    )
    p.add_argument(
        "--round-trips",
        type=int,
        default=200,
        help="startTask, then finishTask mutations whose database statements are counted (200)",
    )
    p.add_argument("--commit-clients", default="1,16", help="client counts of part 2 (1,16)")
    p.add_argument(
        "--commit-modes",
        help="part 2 modes among plain,notify,poke,notifier (all four; quick: the first three)",
    )
    p.add_argument(
        "--subscribers",
        type=at_least_one,
        default=500,
        help="live subscribers (500; part 3 compares with and without them, so at least 1)",
    )
    p.add_argument(
        "--departments",
        type=int,
        default=10,
        help="production departments; tasks and subscribers are spread over them, so each "
        "event reaches subscribers/departments of them (10)",
    )
    p.add_argument("--light-rate", type=float, default=10, help="light load, transitions/s (10)")
    p.add_argument(
        "--scale",
        help="subscriber counts of part 4, each measured at the light load; the last also "
        "under full load (500,1000,2000,5000; quick: 500,1000)",
    )
    p.add_argument(
        "--no-ws-compression",
        action="store_true",
        help="subscribers do not offer permessage-deflate (browsers do)",
    )
    p.add_argument(
        "--separate-baseline",
        action=argparse.BooleanOptionalAction,
        help="measure the 0-subscriber rate again right before connecting subscribers, "
        "instead of reusing part 1's (default: yes; quick: no)",
    )
    p.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra environment for `pressroom serve`, e.g. PRESSROOM_POOL_SIZE=40 "
        "(default: none, the server as shipped)",
    )
    p.add_argument("--no-dashboard", action="store_true", help="leave out part 5")
    p.add_argument(
        "--dashboard-seconds",
        type=float,
        help="part 5: measured time per server and client count, in two windows (8; quick 2)",
    )
    p.add_argument(
        "--dashboard-orders",
        type=int,
        default=200,
        help="part 5: work orders made for the page (200)",
    )
    p.add_argument(
        "--no-postgraphile", action="store_true", help="part 5: Pressroom alone, no peer"
    )
    p.add_argument("--json", type=Path, default=RESULTS, help="where to write the figures")
    return p.parse_args(argv)


def make_plan(args: argparse.Namespace) -> Plan:
    quick = args.quick

    def pick(value: float | None, full: float, short: float) -> float:
        return value if value is not None else (short if quick else full)

    modes = args.commit_modes or ("plain,notify,poke" if quick else ",".join(MODES))
    chosen = tuple(m.strip() for m in modes.split(",") if m.strip())
    unknown = [m for m in chosen if m not in MODES]
    if unknown or "plain" not in chosen:
        raise SystemExit(f"--commit-modes: need plain, and only {', '.join(MODES)}")
    if "notifier" in chosen and not hasattr(EventFeed, "_notify_forever"):
        chosen = tuple(m for m in chosen if m != "notifier")  # the diagnostic needs it
    # Thousands of wall displays on a few display tokens, all from this machine: beyond the
    # sockets one token or one address may hold in production.
    server_env = {
        "PRESSROOM_WEBSOCKETS_PER_TOKEN": "1000000",
        "PRESSROOM_WEBSOCKETS_PER_ADDRESS": "1000000",
        **dashboard_measure.READS_EXECUTED,
    }
    server_env |= dict(item.split("=", 1) for item in args.server_env if "=" in item)
    default_scale = "500,1000" if quick else "500,1000,2000,5000"
    ratio_clients = {int(c) for c in (args.ratio_clients or "1,8").split(",") if c.strip()}
    if args.round_trips < 1:
        raise SystemExit("--round-trips: at least 1")
    if args.dashboard_orders <= dashboard_page.PAGE_SIZE:
        raise SystemExit(f"--dashboard-orders: more than a page ({dashboard_page.PAGE_SIZE})")
    return Plan(
        graphql_seconds=pick(args.graphql_seconds, 12, 3),
        raw_seconds=pick(args.raw_seconds, 10, 2.5),
        commit_seconds=pick(args.commit_seconds, 6, 1.2),
        commit_rounds=int(pick(args.commit_rounds, 3, 2)),
        subscriber_seconds=pick(args.subscriber_seconds, 12, 2.5),
        light_seconds=pick(args.light_seconds, 6, 2.5),
        warmup_seconds=pick(args.warmup_seconds, 1.5, 0.5),
        clients=args.clients,
        # The subscriber parts compare with the GraphQL rate at --clients.
        ratio_clients=tuple(sorted(ratio_clients | {args.clients})),
        round_trip_mutations=args.round_trips,
        commit_clients=tuple(int(c) for c in args.commit_clients.split(",") if c.strip()),
        commit_modes=chosen,
        subscribers=args.subscribers,
        departments=args.departments,
        light_rate=args.light_rate,
        scale=tuple(int(n) for n in (args.scale or default_scale).split(",")),
        compression=not args.no_ws_compression,
        separate_baseline=(
            args.separate_baseline if args.separate_baseline is not None else not quick
        ),
        server_env=server_env,
        dashboard=not args.no_dashboard,
        dashboard_seconds=pick(args.dashboard_seconds, 8, 2),
        dashboard_rounds=2,
        dashboard_orders=args.dashboard_orders,
        dashboard_round_trip_pages=20 if quick else 50,
        postgraphile=not args.no_postgraphile,
    )


class Bench(Fanout):
    """The whole run: parts 1 to 4 (Throughput, Fanout), part 5, and their order."""

    # --- part 5: the dashboard page, beside PostGraphile ---------------------------------

    async def dashboard_page(self, shop: Shop) -> None:
        """Part 5: bench/dashboard.py's measurement, on this run's server and database.
        Its work orders are made now, after every other part has taken its tasks, so that
        they are the page (newest first); PostGraphile starts and stops within the part.
        A failure is recorded and reported, and the run goes on to print the rest."""
        assert self.server is not None
        plan = self.plan
        try:
            log(f"dashboard: seeding {plan.dashboard_orders} work orders")
            started = time.perf_counter()
            seeded = await dashboard_seed.seed_orders(self.url, shop, plan.dashboard_orders)
            token = await dashboard_seed.admin_token(self.url, shop)
            part: dict[str, Any] = {
                "seeded": seeded,
                "seed_seconds": round(time.perf_counter() - started, 1),
            }
            gc_before = await self.gc_now()
            part |= await dashboard_measure.measure(
                self.url,
                self.server.http_url,
                token,
                self.server.pid,
                self.postmaster,
                plan.dashboard_seconds,
                DASHBOARD_CLIENTS,
                rounds=plan.dashboard_rounds,
                round_trip_pages=plan.dashboard_round_trip_pages,
                postgraphile=plan.postgraphile,
                meter=self.dashboard_meter,
            )
            part |= await self.gc_since(gc_before)
        except Exception as error:
            log(f"[red]dashboard: failed: {error!r}[/red]")
            self.server.show_tail()
            part = {"failed": repr(error)[:500]}
        self.results["dashboard"] = part

    def dashboard_meter(self, servers: dict[str, int | None]) -> CpuMeter:
        """The CPU of a window of part 5: Pressroom is the server, PostGraphile (while it
        runs) a group of its own."""
        groups = {
            "bench": this_process,
            "server": process_tree(servers.get("pressroom")),
            "postgres": process_tree(self.postmaster),
        }
        if "postgraphile" in servers:
            groups["postgraphile"] = process_tree(servers["postgraphile"])
        return CpuMeter(groups)

    # --- all of it ---------------------------------------------------------------------

    async def run(self) -> dict[str, Any]:
        plan = self.plan
        started = time.perf_counter()
        await fixture.drop_stale_databases(self.url)
        log("creating the bench database (migrations)")
        await fixture.create_database(self.url)
        shop = await seed_shop(
            self.url,
            departments=plan.departments,
            workers=plan.clients,
            displays=max(plan.subscribers, *plan.scale),
        )
        self.pool = TaskPool(self.url, shop)
        self.monitor = await asyncpg.connect(self.dsn)
        try:
            return await self.measure_all(shop, started)
        finally:
            await self.monitor.close()

    async def measure_all(self, shop: Shop, started: float) -> dict[str, Any]:
        assert self.monitor is not None
        self.results["postgres"] = await self.monitor.fetchval("SHOW server_version")

        # The asyncpg phases and the bare HTTP floor run before the server starts, so
        # that no other process reads the event log while they are measured.
        await self.commit_path(shop)
        raw = {n: await self.raw_floor(shop, n) for n in self.plan.ratio_clients}
        bare = {n: await self.bare_http(shop, n) for n in self.plan.ratio_clients}

        log("starting `pressroom serve`")
        self.server = ServerProcess(self.url, extra_env=self.plan.server_env)
        async with self.server.running():
            by_clients: dict[str, dict[str, Any]] = {}
            for n in self.plan.ratio_clients:
                graphql = await self.graphql(shop, "GraphQL", n)
                trusted = await self.graphql(shop, "GraphQL, trusted documents", n, trusted=True)
                by_clients[str(n)] = {
                    "graphql": graphql,
                    "trusted": trusted,
                    "raw": raw[n],
                    "bare_http": bare[n],
                    "ratio": ratio(graphql["per_second"], raw[n]["per_second"]),
                    "trusted_ratio": ratio(trusted["per_second"], raw[n]["per_second"]),
                    "bare_http_ratio": ratio(bare[n]["per_second"], raw[n]["per_second"]),
                    "trusted_bare_ratio": ratio(trusted["per_second"], bare[n]["per_second"]),
                }
            self.results["graphql_vs_raw"] = {"by_clients": by_clients}
            await self.round_trips(shop)
            await self.with_subscribers(shop, by_clients[str(self.plan.clients)]["graphql"])
            await self.scaling(shop)
            if self.plan.dashboard:
                await self.dashboard_page(shop)
            else:
                self.results["dashboard"] = {"skipped": "--no-dashboard"}
            # Every collection since the server started serving (the callback that times
            # them is installed after start-up's own full collection).
            self.results["gc"] = (await self.gc_since(SERVING))["gc"]
        self.results["seconds"] = round(time.perf_counter() - started, 1)
        return self.results


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    plan = make_plan(args)

    async def work(url: str, embedded_server: bool) -> dict[str, Any]:
        return {"plan": plan.__dict__, **await Bench(plan, url, embedded_server).run()}

    results = fixture.run_in_database("python -m bench.run", work)
    if results is None:
        return 130
    tables = (report(results, plan), statements_table(results), run_cpu_table(results))
    written(args.json, results, *tables, gc_table(results))
    return 1 if "failed" in results["dashboard"] else 0


if __name__ == "__main__":
    sys.exit(main())
