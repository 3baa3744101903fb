"""Fixtures: a real server on a real socket, an HTTP GraphQL client, a small shop."""

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
import uvicorn
import websockets
from aiohttp import web
from gql import Client as GqlClient
from gql import gql
from gql.transport.exceptions import TransportClosed, TransportQueryError
from gql.transport.websockets import WebsocketsTransport
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import event, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from api.ids import encode_id
from db import admin, clock, customers, embedded, migrate, people, pgbouncer
from db.credentials import hash_password
from db.engine import create_engine, unit_of_work
from db.feed import LISTENER_NAME, TASK_PREFIX
from db.orders import NewWorkOrder, create_work_order
from db.tables import metadata
from db.tasks import Actor, transition_task
from domain.enums import DepartmentKind, TaskAction, TokenKind, WorkOrderPriority
from pressroom.app import create_app, server_options
from pressroom.settings import Settings
from workers.webhooks import WebhookRelay

ROOT = Path(__file__).resolve().parents[1]
STARTUP_TIMEOUT = 120


async def recreate_test_database(url: str) -> None:
    """An empty database, whose commits do not wait for the write-ahead log to reach the
    disk: tests commit thousands of small transactions, and a lost commit matters only
    if the test server itself crashes, which ends the run anyway. What other sessions
    see, and when, is unchanged: a commit is visible the moment it returns."""
    await admin.recreate_database(url)
    engine = create_engine(url, pool_size=1, max_overflow=0)
    try:
        async with engine.begin() as conn:
            name = make_url(url).database
            await conn.execute(text(f'ALTER DATABASE "{name}" SET synchronous_commit = off'))
    finally:
        await engine.dispose()


@contextlib.asynccontextmanager
async def scratch_database(server_url: str, prefix: str) -> AsyncIterator[str]:
    """An empty database of its own on the test server, dropped afterwards."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    url = embedded.with_database(server_url, f"{prefix}_{worker}_{os.getpid()}")
    await recreate_test_database(url)
    try:
        yield url
    finally:
        await admin.drop_database(url)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server(uvicorn.Server):
    """uvicorn that says when it is listening, so tests wait on that, not on time."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = asyncio.Event()

    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets=sockets)
        self.ready.set()


def config_for(app: Any, settings: Settings, port: int) -> uvicorn.Config:
    """uvicorn serving `app` on 127.0.0.1:`port` as `pressroom serve` would (its
    websocket protocol and options)."""
    return uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", **server_options(settings)
    )


async def serve(config: uvicorn.Config) -> "tuple[Server, asyncio.Task[None]]":
    server = Server(config)
    task = asyncio.create_task(server.serve())
    ready = asyncio.create_task(server.ready.wait())
    await asyncio.wait([task, ready], return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        ready.cancel()
        task.result()
        raise RuntimeError("the server stopped while starting")
    return server, task


SUBSCRIBER_BUFFER = 50
KEEP_ALIVE_SECONDS = 0.5
CONNECTION_INIT_TIMEOUT_SECONDS = 1.0


# Webhooks to loopback receivers, retried within a second, a slow receiver given up on
# after two (a receiver that fails three times and times out once is served in seconds).
WEBHOOK_SETTINGS: dict[str, Any] = {
    "webhook_allow_private": True,
    "webhook_retries": "50ms,100ms,100ms,100ms,100ms",
    "webhook_timeout_seconds": 2.0,
    "webhook_poll_seconds": 0.2,
}


@pytest.fixture(scope="session")
async def running_app(database_url: str) -> AsyncIterator[tuple[str, Any]]:
    """uvicorn serving the real app on a free port, for the whole session."""
    port = free_port()
    settings = Settings(
        public_url=f"http://127.0.0.1:{port}",
        pool_size=20,
        max_overflow=40,
        subscriber_buffer=SUBSCRIBER_BUFFER,
        keep_alive_seconds=KEEP_ALIVE_SECONDS,
        connection_init_timeout_seconds=CONNECTION_INIT_TIMEOUT_SECONDS,
        # The suite signs in far more often than people do; tests of throttling make
        # servers of their own.
        signin_failures_per_address="100000/minute",
        signin_attempts_per_address="100000/minute",
        signin_failures_per_account="100000/minute",
        inbox_failures_per_address="100000/minute",
        inbox_requests_per_address="100000/minute",
        customer_page_failures_per_address="100000/minute",
        customer_page_requests_per_address="100000/minute",
        customer_page_requests_per_link="100000/minute",
        **WEBHOOK_SETTINGS,
    )
    app = create_app(settings, url=database_url)
    srv, task = await serve(config_for(app, settings, port))
    yield f"http://127.0.0.1:{port}/graphql", app
    srv.should_exit = True
    await task


@pytest.fixture(scope="session")
def server(running_app: tuple[str, Any]) -> str:
    return str(running_app[0])


@pytest.fixture
async def trusted_server(database_url: str) -> AsyncIterator[str]:
    """A real server of its own on the test database, with PRESSROOM_TRUSTED_DOCUMENTS on
    (as in production): its /graphql URL."""
    settings = Settings(trusted_documents=True)
    srv, task = await serve(
        config_for(create_app(settings, url=database_url), settings, free_port())
    )
    try:
        yield f"http://127.0.0.1:{srv.config.port}/graphql"
    finally:
        srv.should_exit = True
        await task


class GraphQLError(AssertionError):
    pass


@dataclass
class Client:
    """Posts GraphQL over real HTTP; `token` is sent as a bearer token."""

    http: httpx.AsyncClient
    url: str
    token: str | None = None

    async def raw(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        headers = {"authorization": f"Bearer {self.token}"} if self.token else {}
        response = await self.http.post(
            self.url, json={"query": query, "variables": variables or {}}, headers=headers
        )
        body: dict[str, Any] = response.json()
        return body

    async def __call__(self, query: str, variables: dict[str, Any] | None = None) -> Any:
        body = await self.raw(query, variables)
        if body.get("errors"):
            raise GraphQLError(body["errors"])
        return body["data"]

    def as_(self, token: str | None) -> "Client":
        return Client(self.http, self.url, token)


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    # Idle connections are dropped well before uvicorn closes them (5 s): a request sent
    # on a connection the server is closing that moment fails with a ReadError.
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=100, keepalive_expiry=1.0)
    async with httpx.AsyncClient(timeout=30, limits=limits) as client:
        yield client


# What `Shop.password_for` gives a person: making tokens asks for it again.
PASSWORD = "correct-horse-battery"
_PASSWORD_HASH: list[str] = []


@dataclass
class Shop:
    """Departments, people (each with a session token), a customer. Ids are raw pks."""

    engine: AsyncEngine
    departments: dict[str, int] = field(default_factory=dict)
    users: dict[str, int] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    token_ids: dict[str, int] = field(default_factory=dict)
    customer_id: int = 0

    async def add_user(self, key: str, codes: list[str], *, is_admin: bool = False) -> str:
        async with unit_of_work(self.engine) as conn:
            user = await people.create_user(
                conn,
                email=f"{key}@shop.test",
                name=key.title(),
                password=None,
                is_admin=is_admin,
                department_ids=[self.departments[c] for c in codes],
            )
            issued = await people.issue_token(
                conn, kind=TokenKind.SESSION, name="test", user_id=user.user.id, ttl_seconds=3600
            )
        self.users[key] = user.user.id
        self.tokens[key] = issued.token
        self.token_ids[key] = issued.row.id
        return issued.token

    async def display(self, codes: list[str]) -> str:
        """A wall display token for the queues of `codes`, made by ada: its secret."""
        async with unit_of_work(self.engine) as conn:
            issued = await people.issue_token(
                conn,
                kind=TokenKind.DISPLAY,
                name=f"{codes[0]} wall",
                user_id=self.users["ada"],
                ttl_seconds=None,
                department_ids=[self.departments[c] for c in codes],
            )
        return issued.token

    async def password_for(self, key: str) -> str:
        """Gives `key` the password PASSWORD (people are made without one), their sessions
        left alone; returns it."""
        if not _PASSWORD_HASH:
            _PASSWORD_HASH.append(await hash_password(PASSWORD))
        async with unit_of_work(self.engine) as conn:
            await conn.execute(
                text("UPDATE users SET password_hash = :h WHERE id = :id"),
                {"h": _PASSWORD_HASH[0], "id": self.users[key]},
            )
        return PASSWORD

    async def order(self, codes: list[str], **extra: Any) -> int:
        """A work order for production `codes` (plus delivery; none: one that only
        delivers), of Flyers unless `details` say otherwise, created `at` a moment past
        when given; returns its pk."""
        async with unit_of_work(self.engine) as conn:
            if "at" in extra:
                await clock.stamp_as_of(conn, extra["at"])
            row = await create_work_order(
                conn,
                NewWorkOrder(
                    customer_id=self.customer_id,
                    order_number=extra.get("order_number"),
                    details=extra.get("details", {"product": "Flyers"}),
                    department_codes=codes,
                    needs_installation=False,
                    needs_transport=False,
                    needs_repair=False,
                    quote=extra.get("quote"),
                    created_by=self.users["sam"],
                    due_at=extra.get("due_at"),
                    priority=extra.get("priority", WorkOrderPriority.NORMAL),
                    delivery_only=not codes,
                    proof_required=extra.get("proof_required", False),
                ),
            )
        return int(row.order.id)

    async def complete(self, order: int, codes: list[str] | None = None) -> dict[str, int]:
        """Completes the tasks of `codes` (none given: every task, delivery last, so the
        order is COMPLETED) by ada's override; returns the order's task ids by code."""
        tasks = await task_ids(self.engine, order)
        chosen = codes or sorted(tasks, key=lambda code: code == "delivery")
        async with unit_of_work(self.engine) as conn:
            for code in chosen:
                await transition_task(
                    conn,
                    tasks[code],
                    TaskAction.OVERRIDE_COMPLETE,
                    Actor(self.users["ada"], is_admin=True),
                    reason="Done.",
                )
        return tasks


DEPARTMENTS = [
    ("sales", DepartmentKind.SALES, False),
    ("accounts", DepartmentKind.ACCOUNTS, False),
    ("design", DepartmentKind.PRODUCTION, False),
    ("print", DepartmentKind.PRODUCTION, True),
    ("finishing", DepartmentKind.PRODUCTION, True),
    ("delivery", DepartmentKind.DELIVERY, False),
]


@pytest.fixture
async def shop(clean_db: AsyncEngine) -> Shop:
    return await open_shop(clean_db)


@pytest.fixture
async def lone_shop(server_url: str) -> AsyncIterator[tuple[str, Shop]]:
    """A shop in a database of its own, migrated, that no session server serves (nor
    fires timers in): its URL and the shop."""
    async with scratch_database(server_url, "pressroom_lone") as url:
        await asyncio.to_thread(migrate.upgrade_sync, url)
        engine = create_engine(url, pool_size=3, max_overflow=0)
        try:
            yield url, await open_shop(engine)
        finally:
            await engine.dispose()


async def open_shop(engine: AsyncEngine) -> Shop:
    """sam (sales), abe (accounts), dee (design), pat & pia (print), fin (finishing),
    dan & dot (delivery), ada (admin, no department), in an empty database."""
    s = Shop(engine)
    async with unit_of_work(engine) as conn:
        for code, kind, gates in DEPARTMENTS:
            row = await people.create_department(conn, code, code.title(), kind, gates)
            s.departments[code] = row.id
    for key, codes in [
        ("sam", ["sales"]),
        ("abe", ["accounts"]),
        ("dee", ["design"]),
        ("pat", ["print"]),
        ("pia", ["print"]),
        ("fin", ["finishing"]),
        ("dan", ["delivery"]),
        ("dot", ["delivery"]),
    ]:
        await s.add_user(key, codes)
    await s.add_user("ada", [], is_admin=True)
    async with unit_of_work(engine) as conn:
        s.customer_id = (await customers.create_customer(conn, "ACME", s.users["sam"])).customer.id
    return s


@pytest.fixture
async def api(server: str, http: httpx.AsyncClient) -> Client:
    return Client(http, server)


def gid(type_name: str, pk: int) -> str:
    return encode_id(type_name, pk)


# Every table of the schema but the sign-in counters, digested by tests that prove a
# request wrote nothing: a refused sign-in is counted there by design, and is no data of
# the shop's. (clean_db empties them all.)
# Nor what the webhook relay writes in the background, whatever requests come: its
# deliveries, and its hold on each webhook (the lease, and its place in the event log).
TABLES = tuple(t for t in metadata.tables if t not in ("rate_limit_hits", "webhook_deliveries"))
RELAY_COLUMNS = {"webhooks": {"lease_owner", "lease_until", "cursor_xid", "cursor_id"}}

Snapshot = dict[str, tuple[int, str]]


async def table_snapshot(engine: AsyncEngine) -> Snapshot:
    """Row count and a digest of every row of every table: any insert, update or delete shows."""
    async with engine.connect() as conn:
        # Tables of later migrations are absent from a database migrated to an older one.
        found = set(await conn.scalars(text("SELECT tablename FROM pg_tables")))
        digests = []
        for table in (t for t in TABLES if t in found):
            # The relay's columns left out; every other table as it is (a database migrated
            # to an older revision has older columns).
            skipped = RELAY_COLUMNS.get(table)
            rows = table
            if skipped:
                kept = [
                    f'"{c.name}"' for c in metadata.tables[table].columns if c.name not in skipped
                ]
                rows = f"(SELECT {', '.join(kept)} FROM {table})"
            digests.append(
                f"SELECT '{table}', count(*), coalesce(md5(string_agg(CAST(x AS text), '|' "
                f"ORDER BY CAST(x AS text))), '') FROM {rows} x"
            )
        # Every table in one statement: tests take thousands of snapshots.
        result = await conn.execute(text(" UNION ALL ".join(digests)))
        return {str(row[0]): (int(row[1]), str(row[2])) for row in result}


async def kill_listeners(engine: AsyncEngine) -> int:
    """Terminates this database's event listeners (not other test workers'); how many."""
    async with engine.connect() as conn:
        killed = await conn.scalar(
            text(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE application_name = :name AND datname = current_database()"
            ),
            {"name": LISTENER_NAME},
        )
    return int(killed or 0)


async def task_ids(engine: AsyncEngine, order: int) -> dict[str, int]:
    """A work order's task ids by department code."""
    async with engine.connect() as conn:
        rows = await conn.execute(
            text(
                "SELECT d.code, t.id FROM department_tasks t "
                "JOIN departments d ON d.id = t.department_id WHERE t.work_order_id = :o"
            ),
            {"o": order},
        )
        return {r.code: r.id for r in rows}


def postgres_processes(data_dir: Path) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["name", "cmdline"]):
        cmdline = proc.info["cmdline"] or []
        if proc.info["name"] == "postgres" and any(str(data_dir) in part for part in cmdline):
            found.append(proc)
    return found


@contextmanager
def serving(
    data_dir: Path | None,
    *args: str,
    database_url: str | None = None,
    workers: int = 1,
    settings: dict[str, str] | None = None,
    pid: list[int] | None = None,
) -> Iterator[tuple[str, list[str]]]:
    """`pressroom serve` as a subprocess: on the embedded PostgreSQL under `data_dir`, or on
    `database_url`, with `workers` server processes and `settings` in its environment.
    Yields once uvicorn says it listens and every worker has started its app; stops it
    with SIGTERM and expects a clean exit. With `pid`, its process id is put there, for a
    test to kill it: a process killed with SIGKILL is not expected to exit cleanly. Its
    output goes on being read into the lines yielded, so that a server logging a line per
    request never waits on a full pipe."""
    if workers > 1:
        args = (*args, "--workers", str(workers))
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"} | (settings or {})
    if data_dir is not None:
        env["PRESSROOM_DATA_DIR"] = str(data_dir)
    if database_url is not None:
        env["DATABASE_URL"] = database_url
    proc = subprocess.Popen(
        [sys.executable, "-m", "pressroom.cli", "serve", "--port", str(port), *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    if pid is not None:
        pid.append(proc.pid)
    lines: list[str] = []
    reader: threading.Thread | None = None
    try:
        assert proc.stdout is not None
        # Synchronise on the server saying it listens and has started its apps, not on
        # time passing. One process binds its socket after its startup; with --workers the
        # parent binds first and each worker starts its app after.
        listening, started = False, 0
        for line in proc.stdout:
            lines.append(line)
            listening = listening or "Uvicorn running on" in line
            started += "Application startup complete" in line
            if listening and started == workers:
                break
        else:
            pytest.fail("server exited before starting:\n" + "".join(lines))
        reader = threading.Thread(target=lines.extend, args=(proc.stdout,), daemon=True)
        reader.start()
        yield f"http://127.0.0.1:{port}", lines
    finally:
        proc.send_signal(signal.SIGTERM)
        if reader is None:
            rest, _ = proc.communicate(timeout=STARTUP_TIMEOUT)
            lines.append(rest)
        else:
            proc.wait(timeout=STARTUP_TIMEOUT)
            reader.join(timeout=STARTUP_TIMEOUT)
    killed = pid is not None and proc.returncode == -signal.SIGKILL
    assert proc.returncode == 0 or killed, "".join(lines)


# ---------------------------------------------------------------------------------------------
# Subscriptions through the Python gql client, and the queries the real-time tests share.

PROTOCOLS = ["graphql-transport-ws", "graphql-ws"]
QUEUE_EVENTS = """subscription($department: String!, $after: String) {
  queueEvents(department: $department, after: $after) {
    cursor kind occurredAt task { id status pickedUpBy { name } workOrder { orderNumber } }
  }
}"""
START = """mutation($i: StartTaskInput!) { startTask(input: $i) { changed userErrors { code } } }"""
FINISH = """mutation($i: FinishTaskInput!) { finishTask(input: $i) { changed } }"""
QUEUE = """query { queue(department: "print", first: 100) { eventCursor edges { node { id } } } }"""


# For the modules that run Debian's PgBouncer: skipped, saying why, where it is missing.
needs_pgbouncer = pytest.mark.skipif(
    not pgbouncer.installed(),
    reason="pgbouncer is not installed: apt-get install pgbouncer (scripts/test does)",
)


def metric(exposition: str, name: str, **labels: str) -> float | None:
    """The value of the sample `name` with these labels (and any others: every sample also
    names its replica) in Prometheus text, or None."""
    for family in text_string_to_metric_families(exposition):
        for found in family.samples:
            if found.name == name and labels.items() <= found.labels.items():
                return float(found.value)
    return None


def ws_url(http_url: str) -> str:
    return http_url.replace("http://", "ws://")


@contextlib.asynccontextmanager
async def subscriber(
    url: str, token: str, protocol: str, variables: dict[str, Any], document: str = QUEUE_EVENTS
) -> AsyncIterator[asyncio.Queue[Any]]:
    """Runs a gql subscription in the background, putting each result on a queue (or the
    error that ended it).

    Entering returns once the server has accepted the connection, not once it has
    registered the subscription: gql sends the subscribe message when its stream is first
    read, and the server joins the feed a moment later; no message says when. So tests
    subscribe with `after` set to a cursor taken at a known point, and an event committed
    meanwhile arrives by replay. A test that needs a live subscription (delivery to a
    waiting subscriber, or ending one) first takes an event of its own: the server joins
    the feed before it sends anything, so once that event (the last one the replay
    finds) is in, what commits next arrives live.
    Like a careful client, it resubscribes from `resumeAfter` when the server drops it
    for falling behind (the test server's buffer is small)."""
    received: asyncio.Queue[Any] = asyncio.Queue()
    connected = asyncio.Event()
    current = dict(variables)

    async def run() -> None:
        try:
            while True:
                request = gql(document)
                request.variable_values = current
                transport = WebsocketsTransport(
                    url=ws_url(url),
                    init_payload={"authorization": f"Bearer {token}"},
                    subprotocols=[protocol],
                )
                try:
                    async with GqlClient(transport=transport) as session:
                        connected.set()
                        async for result in session.subscribe(request):
                            await received.put(result)
                    return
                except TransportQueryError as error:
                    extensions = (error.errors or [{}])[0].get("extensions") or {}
                    if extensions.get("code") != "SLOW_CONSUMER":
                        raise
                    current["after"] = extensions["resumeAfter"]
        except (TransportQueryError, TransportClosed) as error:
            await received.put(error)
        finally:
            connected.set()

    task = asyncio.create_task(run())
    await connected.wait()
    try:
        yield received
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def take(queue: asyncio.Queue[Any], count: int, within: float = 30) -> list[Any]:
    async with asyncio.timeout(within):
        return [await queue.get() for _ in range(count)]


async def arrived(queue: asyncio.Queue[Any], count: int, within: float = 30) -> list[Any]:
    """Up to `count` items, or what arrived within `within` seconds: a test comparing them
    with what it expects shows what is missing, where `take` would only time out."""
    got: list[Any] = []
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(within):
            while len(got) < count:
                got.append(await queue.get())
    return got


async def print_tasks(shop: Shop, orders: int) -> list[int]:
    ids = []
    for _ in range(orders):
        order = await shop.order(["print"])
        async with shop.engine.connect() as conn:
            ids.append(
                await conn.scalar(
                    text(
                        "SELECT t.id FROM department_tasks t JOIN departments d "
                        "ON d.id = t.department_id WHERE t.work_order_id = :o AND d.code = 'print'"
                    ),
                    {"o": order},
                )
            )
    return ids


async def cursor_now(api: Client, token: str) -> str:
    """An event cursor for 'now': the print queue's snapshot position."""
    return str((await api.as_(token)(QUEUE))["queue"]["eventCursor"])


# ---------------------------------------------------------------------------------------------
# What the dashboard asks for, and counting the SQL a piece of work sends.

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


@contextmanager
def counting(engine: AsyncEngine) -> Iterator[list[str]]:
    """The statements run on `engine` meanwhile, but for those of src/db's background tasks
    (named with TASK_PREFIX): the feed reads whenever events commit, the timer loop at its
    poll."""
    statements: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        task = asyncio.current_task()
        if task is None or not task.get_name().startswith(TASK_PREFIX):
            statements.append(statement)

    event.listen(engine.sync_engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", record)


class RawSocket:
    """A raw websocket speaking either protocol (no client library between the test and the
    frames, so a message's data and errors are seen together); subscriptions are numbered
    by the test."""

    def __init__(self, ws: Any, protocol: str) -> None:
        self.ws = ws
        self.protocol = protocol

    @classmethod
    async def open(cls, server: str, token: str, protocol: str) -> "RawSocket":
        ws = await websockets.connect(server.replace("http://", "ws://"), subprotocols=[protocol])
        init = {"type": "connection_init", "payload": {"authorization": f"Bearer {token}"}}
        await ws.send(json.dumps(init))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        return cls(ws, protocol)

    async def subscribe(self, query: str, variables: dict[str, Any], sid: str = "1") -> None:
        kind = "subscribe" if self.protocol == "graphql-transport-ws" else "start"
        payload = {"query": query, "variables": variables}
        await self.ws.send(json.dumps({"id": sid, "type": kind, "payload": payload}))

    async def next(self, within: float = 15) -> dict[str, Any]:
        """The next message about a subscription (keep-alives skipped)."""
        async with asyncio.timeout(within):
            while True:
                message: dict[str, Any] = json.loads(await self.ws.recv())
                if message["type"] not in ("ka", "ping", "pong"):
                    return message

    async def results(self, count: int) -> list[dict[str, Any]]:
        """The payloads ({data, errors}) of the next `count` results; anything else fails."""
        out = []
        for _ in range(count):
            message = await self.next()
            assert message["type"] in ("next", "data"), message
            out.append(message["payload"])
        return out


def error_codes(message: dict[str, Any]) -> list[str]:
    """The error codes of a subscription message of either protocol."""
    payload = message.get("payload")
    if message["type"] == "error":
        errors = payload if isinstance(payload, list) else payload.get("errors", [payload])
    else:
        errors = (payload or {}).get("errors") or []
    return [e.get("extensions", {}).get("code") for e in errors]


CREATE_DISPLAY = """mutation($i: CreateDisplayTokenInput!) { createDisplayToken(input: $i) {
  secret token { id kind name departments { code } } userErrors { code field message } } }"""


async def display_token(
    api: Client, shop: Shop, codes: list[str], *, by: str = "ada"
) -> dict[str, Any]:
    """A wall display token for `codes`, made through the API by admin `by`: the
    payload, `secret` and `token { id kind name departments }`."""
    body = await api.as_(shop.tokens[by])(
        CREATE_DISPLAY, {"i": {"name": f"{codes[0]} wall", "departmentCodes": codes}}
    )
    made: dict[str, Any] = body["createDisplayToken"]
    assert made["userErrors"] == []
    return made


# ---------------------------------------------------------------------------------------------
# A webhook receiver on loopback.

HOLD = "hold"  # a plan's step: no answer until the sender has given up on this attempt


@dataclass(frozen=True)
class Received:
    headers: dict[str, str]
    body: str

    @property
    def id(self) -> str:
        return self.headers["webhook-id"]

    def json(self) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.body)
        return found


class Receiver:
    """A real HTTP server that takes webhooks: each request gets the next step of its
    `plan` (a status, or HOLD), then 200; every answer after `pause` seconds (a receiver
    that takes its time)."""

    def __init__(
        self, plan: list[int | str] | None = None, hold_seconds: float = 4.0, pause: float = 0.0
    ) -> None:
        self.plan = list(plan or [])
        self.hold_seconds = hold_seconds
        self.pause = pause
        self.requests: list[Received] = []
        self._arrived = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self.url = ""

    async def start(self, path: str = "/hooks") -> "Receiver":
        app = web.Application()
        app.router.add_post(path, self._take)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}{path}"
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _take(self, request: web.Request) -> web.Response:
        self.requests.append(Received(dict(request.headers), await request.text()))
        async with self._arrived:
            self._arrived.notify_all()
        step = self.plan.pop(0) if self.plan else 200
        if self.pause:
            await asyncio.sleep(self.pause)
        if step == HOLD:
            # Answers only after the sender's timeout (its attempt has failed by then).
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.hold_seconds):
                    await asyncio.Event().wait()
            step = 200
        return web.Response(status=int(step))

    def unique(self) -> list[Received]:
        """Each webhook-id's first arrival, in the order they arrived."""
        seen: dict[str, Received] = {}
        for received in self.requests:
            seen.setdefault(received.id, received)
        return list(seen.values())

    async def wait_requests(self, count: int, within: float = 60) -> None:
        """Once `count` requests arrived, repeats included."""
        async with asyncio.timeout(within), self._arrived:
            await self._arrived.wait_for(lambda: len(self.requests) >= count)

    async def wait_for(self, count: int, within: float = 60) -> list[Received]:
        """Once `count` distinct webhook-ids arrived: each one's first arrival."""
        async with asyncio.timeout(within), self._arrived:
            await self._arrived.wait_for(lambda: len(self.unique()) >= count)
        return self.unique()


@pytest.fixture
def relay(running_app: tuple[str, Any]) -> WebhookRelay:
    """The session server's webhook relay: what it wrote is waited for by its count."""
    found: WebhookRelay = running_app[1].state.relay
    return found


async def settled(
    relay: WebhookRelay, check: Callable[[], Awaitable[bool]], within: float = 30
) -> None:
    """Until `check` holds, looking again after each batch of attempts the relay writes."""
    async with asyncio.timeout(within):
        while True:
            seen = relay.written
            if await check():
                return
            await relay.written_past(seen)


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    found = await Receiver().start()
    yield found
    await found.stop()
