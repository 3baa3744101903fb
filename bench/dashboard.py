"""Reads: the dashboard page through Pressroom, beside PostGraphile 4 on the same database.

    .venv/bin/python -m bench.dashboard              # about a minute on a 2-core machine
    .venv/bin/python -m bench.dashboard --seconds 3  # shorter, noisier

`python -m bench.run` runs the same measurement (`measure()`) as its part 5, on the
server and database of its other parts; alone, this module makes its own.

The page is the dashboard's query (tests/support.py's DASHBOARD_PAGE, copied here: the
bench does not import the tests): 50 work orders, newest first, each with its customer,
creator, history with actors, delivery task, and tasks with department, picker, the
picker's departments, and task history with actors. Targets (the speed issue): at most
3 database round trips per page whatever its size; server CPU per page <= 15 ms; pages/s
at least 0.5 of PostGraphile 4's on the same database, same page, same concurrency (1
and 8), in the same run.

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
import asyncio
import contextlib
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, Self

if __package__ in (None, ""):  # run as `python bench/dashboard.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncpg
import httpx
import psutil
from rich.console import Console
from rich.table import Table
from sqlalchemy.engine import make_url

from bench import fixture
from bench.load import HTTP_ERRORS, KeepAliveClients, Tally, run_loops
from bench.output import console, fmt, log, verdict
from bench.statements import EXTENSION, StatementCounter
from bench.stats import percentile, ratio
from db import customers, people, reads
from db.engine import create_engine, unit_of_work
from db.orders import NewWorkOrder, create_work_order
from db.tasks import Actor, transition_task
from domain.enums import DepartmentKind, TaskAction, TokenKind
from domain.money import Money

RESULTS = Path(__file__).with_name("dashboard-results.json")

PAGE_SIZE = 50
TARGET_ROUND_TRIPS = 3
TARGET_CPU_MS = 15.0
TARGET_RATIO = 0.5

# The dashboard's query, as tests/support.py's DASHBOARD_PAGE has it.
DASHBOARD_PAGE = """query Page($first: Int!) {
  workOrders(first: $first) {
    edges { node {
      orderNumber status quote { amount currency }
      customer { name }
      createdBy { name }
      history { action actor { name } }
      deliveryTask { availableAt }
      tasks {
        status availableAt
        department { code name }
        pickedUpBy { name departments { code } }
        history { action actor { name } }
      }
    } }
    pageInfo { hasNextPage endCursor }
  }
}"""

# The same page in PostGraphile 4's schema (default inflection, relay connections and
# simple lists both exposed): the page itself is a connection, as Pressroom's is, and
# the relations are lists. Work orders newest first and tasks and histories by id, as
# Pressroom orders them (its production tasks then the delivery task is id order here:
# the delivery department is made last). A picker's departments come through the
# user_departments link table, by primary key where Pressroom sorts them by code (the
# same order here: codes p00.. were made in order). The delivery task is the order's task
# in the delivery department, whose id is a variable.
POSTGRAPHILE_PAGE = """query Page($first: Int!, $delivery: BigInt!) {
  allWorkOrders(first: $first, orderBy: ID_DESC) {
    edges { node {
      orderNumber status quoteMinor quoteCurrency
      customerByCustomerId { name }
      userByCreatedBy { name }
      workOrderTransitionsByWorkOrderIdList(orderBy: ID_ASC) { action userByActorId { name } }
      deliveryTask: departmentTasksByWorkOrderIdList(condition: {departmentId: $delivery}) {
        availableAt
      }
      departmentTasksByWorkOrderIdList(orderBy: ID_ASC) {
        status availableAt
        departmentByDepartmentId { code name }
        userByPickedUpBy {
          name
          userDepartmentsByUserIdList(orderBy: PRIMARY_KEY_ASC) {
            departmentByDepartmentId { code }
          }
        }
        taskTransitionsByTaskIdList(orderBy: ID_ASC) { action userByActorId { name } }
      }
    } }
    pageInfo { hasNextPage endCursor }
  }
}"""

POSTGRAPHILE_PACKAGE = Path(__file__).with_name("postgraphile")
POSTGRAPHILE_CACHE = Path.home() / ".cache" / "pressroom-bench" / "postgraphile"
POSTGRAPHILE_OPTIONS = (
    "--disable-graphiql",
    # As recommended for production: logging every query costs CPU per page.
    "--disable-query-log",
    "--simple-collections",
    "both",
    "--no-setof-functions-contain-nulls",
)


def pinned_postgraphile() -> str:
    """The PostGraphile version bench/postgraphile/package.json pins."""
    manifest = json.loads((POSTGRAPHILE_PACKAGE / "package.json").read_text())
    version: str = manifest["dependencies"]["postgraphile"]
    return version


# --- the page, and what a page holds ----------------------------------------------------


@dataclass(frozen=True)
class PageShape:
    """What one answer holds, to check both servers answer the same page."""

    orders: int
    order_numbers: str  # a digest of the order numbers, in page order
    has_next_page: bool
    quotes: int
    order_history: int
    order_history_actors: int
    delivery_tasks: int
    tasks: int
    picked_up: int
    picker_departments: int
    task_history: int
    task_history_actors: int


@dataclass(frozen=True)
class PageFields:
    """Where a server's answer holds what PageShape counts: the field names of its schema
    for the page and its relations, and whether a node's `deliveryTask` (an alias in
    both queries) holds the delivery task."""

    page: str
    quote: str
    order_history: str
    tasks: str
    picker: str
    picker_departments: str
    task_history: str
    actor: str
    delivered: Callable[[Any], bool]


PRESSROOM_FIELDS = PageFields(
    page="workOrders",
    quote="quote",
    order_history="history",
    tasks="tasks",
    picker="pickedUpBy",
    picker_departments="departments",
    task_history="history",
    actor="actor",
    delivered=lambda task: task is not None,
)
POSTGRAPHILE_FIELDS = PageFields(
    page="allWorkOrders",
    quote="quoteMinor",
    order_history="workOrderTransitionsByWorkOrderIdList",
    tasks="departmentTasksByWorkOrderIdList",
    picker="userByPickedUpBy",
    picker_departments="userDepartmentsByUserIdList",
    task_history="taskTransitionsByTaskIdList",
    actor="userByActorId",
    delivered=lambda tasks: len(tasks) == 1,
)


def page_shape(body: dict[str, Any], f: PageFields) -> PageShape:
    page = body["data"][f.page]
    nodes = [edge["node"] for edge in page["edges"]]
    tasks = [task for node in nodes for task in node[f.tasks]]
    order_history = [h for node in nodes for h in node[f.order_history]]
    task_history = [h for task in tasks for h in task[f.task_history]]
    pickers = [task[f.picker] for task in tasks if task[f.picker]]
    return PageShape(
        orders=len(nodes),
        order_numbers=digest(node["orderNumber"] for node in nodes),
        has_next_page=page["pageInfo"]["hasNextPage"],
        quotes=sum(node[f.quote] is not None for node in nodes),
        order_history=len(order_history),
        order_history_actors=sum(h[f.actor] is not None for h in order_history),
        delivery_tasks=sum(f.delivered(node["deliveryTask"]) for node in nodes),
        tasks=len(tasks),
        picked_up=len(pickers),
        picker_departments=sum(len(p[f.picker_departments]) for p in pickers),
        task_history=len(task_history),
        task_history_actors=sum(h[f.actor] is not None for h in task_history),
    )


def digest(values: Any) -> str:
    return hashlib.sha256("\n".join(values).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Target:
    """A server answering the page: where, the request as bytes, and how to read it."""

    name: str
    url: str
    body: bytes
    headers: dict[str, str]
    fields: PageFields
    pid: int | None  # its process, for CPU accounting


def target(
    name: str,
    url: str,
    query: str,
    variables: dict[str, Any],
    fields: PageFields,
    pid: int | None,
    token: str | None = None,
) -> Target:
    # Encoded once: the bench must not spend its CPU (the machine's) on the requests.
    body = json.dumps({"query": query, "variables": variables, "operationName": "Page"}).encode()
    headers = {"content-type": "application/json"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    return Target(name, url, body, headers, fields, pid)


def check_page(target: Target, body: dict[str, Any]) -> PageShape:
    """The page's shape, once sure it is a full page with nested data."""
    if body.get("errors"):
        raise RuntimeError(f"{target.name}: the page failed: {str(body['errors'])[:500]}")
    shape = page_shape(body, target.fields)
    empty = [name for name, value in shape.__dict__.items() if not value and name != "quotes"]
    if shape.orders != PAGE_SIZE or empty:
        raise RuntimeError(
            f"{target.name}: expected {PAGE_SIZE} work orders with nested data, got {shape}"
        )
    return shape


# --- clients ----------------------------------------------------------------------------


@dataclass
class PageRun(Tally):
    pages: int = 0
    last_body: bytes = b""

    @property
    def rate(self) -> float:
        return self.per_second(self.pages)

    def add(self, other: Self) -> None:
        super().add(other)
        self.pages += other.pages


class PageClients(KeepAliveClients):
    """Keep-alive clients asking one server for the page."""

    def __init__(self, target: Target, clients: int) -> None:
        super().__init__(clients, timeout=60)
        self.target = target

    async def one(self, client: int = 0) -> dict[str, Any]:
        """One page, parsed."""
        t = self.target
        _, content = await self.post(client, t.url, t.body, t.headers)
        body: dict[str, Any] = json.loads(content)
        return body

    async def run(self, seconds: float, pages: int | None = None) -> PageRun:
        """Pages as fast as they come, until `seconds` have passed (or `pages` are done).
        Answers are checked by their bytes (status 200, no "errors" key); the last one is
        parsed and checked in full afterwards."""
        run = PageRun()
        t = self.target

        async def page(index: int, deadline: float) -> bool:
            if pages is not None and run.pages >= pages:
                return False
            t0 = time.perf_counter()
            try:
                status, content = await self.post(index, t.url, t.body, t.headers)
            except HTTP_ERRORS as error:
                run.error(f"{t.name}: {error!r}")
                return True
            if status != 200 or b'"errors"' in content:
                run.error(f"{t.name}: HTTP {status}: {content[:500]!r}")
                return True
            run.latencies.append(time.perf_counter() - t0)
            run.pages += 1
            run.last_body = content
            return True

        await run_loops(self.clients, seconds, run, page, slack=120)
        if run.last_body:
            check_page(t, json.loads(run.last_body))
        return run


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


# --- PostGraphile -----------------------------------------------------------------------


def installed_postgraphile(cache: Path) -> str | None:
    """The PostGraphile version installed in `cache`, if the install is complete and from
    the lock file the repository holds now."""
    try:
        version: str = json.loads(
            (cache / "node_modules" / "postgraphile" / "package.json").read_text()
        )["version"]
        ours = (POSTGRAPHILE_PACKAGE / "package-lock.json").read_bytes()
        theirs = (cache / "package-lock.json").read_bytes()
    except (OSError, ValueError, KeyError):
        return None
    return version if ours == theirs else None


def install_postgraphile(cache: Path) -> tuple[Path | None, str]:
    """PostGraphile's CLI script, installed with npm into `cache` unless it is there
    already; or None and why not."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        return None, f"{'node' if node is None else 'npm'} is not on PATH"
    version = pinned_postgraphile()
    cli = cache / "node_modules" / "postgraphile" / "cli.js"
    if installed_postgraphile(cache) == version and cli.exists():
        return cli, f"postgraphile {version} already installed in {cache}"
    log(f"installing postgraphile {version} with npm into {cache}")
    try:
        cache.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(POSTGRAPHILE_PACKAGE / name, cache / name)
        done = subprocess.run(
            [npm, "ci", "--prefix", str(cache), "--no-audit", "--no-fund", "--loglevel=error"],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=cache,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return None, f"the install failed: {error}"
    if done.returncode != 0:
        tail = " | ".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        return None, f"npm ci failed (exit {done.returncode}): {tail}"
    if installed_postgraphile(cache) != version or not cli.exists():
        return None, f"npm ci ran, but postgraphile {version} is not in {cache}"
    return cli, f"postgraphile {version} installed in {cache}"


class PostGraphileProcess(fixture.ServerSubprocess):
    """`postgraphile` (node)."""

    def __init__(self, cli: Path, dsn: str) -> None:
        super().__init__("postgraphile")
        self.cli = cli
        self.dsn = dsn

    def command(self) -> tuple[list[str], dict[str, str], Path]:
        node = shutil.which("node") or "node"
        command = [
            node,
            str(self.cli),
            "--connection",
            self.dsn,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            *POSTGRAPHILE_OPTIONS,
        ]
        return command, {**os.environ, "NODE_ENV": "production"}, self.cli.parent

    async def probe(self, client: httpx.AsyncClient) -> httpx.Response:
        return await client.post(self.http_url, json={"query": "{ __typename }"})

    def failure(self, what: str) -> RuntimeError:
        # With its log's tail: the log is removed when it stops.
        return RuntimeError(f"postgraphile {what}: {self.tail(5, ' | ')}")


# --- measuring --------------------------------------------------------------------------


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
    version = pinned_postgraphile()
    peer_info: dict[str, Any] = {
        "version": version,
        "query": POSTGRAPHILE_PAGE,
        "options": list(POSTGRAPHILE_OPTIONS),
        "skipped": None,
    }
    results["postgraphile"] = peer_info
    peer: PostGraphileProcess | None = None
    try:
        if not postgraphile:
            peer_info["skipped"] = "--no-postgraphile"
        else:
            cli, said = await asyncio.to_thread(install_postgraphile, cache)
            if cli is None:
                peer_info["skipped"] = said
            else:
                log(said)
                peer = PostGraphileProcess(cli, dsn)
                try:
                    await peer.start()
                    log(f"postgraphile {version} answering at {peer.http_url}")
                    targets.append(
                        target(
                            "postgraphile",
                            peer.http_url,
                            POSTGRAPHILE_PAGE,
                            {"first": PAGE_SIZE, "delivery": str(delivery)},
                            POSTGRAPHILE_FIELDS,
                            peer.pid,
                        )
                    )
                except RuntimeError as error:
                    peer_info["skipped"] = f"it did not start: {error}"
        if peer_info["skipped"]:
            console.print(f"[yellow]PostGraphile skipped: {peer_info['skipped']}[/yellow]")

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
    finally:
        if peer is not None:
            peer.stop()
            peer.remove_log()
    return results


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


# --- the data ---------------------------------------------------------------------------


async def seed_orders(url: str, shop: fixture.Shop, count: int = 200) -> dict[str, int]:
    """`count` work orders made as the server makes them (db.orders.create_work_order),
    each for one to three production departments plus delivery, for one of 10
    customers, some with a quote; about half of the production tasks started by a
    worker, a third of those finished (db.tasks.transition_task), so pickers and task
    histories are on the page. Returns what was made."""
    made = {"work_orders": 0, "tasks_started": 0, "tasks_finished": 0}
    engine = create_engine(url, pool_size=2, max_overflow=0)
    codes = shop.department_codes
    workers = shop.worker_ids
    try:
        async with unit_of_work(engine) as conn:
            clients = [shop.customer_id]
            for i in range(9):
                clients.append(
                    (
                        await customers.create_customer(conn, f"Customer {i}", shop.admin_id)
                    ).customer.id
                )
        for n in range(count):
            picked = list(dict.fromkeys(codes[(n + 3 * k) % len(codes)] for k in range(1 + n % 3)))
            async with unit_of_work(engine) as conn:
                created = await create_work_order(
                    conn,
                    NewWorkOrder(
                        customer_id=clients[n % len(clients)],
                        order_number=None,
                        details={"product": "Flyers A5"},
                        department_codes=picked,
                        needs_installation=False,
                        needs_transport=False,
                        needs_repair=False,
                        quote=Money(10_000 + 250 * n, "EUR") if n % 4 == 0 else None,
                        created_by=shop.admin_id if n % 2 else workers[n % len(workers)],
                    ),
                )
                tasks = await reads.tasks_of_work_orders(conn, [created.order.id])
                production = [t for t in tasks if t.department_kind == DepartmentKind.PRODUCTION]
                for i, task in enumerate(production):
                    if (n + i) % 2:
                        continue
                    actor = Actor(workers[(n + 7 * i) % len(workers)], False)
                    await transition_task(conn, task.id, TaskAction.START, actor)
                    made["tasks_started"] += 1
                    if (n + i) % 3 == 0:
                        await transition_task(conn, task.id, TaskAction.FINISH, actor)
                        made["tasks_finished"] += 1
            made["work_orders"] += 1
    finally:
        await engine.dispose()
    conn = await asyncpg.connect(fixture.dsn(url))
    try:
        await conn.execute("ANALYZE")
    finally:
        await conn.close()
    return made


async def admin_token(url: str, shop: fixture.Shop) -> str:
    """A session token of the shop's admin, who sees the whole dashboard."""
    engine = create_engine(url, pool_size=1, max_overflow=0)
    try:
        async with unit_of_work(engine) as conn:
            issued = await people.issue_token(
                conn,
                kind=TokenKind.SESSION,
                name="dashboard bench",
                user_id=shop.admin_id,
                ttl_seconds=fixture.TOKEN_TTL_SECONDS,
            )
    finally:
        await engine.dispose()
    return issued.token


# --- standalone -------------------------------------------------------------------------


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
    p.add_argument(
        "--postgraphile-cache",
        type=Path,
        default=POSTGRAPHILE_CACHE,
        help=f"where npm installs PostGraphile ({POSTGRAPHILE_CACHE})",
    )
    p.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra environment for `pressroom serve` (default: none, the server as shipped)",
    )
    p.add_argument("--json", type=Path, default=RESULTS, help="where to write the figures")
    args = p.parse_args(argv)
    if args.orders <= PAGE_SIZE:
        p.error(f"--orders: more than a page ({PAGE_SIZE}) is needed")
    return args


async def run(args: argparse.Namespace, url: str, embedded_server: bool) -> dict[str, Any]:
    for name in await fixture.drop_stale_databases(url):
        log(f"dropped {name}, left behind by a run that was killed")
    log("creating the bench database (migrations)")
    await fixture.create_database(url)
    shop = await fixture.seed_shop(url, departments=10, workers=32, displays=0)
    log(f"seeding {args.orders} work orders")
    seeded = await seed_orders(url, shop, args.orders)
    token = await admin_token(url, shop)
    log("starting `pressroom serve`")
    server_env = dict(item.split("=", 1) for item in args.server_env if "=" in item)
    server = fixture.ServerProcess(url, extra_env=server_env)
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
    args.json.write_text(json.dumps(results, indent=2) + "\n")
    out = Console(width=None if sys.stdout.isatty() else 120)
    out.print(report(results))
    out.print(f"figures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
