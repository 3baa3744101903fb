"""What every part of `python -m bench.run` measures with: its plan, the task pool, a load
warmed up and measured with its CPU and the server's garbage collector, and the
connections the database saw opened."""

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import asyncpg

from bench import fixture
from bench.fleet import SubscriberFleet
from bench.load import LoadResult
from bench.servers import ServerProcess, ServerSubprocess
from bench.shop import TaskPool
from bench.stats import (
    CpuMeter,
    GcReading,
    gc_between,
    gc_reading,
    process_tree,
    summary_ms,
    this_process,
)


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


# Transitions/s no phase can exceed; sizes the warm-up's task pool (the measured phase's
# pool is sized from the warm-up's rate).
RAW_CEILING = 8000
GRAPHQL_CEILING = 2500


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


class Measuring:
    """A run's plan, database, server, task pool and subscribers, and the measure of a load."""

    def __init__(self, plan: Plan, url: str, embedded_server: bool) -> None:
        self.plan = plan
        self.url = url
        self.dsn = fixture.dsn(url)
        self.embedded_server = embedded_server
        self.postmaster = fixture.postmaster_pid(embedded_server)
        self.server: ServerProcess | None = None
        # Another server measured while ours is not running (part 1's bare HTTP floor).
        self.other_server: ServerSubprocess | None = None
        self.fleet: SubscriberFleet | None = None
        self.pool: TaskPool | None = None
        self.monitor: asyncpg.Connection | None = None
        self.results: dict[str, Any] = {}

    def meter(self) -> CpuMeter:
        serving = self.server or self.other_server
        return CpuMeter(
            {
                "bench": this_process,
                "server": process_tree(serving.pid if serving else None),
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
        if self.server is not None:
            await self.server.feed_caught_up()
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
