"""The floor under a hostile door: legitimate work beside anonymous attacks, quiet then hostile.

    .venv/bin/python -m bench.hostile               # two 5-minute phases, about 13 minutes
    .venv/bin/python -m bench.hostile --quick       # two 20-second phases, about 2 minutes
    .venv/bin/python -m bench.hostile --minutes 2   # two 2-minute phases

One `pressroom serve` in a subprocess on a fresh database (bench/fixture.py), and two
phases of the same length, each with the same legitimate work:

- 8 workers (session tokens, aiohttp keep-alive clients, GraphQL over HTTP), each on a
  fixed schedule of 1.5 cycles a second: start a task, finish it, read a queue page (the
  wall display's first page, `WallQueue`, of a department holding 100 waiting tasks that
  nobody moves, so that the page costs the same in both phases). Every request's time
  counts, failed ones too (a timeout counts as its 30 s).
- 200 wall displays (display tokens, `queueEvents` over graphql-transport-ws, in a
  process of their own: bench/subscribers.py) on the 10 departments the workers work in,
  each event reaching 20 of them. After each phase, once they have received everything
  the server still had to send, each display's count is compared with the events of its
  department in the log: missed events (target 0).
- a probe of `/readyz` twice a second.

The hostile phase adds bench/attackers.py in a process of its own, at nice 10: sign-in
floods, validation bombs, distinct-document churn, websocket churn and unsigned POSTs to
the payments inbox, each offered at a fixed rate (`attackers.KINDS`), so that two
versions of the server meet the same attack.

Prints: the legitimate p50 / p99 of each request (hostile / quiet p99: target at most 2),
legitimate errors (target 0), events missed by displays (target 0), the server's RSS
(psutil; growth over the hostile phase: target under 100 MB over 5 minutes), its longest
garbage-collector pause in each phase (its /metrics, `pressroom_gc_pause_max_seconds`:
target 50 ms), the attackers' answers by kind (HTTP status and error code), and the CPU
each side used (this machine's cores are shared by the server, PostgreSQL, the displays,
the attackers and the bench). Figures go to bench/hostile-results.json.

The bench never waits without bound: every request has a timeout, every loop a deadline,
each phase a ceiling, and the attack stops early if the server's RSS passes
`RSS_CEILING_MB`; whatever the server does, the figures are printed.
"""

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

if __package__ in (None, ""):  # run as `python bench/hostile.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiohttp
import asyncpg
import httpx
import orjson
from rich.console import Console, Group
from rich.table import Table

from api.ids import encode_id
from bench import attackers, dashboard_seed, fixture
from bench.fleet import SubscriberFleet, delivered, drain, expected_events
from bench.load import FINISH_TASK, HTTP_ERRORS, START_TASK, KeepAliveClients
from bench.output import fmt, log, verdict
from bench.run_tables import pause
from bench.servers import ServerProcess
from bench.shop import Shop, TaskPool, seed_shop
from bench.stats import (
    CpuMeter,
    GcReading,
    gc_between,
    gc_reading,
    process_tree,
    ratio,
    summary_ms,
    this_process,
)
from bench.year import WALL_QUEUE

RESULTS = Path(__file__).with_name("hostile-results.json")
WORKERS = 8
DISPLAYS = 200
DEPARTMENTS = 10  # worked; one more holds the queue page the workers read
CYCLES_PER_SECOND = 1.0  # per worker: a start, a finish and a queue page
READ_TASKS = 100
LEGIT_TIMEOUT = 30
PROBE_EVERY = 0.5
SAMPLE_EVERY = 0.5
# The attack stops when the server holds this much: the machine is shared.
RSS_CEILING_MB = 6000
# The displays' processes end by themselves this long after both phases would have.
DISPLAYS_SLACK = 600

TARGET_P99_RATIO = 2.0
TARGET_RSS_GROWTH_MB = 100.0
TARGET_GC_PAUSE_MS = 50.0

REQUESTS = ("startTask", "finishTask", "queue page")
VICTIM = "victim@bench.test"
INBOX = "bank"
SIGN_IN = fixture.web_operation("screens/signin.js", "SIGN_IN")
SETUP = """
mutation Setup($inbox: CreatePaymentInboxInput!, $user: CreateUserInput!) {
  createPaymentInbox(input: $inbox) { inbox { id } userErrors { code message } }
  createUser(input: $user) { user { id } userErrors { code message } }
}"""

T = TypeVar("T")


@dataclass(frozen=True)
class Plan:
    phase_seconds: float
    json: Path


def parse_args(argv: list[str] | None) -> Plan:
    p = argparse.ArgumentParser(prog="bench.hostile", description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=5, help="length of each phase (5)")
    p.add_argument("--quick", action="store_true", help="two 20-second phases")
    p.add_argument("--json", type=Path, default=RESULTS, help="where to write the figures")
    args = p.parse_args(argv)
    return Plan(phase_seconds=20 if args.quick else args.minutes * 60, json=args.json)


# --- the legitimate floor ------------------------------------------------------------


@dataclass
class FloorTally:
    """What the workers and the readiness probe saw in one phase."""

    seconds: dict[str, list[float]] = field(default_factory=lambda: {r: [] for r in REQUESTS})
    ok: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    first_errors: list[str] = field(default_factory=list)
    late_cycles: int = 0
    exhausted: bool = False
    readyz: list[float] = field(default_factory=list)
    readyz_failed: Counter[str] = field(default_factory=Counter)

    def error(self, request: str, message: str) -> None:
        self.errors[request] += 1
        if len(self.first_errors) < 5:
            self.first_errors.append(f"{request}: {message[:300]}")

    def figures(self) -> dict[str, Any]:
        return {
            "requests": {
                r: {"ok": self.ok[r], "errors": self.errors[r], **summary_ms(self.seconds[r])}
                for r in REQUESTS
            },
            "errors": sum(self.errors.values()),
            "first_errors": self.first_errors,
            "late_cycles": self.late_cycles,
            "pool_exhausted": self.exhausted,
            "readyz": {**summary_ms(self.readyz), "failed": dict(self.readyz_failed)},
        }


def answered(request: str, data: Any) -> str | None:
    """What is wrong with a legitimate answer, or None."""
    if not isinstance(data, dict) or data.get("errors"):
        return str(data)[:300]
    if request == "queue page":
        edges = ((data.get("data") or {}).get("queue") or {}).get("edges")
        return None if edges is not None and len(edges) == READ_TASKS else str(data)[:300]
    payload = (data.get("data") or {}).get(request)
    if not payload or payload["userErrors"] or not payload["changed"]:
        return str(data)[:300]
    return None


class Workers:
    """The shop's workers, each on a keep-alive connection of its own and a fixed schedule."""

    def __init__(self, url: str, tokens: list[str], reads: str) -> None:
        self.url = url
        self.tokens = tokens
        self.http = KeepAliveClients(WORKERS, timeout=LEGIT_TIMEOUT)
        self.read_body = orjson.dumps(
            {"query": WALL_QUEUE, "operationName": "WallQueue", "variables": {"department": reads}}
        )

    async def _call(self, client: int, request: str, body: bytes, tally: FloorTally) -> bool:
        token = self.tokens[client % len(self.tokens)]
        started = time.perf_counter()
        try:
            _, content = await self.http.post(
                client, self.url, body, {"authorization": f"Bearer {token}"}
            )
            problem = answered(request, orjson.loads(content))
        except (*HTTP_ERRORS, ValueError) as error:
            problem = repr(error)
        tally.seconds[request].append(time.perf_counter() - started)
        if problem is not None:
            tally.error(request, problem)
            return False
        tally.ok[request] += 1
        return True

    @staticmethod
    def _move(name: str, query: str, task_id: int) -> bytes:
        return orjson.dumps(
            {
                "query": query,
                "operationName": name,
                "variables": {"input": {"taskId": encode_id("DepartmentTask", task_id)}},
            }
        )

    async def _worker(
        self, client: int, pool: list[int], tally: FloorTally, deadline: float, halt: asyncio.Event
    ) -> None:
        interval = 1 / CYCLES_PER_SECOND
        next_at = time.perf_counter() + interval * client / WORKERS
        while True:
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
            if time.perf_counter() >= deadline or halt.is_set():
                return
            if not pool:
                tally.exhausted = True
                return
            task_id = pool.pop()
            # A started task is always finished, past the deadline too: none is left open.
            if await self._call(
                client, "startTask", self._move("StartTask", START_TASK, task_id), tally
            ):
                await self._call(
                    client, "finishTask", self._move("FinishTask", FINISH_TASK, task_id), tally
                )
            await self._call(client, "queue page", self.read_body, tally)
            next_at += interval
            now = time.perf_counter()
            if now > next_at:
                tally.late_cycles += 1
                next_at = now

    async def run(
        self, pool: list[int], seconds: float, halt: asyncio.Event, tally: FloorTally
    ) -> None:
        deadline = time.perf_counter() + seconds
        # Bounded as a whole too: a cycle's three requests past the deadline at most.
        try:
            async with asyncio.timeout(seconds + 4 * LEGIT_TIMEOUT), asyncio.TaskGroup() as group:
                for client in range(WORKERS):
                    group.create_task(self._worker(client, pool, tally, deadline, halt))
        except TimeoutError:
            tally.error("phase", "still running past its ceiling: the workers were stopped")

    async def close(self) -> None:
        await self.http.close()


async def probe_readiness(base: str, tally: FloorTally) -> None:
    """/readyz twice a second until cancelled."""
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as session:
        while True:
            started = time.perf_counter()
            try:
                async with session.get(f"{base}/readyz") as response:
                    await response.read()
                    if response.status != 200:
                        tally.readyz_failed[str(response.status)] += 1
            except HTTP_ERRORS as error:
                tally.readyz_failed[type(error).__name__] += 1
            tally.readyz.append(time.perf_counter() - started)
            await asyncio.sleep(max(0.0, started + PROBE_EVERY - time.perf_counter()))


# --- the attackers' process ------------------------------------------------------------


class AttackerProcess:
    """`python -m bench.attackers`: started, then stopped and asked for its figures."""

    def __init__(self) -> None:
        self.process: asyncio.subprocess.Process | None = None
        self.spec = tempfile.NamedTemporaryFile(  # noqa: SIM115 (removed in stop)
            "w", prefix="pressroom-bench-attack-", suffix=".json", delete=False
        )

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    async def start(self, spec: dict[str, Any]) -> None:
        json.dump(spec, self.spec)
        self.spec.close()
        self.process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.attackers",
            "--spec",
            self.spec.name,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=fixture.ROOT,
            limit=1 << 26,  # the result carries every answer time
        )
        started = await self._line(30)
        if started.get("kind") != "started":
            raise RuntimeError(f"the attackers did not start: {started}")

    async def _line(self, within: float) -> dict[str, Any]:
        assert self.process is not None and self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), within)
        if not line:
            return {"kind": "ended", "body": f"exit status {await self.process.wait()}"}
        message: dict[str, Any] = json.loads(line)
        return message

    async def stop(self) -> dict[str, Any]:
        """Its figures (or {"failed": why}); the process is gone afterwards."""
        process = self.process
        result: dict[str, Any] = {"failed": "not started"}
        if process is not None and process.stdin is not None:
            with contextlib.suppress(OSError, RuntimeError):
                process.stdin.write(b"stop\n")
                await process.stdin.drain()
            try:
                message = await self._line(60)
                result = message["body"] if message["kind"] == "result" else {"failed": message}
            except (TimeoutError, ValueError) as error:
                result = {"failed": repr(error)}
            try:
                await asyncio.wait_for(process.wait(), 10)
            except TimeoutError:
                process.kill()
                await process.wait()
        with contextlib.suppress(OSError):
            os.unlink(self.spec.name)
        return result


# --- the bench -------------------------------------------------------------------------


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
        total = 0
        for process in processes:
            with contextlib.suppress(Exception):
                total += process.memory_info().rss
        return round(total / 2**20, 1) if processes else None

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

    async def setup(self, shop: Shop, reads: str) -> None:
        """The payments inbox the attackers knock at, and the account whose password they
        guess, made through the API as the shop's admin."""
        assert self.server is not None
        token = await dashboard_seed.admin_token(self.url, shop)
        variables = {
            "inbox": {"name": INBOX, "currency": "GBP"},
            "user": {
                "email": VICTIM,
                "name": "Victim",
                "password": "the real one, long enough",
                "departmentCodes": [reads],
            },
        }
        async with httpx.AsyncClient(timeout=30, trust_env=False) as client:
            response = await client.post(
                self.server.http_url,
                json={"query": SETUP, "variables": variables},
                headers={"authorization": f"Bearer {token}"},
            )
        body = response.json()
        data = body.get("data") or {}
        if body.get("errors") or any(data[f]["userErrors"] for f in data):
            raise RuntimeError(f"setting up the inbox and the victim failed: {body}")

    def attack_spec(self) -> dict[str, Any]:
        assert self.server is not None
        return {
            "url": self.server.http_url,
            # A backstop: the phase stops them at its end, which the workers' last
            # requests can carry past its length (Workers.run's ceiling).
            "seconds": self.plan.phase_seconds + 4 * LEGIT_TIMEOUT + 60,
            "inbox": INBOX,
            "victim": VICTIM,
            "sign_in": SIGN_IN,
        }

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
        for name in await fixture.drop_stale_databases(self.url):
            log(f"dropped {name}, left behind by a run that was killed")
        log("creating the bench database (migrations) and the shop")
        await fixture.create_database(self.url)
        # One display in eleven would fall on the read department: seed a few more and
        # leave those out.
        seeded = await seed_shop(
            self.url,
            departments=DEPARTMENTS + 1,
            workers=WORKERS,
            displays=DISPLAYS * (DEPARTMENTS + 1) // DEPARTMENTS + 1,
        )
        reads = seeded.department_codes[-1]
        worked = replace(
            seeded,
            department_codes=seeded.department_codes[:-1],
            department_ids=seeded.department_ids[:-1],
        )
        displays = [d for d in seeded.displays if d[1] != reads][:DISPLAYS]
        read_view = replace(
            seeded,
            department_codes=seeded.department_codes[-1:],
            department_ids=seeded.department_ids[-1:],
        )
        await TaskPool(self.url, read_view, prefix="R").take(READ_TASKS)
        # Both phases' tasks made before any display connects (making one writes events);
        # each phase has its own pool, a third more than its schedule can use.
        per_phase = int(WORKERS * CYCLES_PER_SECOND * self.plan.phase_seconds * 4 / 3) + WORKERS
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
            await self.setup(seeded, reads)
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


# --- output ------------------------------------------------------------------------------


def report(results: dict[str, Any], plan: Plan) -> Group:
    seconds = plan.phase_seconds
    length = f"{seconds / 60:g} min" if seconds % 60 == 0 else f"{seconds:g} s"
    quiet, hostile = results.get("quiet", {}), results.get("hostile", {})
    table = Table(
        title=f"The floor under a hostile door: {length} quiet, then {length} hostile",
        title_justify="left",
    )
    table.add_column("measure")
    table.add_column("quiet", justify="right")
    table.add_column("hostile", justify="right")
    table.add_column("target", justify="right")
    table.add_column("")
    for request in REQUESTS:
        q = quiet.get("floor", {}).get("requests", {}).get(request, {})
        h = hostile.get("floor", {}).get("requests", {}).get(request, {})
        table.add_row(
            f"{request} p50 / p99",
            f"{fmt(q.get('p50_ms'), digits=1)} / {fmt(q.get('p99_ms'), digits=1)} ms",
            f"{fmt(h.get('p50_ms'), digits=1)} / {fmt(h.get('p99_ms'), digits=1)} ms",
        )
        r = ratio(h.get("p99_ms"), q.get("p99_ms"))
        table.add_row(
            "  hostile / quiet p99", "", fmt(r, digits=2), f"<= {TARGET_P99_RATIO:g}",
            verdict(r, lambda v: v <= TARGET_P99_RATIO),
        )  # fmt: skip
    for request in REQUESTS:
        q = quiet.get("floor", {}).get("requests", {}).get(request, {})
        h = hostile.get("floor", {}).get("requests", {}).get(request, {})
        table.add_row(
            f"{request}: done / failed",
            f"{fmt(q.get('ok'))} / {fmt(q.get('errors'))}",
            f"{fmt(h.get('ok'))} / {fmt(h.get('errors'))}",
            "0 failed",
            verdict(h.get("errors"), lambda v: v == 0),
        )
    table.add_row(
        "  cycles begun late (the schedule slipped)",
        fmt(quiet.get("floor", {}).get("late_cycles")),
        fmt(hostile.get("floor", {}).get("late_cycles")),
        end_section=True,
    )
    q_ready = quiet.get("floor", {}).get("readyz", {})
    h_ready = hostile.get("floor", {}).get("readyz", {})
    table.add_row(
        "/readyz p50 / p99",
        f"{fmt(q_ready.get('p50_ms'), digits=1)} / {fmt(q_ready.get('p99_ms'), digits=1)} ms",
        f"{fmt(h_ready.get('p50_ms'), digits=1)} / {fmt(h_ready.get('p99_ms'), digits=1)} ms",
    )
    table.add_row(
        "  /readyz not 200",
        fmt(sum(q_ready.get("failed", {}).values())),
        fmt(sum(h_ready.get("failed", {}).values())),
        end_section=True,
    )
    q_del, h_del = quiet.get("delivery", {}), hostile.get("delivery", {})
    table.add_row(
        f"display events received / expected ({results.get('displays_connected', 0)} displays)",
        f"{fmt(q_del.get('received'))} / {fmt(q_del.get('expected'))}",
        f"{fmt(h_del.get('received'))} / {fmt(h_del.get('expected'))}",
    )
    table.add_row(
        "  missed (displays missing any; most by one display)",
        missed(q_del),
        missed(h_del),
        "0",
        verdict(h_del.get("missing"), lambda v: v == 0),
    )
    q_disp, h_disp = quiet.get("displays", {}), hostile.get("displays", {})
    table.add_row(
        "  commit-to-receipt p50 / p99",
        latency(q_disp.get("receipt_latency", {})),
        latency(h_disp.get("receipt_latency", {})),
    )
    table.add_row(
        "  subscriptions the server ended (so far)",
        fmt(q_disp.get("dropped_so_far")),
        fmt(h_disp.get("dropped_so_far")),
        end_section=True,
    )
    rss = results.get("rss", {})
    table.add_row(
        "server RSS at the start / end of the phase",
        f"{fmt(rss.get('quiet_start_mb'))} / {fmt(rss.get('hostile_start_mb'))} MB",
        f"{fmt(rss.get('hostile_start_mb'))} / {fmt(rss.get('hostile_end_mb'))} MB",
    )
    table.add_row(
        "  growth over the phase",
        fmt(rss.get("quiet_growth_mb"), " MB"),
        fmt(rss.get("hostile_growth_mb"), " MB"),
        f"< {TARGET_RSS_GROWTH_MB:g} MB over 5 min",
        verdict(rss.get("hostile_growth_mb"), lambda v: v < TARGET_RSS_GROWTH_MB),
    )
    table.add_row(
        "  peak in the phase; 10 s after it",
        "",
        f"{fmt(rss.get('hostile_peak_mb'))}; {fmt(rss.get('settled_mb'))} MB",
        end_section=True,
    )
    q_gc, h_gc = quiet.get("gc"), hostile.get("gc")
    table.add_row(
        "longest garbage-collector pause",
        pause(q_gc) if q_gc else "-",
        pause(h_gc) if h_gc else "-",
        f"<= {TARGET_GC_PAUSE_MS:g} ms",
        verdict(h_gc["longest_ms"] if h_gc else None, lambda v: v <= TARGET_GC_PAUSE_MS),
    )
    table.add_row(
        "  collections, generation 0 / 1 / 2",
        collections(q_gc),
        collections(h_gc),
    )
    notes = []
    for phase, figures in (("quiet", quiet), ("hostile", hostile)):
        if "failed" in figures:
            notes.append(f"[red]{phase}: failed: {figures['failed']}[/red]")
        if "halted" in figures:
            notes.append(f"[red]{phase}: stopped early: {figures['halted']}[/red]")
        if figures.get("floor", {}).get("pool_exhausted"):
            notes.append(f"[red]{phase}: the workers ran out of tasks[/red]")
        for error in figures.get("floor", {}).get("first_errors", [])[:3]:
            notes.append(f"{phase}, first errors: {error}")
    return Group(table, attack_table(hostile.get("attack", {})), cpu_table(results), *notes)


def missed(delivery: dict[str, Any]) -> str:
    if not delivery:
        return "-"
    return (
        f"{fmt(delivery['missing'])} ({fmt(delivery['subscribers_missing'])}; "
        f"{fmt(delivery['most_missed_by_one'])})"
    )


def latency(summary: dict[str, Any]) -> str:
    return f"{fmt(summary.get('p50_ms'), digits=1)} / {fmt(summary.get('p99_ms'), digits=1)} ms"


def collections(gc: dict[str, Any] | None) -> str:
    if not gc:
        return "-"
    return " / ".join(fmt(gc["collections"].get(g, 0)) for g in ("0", "1", "2"))


def attack_table(attack: dict[str, Any]) -> Table:
    table = Table(title="What the attackers got, by kind", title_justify="left")
    table.add_column("kind")
    table.add_column("offered/s", justify="right")
    table.add_column("sent", justify="right")
    table.add_column("skipped", justify="right")
    table.add_column("answers (HTTP status and code, or what happened)")
    table.add_column("p50 / p99", justify="right")
    if "failed" in attack:
        table.add_row("[red]the attackers failed[/red]", "", "", "", str(attack["failed"])[:300])
        return table
    kinds = attack.get("kinds", {})
    for kind in attackers.KINDS:
        figures = kinds.get(kind.name)
        if figures is None:
            continue
        answers = ", ".join(f"{what}: {n:,}" for what, n in figures["outcomes"].items())
        summary = summary_ms(figures["seconds"])
        table.add_row(
            kind.name,
            fmt(kind.rate),
            fmt(figures["sent"]),
            fmt(figures["skipped"]),
            answers,
            latency(summary),
        )
    if "cpu_seconds" in attack:
        table.add_row("the attackers' own CPU", "", "", "", fmt(attack["cpu_seconds"], " s", 1))
    return table


CPU_GROUPS = ("bench", "attackers", "displays", "server", "postgres", "irq", "others")


def cpu_table(results: dict[str, Any]) -> Table:
    table = Table(
        title=f"CPU used during each phase, in cores ({os.cpu_count()} on this machine)",
        title_justify="left",
    )
    table.add_column("phase")
    for group in CPU_GROUPS:
        table.add_column(group, justify="right")
    for phase in ("quiet", "hostile"):
        cpu = results.get(phase, {}).get("cpu_cores", {})
        table.add_row(phase, *(fmt(cpu.get(g), digits=2) for g in CPU_GROUPS))
    return table


def main(argv: list[str] | None = None) -> int:
    plan = parse_args(argv)

    async def work(url: str, embedded_server: bool) -> dict[str, Any]:
        return {
            "plan": {"phase_seconds": plan.phase_seconds},
            **await Bench(plan, url, embedded_server).run(),
        }

    results = fixture.run_in_database("python -m bench.hostile", work)
    if results is None:
        return 130
    plan.json.write_text(json.dumps(results, indent=2) + "\n")
    out = Console(width=None if sys.stdout.isatty() else 140)
    out.print(report(results, plan))
    out.print(f"figures written to {plan.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
