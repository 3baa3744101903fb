"""Parts 1 and 2 of `python -m bench.run`: transitions through GraphQL beside the same SQL
from asyncpg, database round trips per mutation, and what live delivery costs the
commits."""

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from bench.http_floor import BareHttpServer
from bench.load import GraphQLClients, LoadResult, NotificationCounter, RawClients
from bench.measuring import GRAPHQL_CEILING, RAW_CEILING, Measuring, load_figures
from bench.output import log
from bench.shop import Shop
from bench.statements import StatementCounter
from bench.stats import (
    ratio,
    summary_ms,
)
from db import reads
from db.engine import create_engine
from db.feed import EventFeed

MODES = {
    "plain": "(a) plain",
    "notify": "(b) pg_notify in the transaction",
    "poke": "(c) our path: poke() a running EventFeed",
    "notifier": "(c') diagnostic: EventFeed's notifier alone, no reader",
}


class Throughput(Measuring):
    """Parts 1 and 2 of the run (bench.run's Bench adds the others)."""

    # --- part 1: GraphQL versus the raw floor ------------------------------------------

    async def raw_floor(self, shop: Shop, clients: int) -> dict[str, Any]:
        log(f"raw floor: the same SQL from asyncpg, {clients} connection(s)")
        raw = RawClients(self.dsn, shop.worker_ids, clients)
        await raw.open()
        try:
            return await self.measured(raw.run, self.plan.raw_seconds, RAW_CEILING, clients)
        finally:
            await raw.close()

    async def bare_http(self, shop: Shop, clients: int) -> dict[str, Any]:
        """The trusted documents' requests to the bare HTTP floor (bench/http_floor.py):
        what any Python server in front of the floor's statements costs."""
        log(f"bare HTTP floor: uvicorn and the same SQL, {clients} client(s)")
        bare = BareHttpServer(self.dsn, dict(zip(shop.worker_tokens, shop.worker_ids, strict=True)))
        self.other_server = bare
        try:
            async with bare.running():
                return await self.posting(bare.http_url, shop, clients, trusted=True)
        finally:
            self.other_server = None

    async def graphql(
        self, shop: Shop, label: str, clients: int, *, trusted: bool = False
    ) -> dict[str, Any]:
        assert self.server is not None
        log(f"{label}: GraphQL over HTTP, {clients} client(s)")
        return await self.posting(self.server.http_url, shop, clients, trusted=trusted)

    async def posting(self, url: str, shop: Shop, clients: int, *, trusted: bool) -> dict[str, Any]:
        """The moves posted to `url` by `clients` of the shop's workers, measured."""
        http = GraphQLClients(url, shop.worker_tokens, clients, trusted=trusted)
        try:
            return await self.measured(
                http.run, self.plan.graphql_seconds, GRAPHQL_CEILING, clients
            )
        finally:
            await http.close()

    async def round_trips(self, shop: Shop) -> None:
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

    # --- part 2: the cost of live delivery on commits ----------------------------------

    async def commit_path(self, shop: Shop) -> None:
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


def merge(results: list[LoadResult]) -> LoadResult:
    merged = LoadResult()
    for r in results:
        merged.add(r)
    return merged


def average(samples: list[dict[str, float]]) -> dict[str, float]:
    keys = {k for sample in samples for k in sample}
    return {k: round(sum(s.get(k, 0.0) for s in samples) / len(samples), 2) for k in keys}
