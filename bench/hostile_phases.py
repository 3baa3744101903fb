"""The two phases of `python -m bench.hostile`, quiet then hostile: its plan, the shop, the
server with its wall displays, the floor measured in each phase (beside the attackers in the
second), what the displays received, the server's garbage collector, and its RSS sampled
throughout, the attack stopped should it pass a ceiling."""

import asyncio
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import asyncpg

from bench import fixture
from bench.attack import AttackerProcess, attack_spec, set_up_targets
from bench.fleet import SubscriberFleet, delivered, drain, expected_events
from bench.floor import (
    LEGIT_TIMEOUT,
    READ_TASKS,
    WORKERS,
    FloorTally,
    Workers,
    probe_readiness,
    seed_floor,
    tasks_per_phase,
)
from bench.output import log
from bench.servers import ServerProcess
from bench.shop import Shop, TaskPool
from bench.stats import (
    CpuMeter,
    GcReading,
    gc_between,
    gc_reading,
    process_tree,
    rss_mb,
    summary_ms,
    this_process,
)

DISPLAYS = 200
DEPARTMENTS = 10  # worked; one more holds the queue page the workers read
SAMPLE_EVERY = 0.5
# The attack stops when the server holds this much: the machine is shared.
RSS_CEILING_MB = 6000
# The displays' processes end by themselves this long after both phases would have.
DISPLAYS_SLACK = 600

T = TypeVar("T")


@dataclass(frozen=True)
class Plan:
    phase_seconds: float
    json: Path


class Bench:
    def __init__(self, plan: Plan, url: str, embedded_server: bool) -> None:
        self.plan = plan
        self.url = url
        self.dsn = fixture.dsn(url)
        self.postmaster = fixture.postmaster_pid(embedded_server)
        self.server: ServerProcess | None = None
        self.fleet: SubscriberFleet | None = None
        self.attackers: AttackerProcess | None = None
        self.stage = "setting up"
        self.rss: list[dict[str, Any]] = []
        self.halt = asyncio.Event()
        self.halted: str | None = None
        self.results: dict[str, Any] = {}

    def meter(self) -> CpuMeter:
        return CpuMeter(
            {
                "bench": this_process,
                "attackers": process_tree(self.attackers.pid if self.attackers else None),
                "displays": lambda: self.fleet.processes_now() if self.fleet else [],
                "server": process_tree(self.server.pid if self.server else None),
                "postgres": process_tree(self.postmaster),
            }
        )

    async def attempt(self, what: str, work: Awaitable[T]) -> T | None:
        """`work`'s result, or None (logged) when it fails: the figures are printed anyway."""
        try:
            return await work
        except Exception as error:
            log(f"[red]{what} failed: {error!r}[/red]")
            return None

    async def gc_now(self) -> GcReading | None:
        assert self.server is not None
        text = await self.attempt("reading /metrics", self.server.metrics())
        return gc_reading(text) if text is not None else None

    def server_rss_mb(self) -> float | None:
        assert self.server is not None
        processes = process_tree(self.server.pid)()
        return round(rss_mb(processes), 1) if processes else None

    async def sample_rss(self) -> None:
        """The server's RSS twice a second until cancelled; past the ceiling the attack
        stops."""
        started = time.perf_counter()
        while True:
            mb = self.server_rss_mb()
            if mb is not None:
                self.rss.append(
                    {"t": round(time.perf_counter() - started, 1), "phase": self.stage, "mb": mb}
                )
                if mb > RSS_CEILING_MB and not self.halt.is_set():
                    self.halted = f"the server's RSS passed {RSS_CEILING_MB} MB"
                    log(f"[red]{self.halted}: stopping the phase[/red]")
                    self.halt.set()
            await asyncio.sleep(SAMPLE_EVERY)

    async def last_event_id(self) -> int:
        conn = await asyncio.wait_for(asyncpg.connect(self.dsn), 30)
        try:
            return int(await conn.fetchval("SELECT coalesce(max(id), 0) FROM events", timeout=30))
        finally:
            await conn.close()

    def attack_spec(self) -> dict[str, Any]:
        assert self.server is not None
        # A backstop: the phase stops them at its end, which the workers' last requests
        # can carry past its length (Workers.run's ceiling).
        return attack_spec(self.server.http_url, self.plan.phase_seconds + 4 * LEGIT_TIMEOUT + 60)

    async def phase(
        self, name: str, workers: Workers, pool: list[int], shop: Shop, hostile: bool
    ) -> dict[str, Any]:
        assert self.server is not None and self.fleet is not None
        fleet = self.fleet
        figures: dict[str, Any] = {}
        first_event = await self.last_event_id()
        received_before = (await fleet.ask("totals", "totals", 30))["received"]
        if hostile:
            self.attackers = AttackerProcess()
            await self.attackers.start(self.attack_spec())
        self.stage = name
        log(f"{name}: {self.plan.phase_seconds:g} s")
        meter = self.meter()
        gc_before = await self.gc_now()
        await fleet.send("window")
        tally = FloorTally()
        meter.start()
        base = self.server.http_url.removesuffix("/graphql")
        probe = asyncio.create_task(probe_readiness(base, tally))
        try:
            await workers.run(pool, self.plan.phase_seconds, self.halt, tally)
        finally:
            probe.cancel()
            await asyncio.gather(probe, return_exceptions=True)
            figures["cpu_cores"] = meter.stop()
            figures["seconds"] = round(meter.elapsed, 1)
            if self.attackers is not None:
                figures["attack"] = await self.attackers.stop()
                self.attackers = None
        figures["floor"] = tally.figures()
        self.stage = f"after {name}"
        gc_after = await self.gc_now()
        if gc_before is not None and gc_after is not None:
            figures["gc"] = gc_between(gc_before, gc_after)
        figures["drain_seconds"] = await self.attempt(
            "draining the displays", drain(fleet, limit=120)
        )
        report = await self.attempt("asking the displays", fleet.ask("report", "report", 60))
        if report is not None:
            figures["displays"] = {
                "receipt_latency": summary_ms(report["latencies"]),
                "dropped_so_far": report["dropped"],
                "errors": report["errors"],
            }
        totals = await self.attempt(
            "counting the displays' events", fleet.ask("totals", "totals", 30)
        )
        if totals is not None:
            last_event = await self.last_event_id()
            expected = await expected_events(self.dsn, shop, fleet.specs, first_event, last_event)
            received = [
                now - before
                for now, before in zip(totals["received"], received_before, strict=True)
            ]
            figures["delivery"] = delivered(expected, received)
        if self.halted:
            figures["halted"] = self.halted
        return figures

    async def run(self) -> dict[str, Any]:
        await fixture.drop_stale_databases(self.url)
        log("creating the bench database (migrations) and the shop")
        await fixture.create_database(self.url)
        # One display in eleven would fall on the read department: seed a few more and
        # leave those out.
        floor = await seed_floor(
            self.url,
            departments=DEPARTMENTS,
            displays=DISPLAYS * (DEPARTMENTS + 1) // DEPARTMENTS + 1,
        )
        seeded, worked, reads = floor.seeded, floor.worked, floor.reads
        displays = [d for d in seeded.displays if d[1] != reads][:DISPLAYS]
        # Both phases' tasks made before any display connects (making one writes events);
        # each phase has its own pool.
        per_phase = tasks_per_phase(self.plan.phase_seconds)
        tasks = TaskPool(self.url, worked)
        pools = {name: await tasks.take(per_phase) for name in ("quiet", "hostile")}
        self.results["shop"] = {
            "workers": WORKERS,
            "displays": len(displays),
            "departments": DEPARTMENTS,
            "tasks_per_phase": per_phase,
            "read_tasks": READ_TASKS,
        }

        log("starting `pressroom serve`")
        self.server = ServerProcess(self.url)
        async with self.server.running():
            await set_up_targets(self.url, self.server.http_url, seeded, reads)
            workers = Workers(self.server.http_url, worked.worker_tokens, reads)
            self.fleet = SubscriberFleet(
                self.server.ws_url,
                compression=False,
                deadline=2 * self.plan.phase_seconds + DISPLAYS_SLACK,
            )
            sampler = asyncio.create_task(self.sample_rss())
            try:
                log(f"connecting {len(displays)} wall displays")
                connected = await self.fleet.add(displays)
                self.results["displays_connected"] = connected["connected"]
                self.results["displays_failed_to_connect"] = connected["failed_to_connect"]
                await asyncio.sleep(1)  # the last subscriptions join the feed
                for name, hostile in (("quiet", False), ("hostile", True)):
                    try:
                        self.results[name] = await self.phase(
                            name, workers, pools[name], worked, hostile
                        )
                    except Exception as error:
                        log(f"[red]{name}: failed: {error!r}[/red]")
                        self.server.show_tail()
                        self.results[name] = {"failed": repr(error)[:500]}
                        if self.attackers is not None:
                            await self.attackers.stop()
                            self.attackers = None
                self.stage = "settling"
                await asyncio.sleep(10)
            finally:
                sampler.cancel()
                await asyncio.gather(sampler, return_exceptions=True)
                await workers.close()
                await self.fleet.stop()
                self.fleet = None
        self.results["rss"] = rss_figures(self.rss)
        return self.results


def rss_figures(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """The server's RSS at each phase's start and end, its peak in the hostile phase, after
    settling, and its growth over the hostile phase."""

    def of(phase: str) -> list[float]:
        return [s["mb"] for s in samples if s["phase"] == phase]

    quiet, hostile, settled = of("quiet"), of("hostile"), of("settling")
    figures: dict[str, Any] = {
        "quiet_start_mb": quiet[0] if quiet else None,
        "hostile_start_mb": hostile[0] if hostile else None,
        "hostile_end_mb": hostile[-1] if hostile else None,
        "hostile_peak_mb": max(hostile) if hostile else None,
        "settled_mb": settled[-1] if settled else None,
        "samples": samples,
    }
    if hostile:
        figures["hostile_growth_mb"] = round(hostile[-1] - hostile[0], 1)
    if quiet:
        figures["quiet_growth_mb"] = round(quiet[-1] - quiet[0], 1)
    return figures
