"""Pressroom benchmarks: ratios measured side by side in one run (the README's Benchmarks section).

    .venv/bin/python -m bench.run            # a little over 5 minutes on a 2-core machine
    .venv/bin/python -m bench.run --quick    # about a minute and a half, noisier

1. Transitions/s through GraphQL over HTTP (`pressroom serve` in a subprocess, 1, 8 and
   32 aiohttp keep-alive clients sending startTask then finishTask with variables) versus
   the same SQL from asyncpg at as many connections (the raw floor). Target: ratio >= 0.5.
   Then database round trips per mutation: 200 startTask, then 200 finishTask, one at a
   time, counted by pg_stat_statements (BEGIN and COMMIT included; the bench's embedded
   server preloads it, another server needs it in shared_preload_libraries). Targets:
   <= 4 per startTask, <= 5 per finishTask. What the event feed reads meanwhile is
   reported apart, per transition.
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
import asyncio
import contextlib
import functools
import json
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

if __package__ in (None, ""):  # run as `python bench/run.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncpg
import psutil
from rich.console import Console
from rich.table import Table

from bench import dashboard_measure, dashboard_page, dashboard_seed, fixture
from bench.load import GraphQLClients, LoadResult, NotificationCounter, RawClients
from bench.output import fmt, log, verdict
from bench.statements import StatementCounter
from bench.stats import (
    SERVING,
    CpuMeter,
    GcReading,
    gc_between,
    gc_reading,
    process_tree,
    ratio,
    summary_ms,
    this_process,
)
from db import reads
from db.engine import create_engine
from db.feed import EventFeed

RESULTS = Path(__file__).with_name("results.json")


@dataclass(frozen=True)
class Plan:
    graphql_seconds: float
    raw_seconds: float
    commit_seconds: float
    commit_rounds: int
    subscriber_seconds: float
    light_seconds: float
    warmup_seconds: float
    clients: int
    ratio_clients: tuple[int, ...]
    round_trip_mutations: int
    commit_clients: tuple[int, ...]
    commit_modes: tuple[str, ...]
    subscribers: int
    departments: int
    light_rate: float
    scale: tuple[int, ...]
    compression: bool
    separate_baseline: bool
    server_env: dict[str, str]
    dashboard: bool
    dashboard_seconds: float
    dashboard_rounds: int
    dashboard_orders: int
    dashboard_round_trip_pages: int
    postgraphile: bool


MODES = {
    "plain": "(a) plain",
    "notify": "(b) pg_notify in the transaction",
    "poke": "(c) our path: poke() a running EventFeed",
    "notifier": "(c') diagnostic: EventFeed's notifier alone, no reader",
}
# Transitions/s no phase can exceed; sizes the warm-up's task pool (the measured phase's
# pool is sized from the warm-up's rate).
RAW_CEILING = 8000
GRAPHQL_CEILING = 2500
# The subscriber process ends by itself this long after it starts, whatever happens.
SUBSCRIBER_DEADLINE = 600
# Part 5's concurrencies (the speed issue's: 1 and 8 clients).
DASHBOARD_CLIENTS = (1, 8)


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
    p.add_argument("--subscribers", type=int, default=500, help="live subscribers (500)")
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


def load_figures(result: LoadResult) -> dict[str, Any]:
    return {
        "transitions": result.transitions,
        "seconds": round(result.elapsed, 2),
        "per_second": round(result.rate, 1),
        "errors": result.errors,
        "first_error": result.first_error,
        "pool_exhausted": result.exhausted,
        "latency": summary_ms(result.latencies),
    }


Run = Callable[[list[int], float], Awaitable[LoadResult]]
T = TypeVar("T")


class Bench:
    def __init__(self, plan: Plan, url: str, embedded_server: bool) -> None:
        self.plan = plan
        self.url = url
        self.dsn = fixture.dsn(url)
        self.embedded_server = embedded_server
        self.postmaster = fixture.postmaster_pid(embedded_server)
        self.server: fixture.ServerProcess | None = None
        self.fleet: SubscriberFleet | None = None
        self.pool: fixture.TaskPool | None = None
        self.monitor: asyncpg.Connection | None = None
        self.results: dict[str, Any] = {}

    def meter(self) -> CpuMeter:
        return CpuMeter(
            {
                "bench": this_process,
                "server": process_tree(self.server.pid if self.server else None),
                "subscribers": lambda: self.fleet.processes_now() if self.fleet else [],
                "postgres": process_tree(self.postmaster),
            }
        )

    async def tasks(self, count: int) -> list[int]:
        assert self.pool is not None
        return await self.pool.take(count)

    async def warm_up(self, run: Run, ceiling: float, clients: int) -> float:
        """Run briefly on a pool sized by `ceiling`; the rate seen, to size the next pool."""
        seconds = self.plan.warmup_seconds
        if seconds <= 0:
            return ceiling
        result = await run(await self.tasks(int(ceiling * seconds / 2) + 2 * clients), seconds)
        return result.rate

    async def sized_pool(
        self, rate: float, ceiling: float, seconds: float, clients: int, margin: float = 3
    ) -> list[int]:
        """Tasks for `margin` times the warm-up's rate (two transitions per task)."""
        expected = min(ceiling, max(margin * rate, 100.0))
        return await self.tasks(int(expected * seconds / 2) + 2 * clients)

    async def measured(
        self, run: Run, seconds: float, ceiling: float, clients: int
    ) -> dict[str, Any]:
        """Warm up, then measure `run` with CPU accounting (and the server's GC, if one runs)."""
        rate = await self.warm_up(run, ceiling, clients)
        pool = await self.sized_pool(rate, ceiling, seconds, clients)
        meter = self.meter()
        sessions = await self.sessions()
        gc_before = await self.gc_now()
        meter.start()
        result = await run(pool, seconds)
        cpu = meter.stop()
        return load_figures(result) | {
            "cpu_cores": cpu,
            "new_connections": await self.sessions() - sessions,
            **await self.gc_since(gc_before),
        }

    async def with_gc(self, work: Awaitable[T]) -> tuple[T, dict[str, Any]]:
        """`work`'s result, and the server's collections and pauses while it ran."""
        before = await self.gc_now()
        result = await work
        return result, await self.gc_since(before)

    async def gc_now(self) -> GcReading | None:
        """The server's garbage collector figures now; None while no server runs."""
        return gc_reading(await self.server.metrics()) if self.server is not None else None

    async def gc_since(self, before: GcReading | None) -> dict[str, Any]:
        """{"gc": the server's collections and pauses since `before`}, or {} without a server."""
        after = await self.gc_now()
        return {"gc": gc_between(before, after)} if before and after else {}

    async def sessions(self) -> int:
        """Connections ever opened to the bench database (pg_stat_database.sessions): the
        server's pool opening and closing connections under load shows here."""
        assert self.monitor is not None
        await asyncio.sleep(0.2)  # backends report their statistics within a moment
        value = await self.monitor.fetchval(
            "SELECT sessions FROM pg_stat_database WHERE datname = current_database()"
        )
        return int(value or 0)

    # --- part 2: the cost of live delivery on commits ----------------------------------

    async def commit_path(self, shop: fixture.Shop) -> None:
        """Part 2. The modes take turns in short windows on the same connections, round
        after round, so that a neighbour's load or the database's growth weighs on each
        mode alike; each mode's rate is its commits over its windows' time."""
        plan = self.plan
        part: dict[str, Any] = {"rounds": plan.commit_rounds, "by_clients": {}}
        for clients in plan.commit_clients:
            raw = RawClients(self.dsn, shop.worker_ids, clients)
            await raw.open()
            try:
                async with NotificationCounter(self.dsn) as heard:
                    runs = await self.commit_rounds(raw, clients, heard)
            finally:
                await raw.close()
            plain = runs["plain"]["per_second"]
            for mode in plan.commit_modes:
                if mode != "plain":
                    runs[f"{mode}_over_plain"] = ratio(runs[mode]["per_second"], plain)
            part["by_clients"][str(clients)] = runs
        self.results["commit_path"] = part

    async def commit_rounds(
        self, raw: RawClients, clients: int, heard: NotificationCounter
    ) -> dict[str, Any]:
        plan = self.plan
        window = plan.commit_seconds / plan.commit_rounds
        settle = min(0.3, plan.warmup_seconds)
        log(
            f"commit path, {clients} client(s): {plan.commit_rounds} rounds of "
            + ", ".join(MODES[m].split(" ", 1)[0] for m in plan.commit_modes)
        )
        rate = await self.warm_up(raw.run, RAW_CEILING, clients)
        # One pool for every window. The warm-up ran in mode (a), the fastest, so 1.6 times
        # its rate over all the windows is plenty.
        windows = plan.commit_rounds * len(plan.commit_modes)
        pool = await self.sized_pool(
            rate, RAW_CEILING, windows * (window + settle), clients, margin=1.6
        )
        totals: dict[str, list[LoadResult]] = {m: [] for m in plan.commit_modes}
        cpu: dict[str, list[dict[str, float]]] = {m: [] for m in plan.commit_modes}
        notes: dict[str, dict[str, int]] = {m: {"notifications": 0} for m in plan.commit_modes}
        for _ in range(plan.commit_rounds):
            for mode in plan.commit_modes:
                async with self.delivery_path(mode) as feed:
                    raw.mode = "notify" if mode == "notify" else "plain"
                    raw.poke = feed.poke if feed is not None else None
                    try:
                        await raw.run(pool, settle)
                        before = heard.count
                        meter = self.meter()
                        meter.start()
                        result = await raw.run(pool, window)
                        cpu[mode].append(meter.stop())
                        notes[mode]["notifications"] += heard.count - before
                        if mode == "poke" and feed is not None:
                            notes[mode]["feed_reads"] = notes[mode].get("feed_reads", 0) + (
                                feed.stats.reads
                            )
                    finally:
                        raw.mode, raw.poke = "plain", None
                totals[mode].append(result)
        runs: dict[str, Any] = {}
        for mode in plan.commit_modes:
            merged = merge(totals[mode])
            runs[mode] = (
                load_figures(merged)
                | {"cpu_cores": average(cpu[mode])}
                | {"per_round": [round(r.rate, 1) for r in totals[mode]]}
                | notes[mode]
            )
        return runs

    @contextlib.asynccontextmanager
    async def delivery_path(self, mode: str) -> AsyncIterator[EventFeed | None]:
        """What runs beside the writers in each mode: nothing, or an EventFeed wired as the
        server wires it (its reader enriches every batch), or only its notifier."""
        if mode not in ("poke", "notifier"):
            yield None
            return
        engine = create_engine(self.url, pool_size=4, max_overflow=4)
        feed = EventFeed(engine, self.url, enrich=reads.related)
        notifier: list[asyncio.Task[None]] = []
        try:
            if mode == "poke":
                await feed.start()
            else:
                # Only the coalescing notifier and the listener whose connection it sends
                # on (private coroutines of EventFeed): tells their share of (c) from the
                # reader's.
                notifier = [
                    asyncio.create_task(feed._listen_forever()),
                    asyncio.create_task(feed._notify_forever()),
                ]
                async with asyncio.timeout(10):
                    while not feed.listening:
                        await feed.listener_changed.wait()
                        feed.listener_changed.clear()
            yield feed
        finally:
            if notifier:
                for task in notifier:
                    task.cancel()
                await asyncio.gather(*notifier, return_exceptions=True)
            else:
                recancels = await stop_feed(feed)
                self.results.setdefault("feed_stops", {"stops": 0, "hung": 0})
                self.results["feed_stops"]["stops"] += 1
                self.results["feed_stops"]["hung"] += bool(recancels)
            await engine.dispose()

    # --- part 1: GraphQL versus the raw floor ------------------------------------------

    async def raw_floor(self, shop: fixture.Shop, clients: int) -> dict[str, Any]:
        log(f"raw floor: the same SQL from asyncpg, {clients} connection(s)")
        raw = RawClients(self.dsn, shop.worker_ids, clients)
        await raw.open()
        try:
            return await self.measured(raw.run, self.plan.raw_seconds, RAW_CEILING, clients)
        finally:
            await raw.close()

    async def graphql(self, shop: fixture.Shop, label: str, clients: int) -> dict[str, Any]:
        assert self.server is not None
        log(f"{label}: GraphQL over HTTP, {clients} client(s)")
        http = GraphQLClients(self.server.http_url, shop.worker_tokens, clients)
        try:
            return await self.measured(
                http.run, self.plan.graphql_seconds, GRAPHQL_CEILING, clients
            )
        finally:
            await http.close()

    async def round_trips(self, shop: fixture.Shop) -> None:
        """Database statements per startTask and per finishTask: `round_trip_mutations` of
        each, one at a time from one client, on the warm server with nothing else running;
        pg_stat_statements reset before each kind, read after it."""
        assert self.server is not None
        mutations = self.plan.round_trip_mutations
        counter = StatementCounter(self.dsn)
        why_not = await counter.open()
        if why_not is not None:
            if self.embedded_server:
                why_not += (
                    " (when another process was using the bench's embedded server as this run"
                    " began, the server loads pg_stat_statements at its next start)"
                )
            log(f"[yellow]database round trips per mutation not counted: {why_not}[/yellow]")
            self.results["round_trips"] = {"skipped": why_not}
            await counter.close()
            return
        log(f"database round trips: {mutations} startTask, then {mutations} finishTask")
        part: dict[str, Any] = {"mutations": mutations}
        http = GraphQLClients(self.server.http_url, shop.worker_tokens, 1)
        try:
            task_ids = await self.tasks(mutations)
            for name, field_name in (("StartTask", "startTask"), ("FinishTask", "finishTask")):
                gc_before = await self.gc_now()
                await counter.reset()
                result = await http.each(name, task_ids)
                # The feed reads the last commit's event within its batch window.
                await asyncio.sleep(0.5)
                counted = await counter.count()
                part[field_name] = {
                    "per_mutation": round(counted["request_calls"] / mutations, 2),
                    "feed_per_transition": round(counted["feed_calls"] / mutations, 2),
                    "errors": result.errors,
                    "first_error": result.first_error,
                    "latency": summary_ms(result.latencies),
                    **counted,
                    **await self.gc_since(gc_before),
                }
        finally:
            await http.close()
            await counter.close()
        self.results["round_trips"] = part

    # --- part 3: subscribers -----------------------------------------------------------

    async def with_subscribers(self, shop: fixture.Shop, baseline: dict[str, Any]) -> None:
        assert self.server is not None
        plan = self.plan
        part: dict[str, Any] = {
            "subscribers": plan.subscribers,
            "departments": plan.departments,
            "subscribers_per_event": round(plan.subscribers / plan.departments, 1),
            "ws_compression": plan.compression,
        }
        if plan.separate_baseline:
            part["without"] = await self.graphql(shop, "0 subscribers", plan.clients)
            part["baseline"] = "measured again right before the subscribers connect"
        else:
            part["without"] = baseline
            part["baseline"] = "part 1's GraphQL run"

        # The tasks are made before anyone subscribes: making a task writes its events
        # (TASK_CREATED, the gate), which would otherwise reach every subscriber of its
        # department during the measured window. The rate without subscribers bounds
        # the rate with them.
        pool = await self.sized_pool(
            part["without"]["per_second"], GRAPHQL_CEILING, plan.subscriber_seconds, plan.clients
        )
        light_pool = await self.tasks(int(plan.light_rate * plan.light_seconds / 2) + 10)

        log(f"connecting {plan.subscribers} subscribers")
        ours = self.fleet = SubscriberFleet(self.server.ws_url, plan.compression)
        http = GraphQLClients(self.server.http_url, shop.worker_tokens, plan.clients)
        try:
            meter = self.meter()
            meter.start()
            connected, part["connecting"] = await self.with_gc(
                ours.add(shop.displays[: plan.subscribers])
            )
            part["connect_cpu_cores"] = meter.stop()
            part["connect_seconds"] = round(meter.elapsed, 2)
            part["connected"] = connected["connected"]
            part["failed_to_connect"] = connected["failed_to_connect"]
            part["connect_errors"] = connected["errors"]
            # Let the last subscriptions join the feed before any event is written.
            await asyncio.sleep(1)
            first_event = await self.last_event_id()

            log(f"{plan.subscribers} subscribers: GraphQL over HTTP, {plan.clients} clients")
            _, part["drain_seconds"], part["with"] = await self.subscriber_window(
                ours, functools.partial(http.run, pool, plan.subscriber_seconds)
            )

            log(f"{plan.subscribers} subscribers: light load, {plan.light_rate:g}/s")
            _, _, part["light"] = await self.subscriber_window(
                ours, functools.partial(http.paced, light_pool, plan.light_seconds, plan.light_rate)
            )
            part["delivery"] = await self.delivery_check(ours, shop, first_event)
        finally:
            await http.close()
            _, part["hanging_up"] = await self.with_gc(ours.stop())
            self.fleet = None
        part["ratio"] = ratio(part["with"]["per_second"], part["without"]["per_second"])
        self.results["subscribers"] = part

    async def subscriber_window(
        self,
        ours: "SubscriberFleet",
        load: Callable[[], Awaitable[LoadResult]],
        drain_limit: float = 30,
    ) -> tuple[LoadResult, float, dict[str, Any]]:
        """`load()` measured with subscribers connected, once the server's backlog is
        delivered: its result, how long the subscribers then took to receive the window's
        last events (every event of the window counts, however late it arrives), and its
        figures with the subscribers' receipts."""
        await drain(ours)
        await ours.send("window")
        meter = self.meter()
        gc_before = await self.gc_now()
        meter.start()
        result = await load()
        cpu = meter.stop()
        gc = await self.gc_since(gc_before)
        drained = await drain(ours, limit=drain_limit)
        figures = (
            load_figures(result)
            | {"cpu_cores": cpu}
            | gc
            | receipts(await ours.ask("report", "report", 60))
        )
        return result, drained, figures

    # --- part 4: delivery as subscribers grow ----------------------------------------

    async def scaling(self, shop: fixture.Shop) -> None:
        """Subscribers added step by step up to the last count of `plan.scale`: at each
        step the server's memory, idle, then commit-to-receipt at the light load; at the
        last step also the full-load rate, beside the rate without subscribers."""
        assert self.server is not None
        plan = self.plan
        server = psutil.Process(self.server.pid)
        steps: list[dict[str, Any]] = []
        part: dict[str, Any] = {"steps": steps, "departments": plan.departments}
        # Every step's tasks made before the first subscriber connects (see with_subscribers).
        light_pools = [
            await self.tasks(int(plan.light_rate * plan.light_seconds / 2) + 10) for _ in plan.scale
        ]
        baseline = self.results["subscribers"]["without"]["per_second"]
        full_pool = await self.sized_pool(
            baseline, GRAPHQL_CEILING, plan.subscriber_seconds, plan.clients
        )
        ours = self.fleet = SubscriberFleet(self.server.ws_url, plan.compression)
        http = GraphQLClients(self.server.http_url, shop.worker_tokens, plan.clients)
        try:
            part["server_rss_mb_before"] = round(await self.server_rss(server) / 2**20, 1)
            for count, pool in zip(plan.scale, light_pools, strict=True):
                log(f"scaling: {count} subscribers, connecting")
                added, connecting = await self.with_gc(
                    ours.add(shop.displays[len(ours.specs) : count])
                )
                await asyncio.sleep(1)  # the last subscriptions join the feed
                step: dict[str, Any] = {
                    "subscribers": len(ours.specs),
                    "per_event": round(len(ours.specs) / plan.departments, 1),
                    "failed_to_connect": added["failed_to_connect"],
                    "connecting": connecting,
                    "server_rss_mb": round(await self.server_rss(server) / 2**20, 1),
                }
                log(f"scaling: {count} subscribers, light load {plan.light_rate:g}/s")
                _, _, step["light"] = await self.subscriber_window(
                    ours, functools.partial(http.paced, pool, plan.light_seconds, plan.light_rate)
                )
                steps.append(step)
            first, last = steps[0], steps[-1]
            added_subscribers = last["subscribers"] - first["subscribers"]
            if added_subscribers > 0:
                grown = last["server_rss_mb"] - first["server_rss_mb"]
                part["kb_per_idle_subscriber"] = round(grown * 1024 / added_subscribers, 1)
            log(f"scaling: {last['subscribers']} subscribers, GraphQL over HTTP")
            result, part["drain_seconds"], part["loaded"] = await self.subscriber_window(
                ours,
                functools.partial(http.run, full_pool, plan.subscriber_seconds),
                drain_limit=120,
            )
            part["ratio"] = ratio(result.rate, baseline)
        finally:
            await http.close()
            _, part["hanging_up"] = await self.with_gc(ours.stop())
            self.fleet = None
        self.results["scaling"] = part

    # --- part 5: the dashboard page, beside PostGraphile ---------------------------------

    async def dashboard_page(self, shop: fixture.Shop) -> None:
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

    async def server_rss(self, server: psutil.Process) -> int:
        """The server's resident memory once it has been idle for a moment."""
        await asyncio.sleep(1)
        return int(server.memory_info().rss)

    async def last_event_id(self) -> int:
        conn = await asyncpg.connect(self.dsn)
        try:
            return int(await conn.fetchval("SELECT coalesce(max(id), 0) FROM events"))
        finally:
            await conn.close()

    async def delivery_check(
        self, ours: "SubscriberFleet", shop: fixture.Shop, first_event: int
    ) -> dict[str, Any]:
        """Did every subscriber get every event of its department, once?"""
        received: list[int] = (await ours.ask("totals", "totals", 30))["received"]
        expected = await expected_events(self.dsn, shop, ours.specs, first_event)
        return delivered(expected, received)

    # --- all of it ---------------------------------------------------------------------

    async def run(self) -> dict[str, Any]:
        plan = self.plan
        started = time.perf_counter()
        for name in await fixture.drop_stale_databases(self.url):
            log(f"dropped {name}, left behind by a run that was killed")
        log("creating the bench database (migrations)")
        await fixture.create_database(self.url)
        shop = await fixture.seed_shop(
            self.url,
            departments=plan.departments,
            workers=plan.clients,
            displays=max(plan.subscribers, *plan.scale),
        )
        self.pool = fixture.TaskPool(self.url, shop)
        self.monitor = await asyncpg.connect(self.dsn)
        try:
            return await self.measure_all(shop, started)
        finally:
            await self.monitor.close()

    async def measure_all(self, shop: fixture.Shop, started: float) -> dict[str, Any]:
        assert self.monitor is not None
        self.results["postgres"] = await self.monitor.fetchval("SHOW server_version")

        # The asyncpg phases run before the server starts, so that no other process
        # reads the event log while they are measured.
        await self.commit_path(shop)
        raw = {n: await self.raw_floor(shop, n) for n in self.plan.ratio_clients}

        log("starting `pressroom serve`")
        self.server = fixture.ServerProcess(self.url, extra_env=self.plan.server_env)
        async with self.server.running():
            by_clients: dict[str, dict[str, Any]] = {}
            for n in self.plan.ratio_clients:
                graphql = await self.graphql(shop, "GraphQL", n)
                by_clients[str(n)] = {
                    "graphql": graphql,
                    "raw": raw[n],
                    "ratio": ratio(graphql["per_second"], raw[n]["per_second"]),
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


async def stop_feed(feed: EventFeed) -> int:
    """`feed.stop()`, bounded. On Python 3.11 `EventFeed.stop()` can wait forever: the
    reader's `asyncio.wait_for(self._wake.wait(), ...)` swallows the cancellation when it
    arrives just as a poke wakes it (a known 3.11 wait_for race), and the reader loops on.
    So its tasks (EventFeed._tasks, private) are cancelled again until they end. Returns
    how many times that was needed."""
    stopping = asyncio.ensure_future(feed.stop())
    for again in range(20):
        done, _pending = await asyncio.wait({stopping}, timeout=0.5)
        if done:
            stopping.result()
            return again
        for task in getattr(feed, "_tasks", ()):
            task.cancel()
    stopping.cancel()
    raise RuntimeError("the event feed did not stop")


async def expected_events(
    dsn: str,
    shop: fixture.Shop,
    specs: list[tuple[str, str]],
    after: int,
    through: int | None = None,
) -> list[int]:
    """For each subscriber of `specs`, the events of its department in the log after
    event id `after` (up to `through`, when given)."""
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch(
            "SELECT department_id, count(*) AS n FROM events WHERE id > $1 "
            "AND ($2::bigint IS NULL OR id <= $2) GROUP BY department_id",
            after,
            through,
        )
    finally:
        await conn.close()
    by_id = {r["department_id"]: r["n"] for r in rows}
    code_to_id = dict(zip(shop.department_codes, shop.department_ids, strict=True))
    return [by_id.get(code_to_id[code], 0) for _, code in specs]


def delivered(expected: list[int], received: list[int]) -> dict[str, int]:
    """Events expected and received by subscribers, and how many were missed or came more
    than once, in all and by how many subscribers."""
    pairs = list(zip(expected, received, strict=True))
    return {
        "expected": sum(expected),
        "received": sum(received),
        "missing": sum(max(0, e - r) for e, r in pairs),
        "extra": sum(max(0, r - e) for e, r in pairs),
        "subscribers_missing": sum(1 for e, r in pairs if r < e),
        "most_missed_by_one": max((max(0, e - r) for e, r in pairs), default=0),
    }


def merge(results: list[LoadResult]) -> LoadResult:
    merged = LoadResult()
    for r in results:
        merged.add(r)
    return merged


def average(samples: list[dict[str, float]]) -> dict[str, float]:
    keys = {k for sample in samples for k in sample}
    return {k: round(sum(s.get(k, 0.0) for s in samples) / len(samples), 2) for k in keys}


def receipts(received: dict[str, Any]) -> dict[str, Any]:
    """What the subscribers saw of a phase."""
    return {
        "receipt_latency": summary_ms(received["latencies"]),
        "events_received": received["events"],
        "subscribers_receiving": received["subscribers_receiving"],
        "dropped": received["dropped"],
        "subscriber_errors": received["errors"],
    }


async def drain(ours: "SubscriberFleet", quiet: float = 1.0, limit: float = 30) -> float:
    """Wait until the subscribers have received nothing new for `quiet` seconds (the
    server's backlog is delivered); returns how long that took."""
    start = time.perf_counter()
    last: int | None = None
    since = start
    while time.perf_counter() - start < limit:
        total = sum((await ours.ask("totals", "totals", 30))["received"])
        now = time.perf_counter()
        if total != last:
            last, since = total, now
        elif now - since >= quiet:
            break
        await asyncio.sleep(0.2)
    return round(time.perf_counter() - start, 2)


class SubscriberProcess:
    """`python -m bench.subscribers`, driven by a line per command on its stdin."""

    def __init__(self) -> None:
        self.process: asyncio.subprocess.Process | None = None
        self.specs = tempfile.NamedTemporaryFile(  # noqa: SIM115 (removed in stop)
            "w", prefix="pressroom-bench-displays-", suffix=".json", delete=False
        )

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    async def start(
        self,
        url: str,
        specs: list[tuple[str, str]],
        compression: bool,
        deadline: float = SUBSCRIBER_DEADLINE,
    ) -> None:
        json.dump(specs, self.specs)
        self.specs.close()
        args = ["--url", url, "--specs", self.specs.name, "--seconds", str(deadline)]
        if not compression:
            args.append("--no-compression")
        self.process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.subscribers",
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=fixture.ROOT,
            limit=1 << 26,  # a report carries every latency of a window
        )

    async def send(self, command: str) -> None:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(command.encode() + b"\n")
        await self.process.stdin.drain()

    async def ask(self, command: str, expected: str, within: float) -> dict[str, Any]:
        """Send `command`; its answer, which must be of kind `expected`."""
        assert self.process is not None and self.process.stdout is not None
        await self.send(command)
        line = await asyncio.wait_for(self.process.stdout.readline(), within)
        if not line:
            raise RuntimeError(f"the subscriber process ended before answering {command!r}")
        message = json.loads(line)
        if message["kind"] != expected:
            raise RuntimeError(f"subscriber process: {message['kind']}: {message['body']}")
        body: dict[str, Any] = message["body"]
        return body

    async def stop(self) -> None:
        process = self.process
        if process is not None and process.returncode is None:
            with contextlib.suppress(OSError, RuntimeError):
                await self.send("quit")
            try:
                await asyncio.wait_for(process.wait(), 30)
            except TimeoutError:
                process.kill()
                await process.wait()
        with contextlib.suppress(OSError):
            os.unlink(self.specs.name)


# Subscribers per process: one Python process receives about this many messages of a
# light-load event burst without itself becoming the bottleneck.
PER_PROCESS = 2500


class SubscriberFleet:
    """Subscriber processes of up to PER_PROCESS subscribers each, asked as one."""

    def __init__(self, url: str, compression: bool, deadline: float = SUBSCRIBER_DEADLINE) -> None:
        self.url = url
        self.compression = compression
        self.deadline = deadline  # seconds each process lives at most
        self.processes: list[SubscriberProcess] = []
        # (token, department code) of every subscriber, in the order of their totals.
        self.specs: list[tuple[str, str]] = []

    def processes_now(self) -> list[psutil.Process]:
        found = []
        for process in self.processes:
            with contextlib.suppress(psutil.Error, TypeError):
                found.append(psutil.Process(process.pid))
        return found

    async def add(self, specs: list[tuple[str, str]]) -> dict[str, Any]:
        """Start processes for `specs` and connect them; their merged "connected" answer."""
        new = []
        for start in range(0, len(specs), PER_PROCESS):
            process = SubscriberProcess()
            await process.start(
                self.url, specs[start : start + PER_PROCESS], self.compression, self.deadline
            )
            new.append(process)
        self.processes += new
        self.specs += specs
        return merged(await asyncio.gather(*(p.ask("connect", "connected", 180) for p in new)))

    async def send(self, command: str) -> None:
        await asyncio.gather(*(p.send(command) for p in self.processes))

    async def ask(self, command: str, expected: str, within: float) -> dict[str, Any]:
        answers = [p.ask(command, expected, within) for p in self.processes]
        return merged(await asyncio.gather(*answers))

    async def stop(self) -> None:
        await asyncio.gather(*(p.stop() for p in self.processes))


def merged(answers: list[dict[str, Any]]) -> dict[str, Any]:
    """Several processes' answers as one: lists joined in process order, numbers added."""
    out: dict[str, Any] = {}
    for answer in answers:
        for key, value in answer.items():
            if isinstance(value, list):
                out[key] = out.get(key, []) + value
            else:
                out[key] = out.get(key, 0) + value
    return out


# --- output ------------------------------------------------------------------------------


def ms_per_transition(figures: dict[str, Any], group: str) -> float | None:
    """CPU of one process group (the server, the bench) per transition, in ms."""
    cores = figures["cpu_cores"].get(group)
    rate = figures["per_second"]
    return cores * 1000 / rate if cores and rate else None


def at_most(limit: float) -> Callable[[float], bool]:
    return lambda value: value <= limit


def pause(gc: dict[str, Any]) -> str:
    """The longest pause of a phase: exact, with the collector's CPU time in it when
    known, or an upper bound."""
    longest = fmt(gc["longest_ms"], " ms", 1)
    if not gc["longest_exact"]:
        return f"<= {longest}"
    cpu = gc.get("longest_cpu_ms")
    return longest if cpu is None else f"{longest} (CPU {fmt(cpu, digits=1)})"


def report(results: dict[str, Any], plan: Plan) -> Table:
    table = Table(title="Pressroom benchmarks", title_justify="left")
    table.add_column("measure")
    table.add_column("figure", justify="right")
    table.add_column("target", justify="right")
    table.add_column("")
    by_clients = results["graphql_vs_raw"]["by_clients"]
    counts = " / ".join(by_clients)
    n = plan.clients
    gr = by_clients[str(n)]

    def each(value: Callable[[dict[str, Any]], float | None], digits: int = 0) -> str:
        return " / ".join(fmt(value(run), digits=digits) for run in by_clients.values())

    table.add_row(
        f"transitions/s, GraphQL over HTTP, {counts} clients",
        each(lambda run: run["graphql"]["per_second"]),
    )
    table.add_row(
        f"transitions/s, same SQL from asyncpg, {counts} conns",
        each(lambda run: run["raw"]["per_second"]),
    )
    table.add_row(
        f"  PostgreSQL connections opened, GraphQL at {n} clients",
        fmt(gr["graphql"].get("new_connections")),
    )
    per_transition = ms_per_transition(gr["graphql"], "server")
    table.add_row(
        f"  server CPU per transition, {n} clients",
        fmt(per_transition, " ms", 2),
        "<= 1.0 ms",
        verdict(per_transition, lambda ms: ms <= 1.0),
    )
    # The load generator shares the machine: what it takes is not the server's to use.
    table.add_row(
        f"  the bench's own CPU per transition, {counts} clients",
        each(lambda run: ms_per_transition(run["graphql"], "bench"), digits=2) + " ms",
    )
    ratios = [run["ratio"] for run in by_clients.values() if run["ratio"] is not None]
    table.add_row(
        f"  GraphQL / asyncpg, {counts} clients",
        each(lambda run: run["ratio"], digits=2),
        ">= 0.50",
        verdict(min(ratios, default=None), lambda r: r >= 0.5),
    )
    trips = results["round_trips"]
    if "skipped" in trips:
        table.add_row("database round trips per mutation", "not counted", "", "see the log")
    else:
        for field_name, target in (("startTask", 4), ("finishTask", 5)):
            per = trips[field_name]["per_mutation"]
            table.add_row(
                f"database round trips per {field_name} (pg_stat_statements)",
                fmt(per, digits=2),
                f"<= {target}",
                verdict(per, at_most(target)),
            )
        table.add_row(
            "  feed reads per transition, startTask / finishTask",
            " / ".join(
                fmt(trips[f]["feed_per_transition"], digits=2) for f in ("startTask", "finishTask")
            ),
        )
    table.add_row(
        "longest GC pause in the server, whole run",
        pause(results["gc"]),
        "<= 20 ms",
        verdict(results["gc"]["longest_ms"], lambda ms: ms <= 20),
        end_section=True,
    )
    for clients, runs in results["commit_path"]["by_clients"].items():
        modes = [m for m in MODES if m in runs]
        table.add_row(
            f"commits/s, {clients} client(s): " + " / ".join(MODES[m][:4].strip() for m in modes),
            " / ".join(fmt(runs[m]["per_second"]) for m in modes),
        )
        if "notify" in runs:
            table.add_row(
                "  (b) / (a)  pg_notify in every transaction",
                fmt(runs["notify_over_plain"], digits=2),
            )
        if "poke" in runs:
            c = runs["poke_over_plain"]
            table.add_row(
                "  (c) / (a)  our path", fmt(c, digits=2), ">= 0.90", verdict(c, lambda r: r >= 0.9)
            )
        if "notifier" in runs:
            table.add_row("  (c') / (a) notifier alone", fmt(runs["notifier_over_plain"], digits=2))
    table.rows[-1].end_section = True
    subs = results["subscribers"]
    k = subs["subscribers"]
    table.add_row(
        f"transitions/s, 0 / {k} subscribers ({subs['subscribers_per_event']:g} per event)",
        f"{fmt(subs['without']['per_second'])} / {fmt(subs['with']['per_second'])}",
    )
    table.add_row(f"  {k} / 0 subscribers", fmt(subs["ratio"], digits=2))
    for key, label in (("with", f"{n} clients"), ("light", f"{plan.light_rate:g} transitions/s")):
        lat = subs[key]["receipt_latency"]
        table.add_row(
            f"  commit-to-receipt p50 / p99, {label}",
            f"{fmt(lat['p50_ms'], digits=1)} / {fmt(lat['p99_ms'], ' ms', 1)}",
            "p99 < 100 ms",
            verdict(lat["p99_ms"], lambda p: p < 100),
        )
    delivery = subs["delivery"]
    table.add_row(
        "  events delivered / expected (missing)",
        f"{delivery['received']:,} / {delivery['expected']:,} ({delivery['missing']:,})",
        "all",
        verdict(delivery["missing"], lambda m: m == 0),
        end_section=True,
    )
    scaling = results["scaling"]
    for step in scaling["steps"]:
        lat = step["light"]["receipt_latency"]
        table.add_row(
            f"{step['subscribers']:,} subscribers ({step['per_event']:g} per event), "
            f"{plan.light_rate:g}/s: p50 / p99, server",
            f"{fmt(lat['p50_ms'], digits=1)} / {fmt(lat['p99_ms'], ' ms', 1)}, "
            f"{fmt(step['light']['cpu_cores'].get('server'), digits=2)} core",
            "p99 <= 100 ms",
            verdict(lat["p99_ms"], lambda p: p <= 100),
        )
    table.add_row(
        "  server memory per idle subscriber",
        fmt(scaling.get("kb_per_idle_subscriber"), " KB", 1),
        "<= 40 KB",
        verdict(scaling.get("kb_per_idle_subscriber"), lambda k: k <= 40),
    )
    last = scaling["steps"][-1]["subscribers"]
    table.add_row(
        f"  transitions/s with {last:,} / with 0 subscribers",
        f"{fmt(scaling['loaded']['per_second'])} / {fmt(subs['without']['per_second'])} "
        f"= {fmt(scaling['ratio'], digits=2)}",
        ">= 0.80",
        verdict(scaling["ratio"], lambda r: r >= 0.8),
        end_section=True,
    )
    dashboard_rows(table, results["dashboard"])
    return table


def dashboard_rows(table: Table, part: dict[str, Any]) -> None:
    """Part 5's rows: Pressroom's figures, PostGraphile's beside them."""
    if "skipped" in part:
        table.add_row(f"dashboard page: not measured ({part['skipped']})")
        return
    if "failed" in part:
        table.add_row("dashboard page: [red]failed[/red]", "", "", "see the log")
        return
    peer = part["postgraphile"]
    trips = part["round_trips"]
    ours = trips.get("pressroom", {})
    theirs = trips.get("postgraphile", {})
    if ours.get("per_page") is None:
        table.add_row(
            "dashboard round trips per page",
            f"not counted (~{fmt(ours.get('transactions_per_page'), digits=1)} transactions)",
            f"<= {dashboard_measure.TARGET_ROUND_TRIPS}",
            "see the log",
        )
    else:
        table.add_row(
            "dashboard round trips per page, Pressroom / PostGraphile",
            f"{fmt(ours['per_page'], digits=2)} / {fmt(theirs.get('per_page'), digits=2)}",
            f"<= {dashboard_measure.TARGET_ROUND_TRIPS}",
            verdict(ours["per_page"], at_most(dashboard_measure.TARGET_ROUND_TRIPS)),
        )
    by_clients = part["by_clients"]
    counts = " / ".join(by_clients)

    def each(server: str, key: str, digits: int = 1) -> str:
        return " / ".join(fmt(run[server].get(key), digits=digits) for run in by_clients.values())

    table.add_row(
        f"dashboard pages/s, {counts} clients: Pressroom", each("pressroom", "pages_per_second")
    )
    table.add_row(
        f"dashboard pages/s, {counts} clients: PostGraphile {peer['version']}",
        each("postgraphile", "pages_per_second"),
    )
    ratios = [run["ratio"] for run in by_clients.values() if run["ratio"] is not None]
    table.add_row(
        f"  Pressroom / PostGraphile, {counts} clients",
        " / ".join(fmt(run["ratio"], digits=2) for run in by_clients.values()),
        f">= {dashboard_measure.TARGET_RATIO:g}",
        verdict(min(ratios, default=None), lambda r: r >= dashboard_measure.TARGET_RATIO),
    )
    for clients, run in by_clients.items():
        mine = run["pressroom"]["server_cpu_ms_per_page"]
        table.add_row(
            f"  server CPU per page, {clients} client{'' if clients == '1' else 's'}: "
            "Pressroom / PostGraphile",
            f"{fmt(mine, digits=1)} / "
            f"{fmt(run['postgraphile'].get('server_cpu_ms_per_page'), ' ms', 1)}",
            f"<= {dashboard_measure.TARGET_CPU_MS:g} ms",
            verdict(mine, at_most(dashboard_measure.TARGET_CPU_MS)),
        )
    if peer["skipped"]:
        table.add_row(f"  PostGraphile skipped: {peer['skipped']}")
    else:
        same = part["pages"].get("same_data")
        table.add_row(
            f"  the same data on both servers' pages ({dashboard_page.PAGE_SIZE} work orders)",
            "yes" if same else "[red]no[/red]",
            "yes",
            verdict(1.0 if same else 0.0, lambda v: v == 1),
        )


def cpu_table(results: dict[str, Any]) -> Table:
    table = Table(
        title="CPU used during each phase, in cores (2 on this machine)", title_justify="left"
    )
    part = results.get("dashboard", {})
    pages = part.get("by_clients", {})
    peer = not part.get("postgraphile", {}).get("skipped", True)
    columns: tuple[str, ...] = ("bench", "server", "subscribers", "postgres", "irq", "others")
    if peer:
        columns = ("bench", "server", "postgraphile", "subscribers", "postgres", "irq", "others")
    table.add_column("phase")
    for column in columns:
        table.add_column(column, justify="right")
    rows: list[tuple[str, dict[str, float]]] = []
    for clients, run in results["graphql_vs_raw"]["by_clients"].items():
        rows += [
            (f"GraphQL, {clients} client(s)", run["graphql"]["cpu_cores"]),
            (f"asyncpg floor, {clients} conn(s)", run["raw"]["cpu_cores"]),
        ]
    for clients, runs in results["commit_path"]["by_clients"].items():
        for mode in MODES:
            if mode in runs:
                rows.append((f"commits, {clients} client(s), {mode}", runs[mode]["cpu_cores"]))
    subs = results["subscribers"]
    if subs["baseline"].startswith("measured"):
        rows.append(("0 subscribers", subs["without"]["cpu_cores"]))
    rows += [
        (f"{subs['subscribers']} subscribers", subs["with"]["cpu_cores"]),
        ("light load", subs["light"]["cpu_cores"]),
    ]
    for step in results["scaling"]["steps"]:
        rows.append((f"{step['subscribers']:,} subscribers, light", step["light"]["cpu_cores"]))
    scaling = results["scaling"]
    rows.append(
        (f"{scaling['steps'][-1]['subscribers']:,} subscribers", scaling["loaded"]["cpu_cores"])
    )
    for clients, run in pages.items():
        rows.append((f"dashboard, {clients} client(s), Pressroom", run["pressroom"]["cpu_cores"]))
        if peer:
            rows.append(
                (f"dashboard, {clients} client(s), PostGraphile", run["postgraphile"]["cpu_cores"])
            )
    for name, cpu in rows:
        table.add_row(name, *(fmt(cpu.get(c), digits=2) for c in columns))
    return table


def server_phases(results: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(name, figures) of every measured phase with the server, in the order they ran."""
    phases = [
        (f"GraphQL, {clients} client(s)", run["graphql"])
        for clients, run in results["graphql_vs_raw"]["by_clients"].items()
    ]
    trips = results["round_trips"]
    phases += [(f"round trips, {f}", trips[f]) for f in ("startTask", "finishTask") if f in trips]
    subs = results["subscribers"]
    if subs["baseline"].startswith("measured"):
        phases.append(("0 subscribers", subs["without"]))
    phases.append((f"{subs['subscribers']} subscribers connecting", subs.get("connecting", {})))
    phases += [(f"{subs['subscribers']} subscribers", subs["with"]), ("light load", subs["light"])]
    phases.append((f"{subs['subscribers']} subscribers hanging up", subs.get("hanging_up", {})))
    scaling = results["scaling"]
    for step in scaling["steps"]:
        count = f"{step['subscribers']:,} subscribers"
        phases.append((f"{count} connecting", step.get("connecting", {})))
        phases.append((f"{count}, light", step["light"]))
    last = scaling["steps"][-1]["subscribers"]
    phases.append((f"{last:,} subscribers", scaling["loaded"]))
    phases.append((f"{last:,} subscribers hanging up", scaling.get("hanging_up", {})))
    # Results written before the connections were measured have no figures for them.
    phases = [(name, figures) for name, figures in phases if "gc" in figures]
    if "gc" in results["dashboard"]:
        phases.append(("dashboard page, all of part 5", results["dashboard"]))
    return phases


def gc_table(results: dict[str, Any]) -> Table:
    table = Table(title="The server's garbage collector during each phase", title_justify="left")
    table.add_column("phase")
    table.add_column("collections, generation 0 / 1 / 2", justify="right")
    table.add_column("paused in all", justify="right")
    table.add_column("longest pause", justify="right")
    for name, figures in [*server_phases(results), ("whole run", {"gc": results["gc"]})]:
        gc = figures["gc"]
        table.add_row(
            name,
            " / ".join(fmt(gc["collections"].get(g, 0)) for g in ("0", "1", "2")),
            fmt(gc["paused_ms"], " ms", 1),
            pause(gc),
        )
    return table


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    plan = make_plan(args)

    async def work(url: str, embedded_server: bool) -> dict[str, Any]:
        return {"plan": plan.__dict__, **await Bench(plan, url, embedded_server).run()}

    results = fixture.run_in_database("python -m bench.run", work)
    if results is None:
        return 130
    out = Console(width=None if sys.stdout.isatty() else 120)
    args.json.write_text(json.dumps(results, indent=2) + "\n")
    out.print(report(results, plan))
    out.print(cpu_table(results))
    out.print(gc_table(results))
    out.print(f"figures written to {args.json}")
    return 1 if "failed" in results["dashboard"] else 0


if __name__ == "__main__":
    sys.exit(main())
