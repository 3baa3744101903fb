"""Load generators: transitions through GraphQL over HTTP, and the same SQL from asyncpg.

Every loop is bounded twice: by a deadline and by its pool of tasks (each task is
started then finished once, two transitions), and it gives up after a few errors.
"""

import asyncio
import contextlib
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Self, TypeVar

import aiohttp
import asyncpg
import orjson
from sqlalchemy.dialects.postgresql import asyncpg as asyncpg_dialect

from api import manifest
from api.ids import encode_id
from db.queries import Q
from db.tasks import needs_transaction, transition_params
from domain.enums import TaskAction
from domain.transitions import TRANSITIONS

MAX_ERRORS = 20
NOTIFY_IN_TRANSACTION = "SELECT pg_notify('pressroom_events', '')"


@dataclass
class Tally:
    """What clients did in a run: how long it took, latencies, errors (the first kept)."""

    elapsed: float = 0.0
    errors: int = 0
    first_error: str | None = None
    latencies: list[float] = field(default_factory=list)

    def error(self, message: str) -> None:
        self.errors += 1
        if self.first_error is None:
            self.first_error = message[:500]

    def per_second(self, done: int) -> float:
        return done / self.elapsed if self.elapsed > 0 else 0.0

    def add(self, other: Self) -> None:
        """Another run's figures into these, as if one run."""
        self.elapsed += other.elapsed
        self.errors += other.errors
        self.first_error = self.first_error or other.first_error
        self.latencies += other.latencies


@dataclass
class LoadResult(Tally):
    # Latencies are seconds per request (GraphQL) or per transaction (asyncpg).
    transitions: int = 0
    exhausted: bool = False  # the task pool ran out before the deadline

    @property
    def rate(self) -> float:
        return self.per_second(self.transitions)

    def add(self, other: Self) -> None:
        super().add(other)
        self.transitions += other.transitions
        self.exhausted = self.exhausted or other.exhausted


T = TypeVar("T", bound=Tally)


async def run_loops(
    clients: int,
    duration: float,
    tally: T,
    step: Callable[[int, float], Awaitable[bool]],
    *,
    slack: float = 60,
) -> T:
    """`clients` loops, each calling `step(client, deadline)` until the deadline,
    MAX_ERRORS errors in `tally`, or `step` returns False (no more work)."""
    start = time.perf_counter()
    deadline = start + duration

    async def client(index: int) -> None:
        while time.perf_counter() < deadline and tally.errors < MAX_ERRORS:
            if not await step(index, deadline):
                return

    # A stuck request must not hold the run: the whole phase is bounded too, `slack`
    # (more than a request's timeout) past its end.
    async with asyncio.timeout(duration + slack), asyncio.TaskGroup() as group:
        for i in range(clients):
            group.create_task(client(i))
    tally.elapsed = time.perf_counter() - start
    return tally


async def run_clients(
    clients: int,
    duration: float,
    pool: list[int],
    step: Callable[[int, int, LoadResult, float], Awaitable[None]],
) -> LoadResult:
    """`clients` loops, each popping a task and calling `step(client, task_id, result,
    deadline)` until the deadline, the end of the pool, or MAX_ERRORS errors."""
    result = LoadResult()

    async def one(client: int, deadline: float) -> bool:
        if not pool:
            result.exhausted = True
            return False
        await step(client, pool.pop(), result, deadline)
        return True

    return await run_loops(clients, duration, result, one)


# What a request of KeepAliveClients raises when it fails in transit.
HTTP_ERRORS = (aiohttp.ClientError, TimeoutError)


class KeepAliveClients:
    """One keep-alive connection per client, each in an aiohttp session of its own (made
    in the running event loop, to which a session belongs: every bench part builds its
    clients inside one).

    The load generator shares the machine with the server and PostgreSQL, so its CPU is
    taken from theirs: httpx cost the bench about 1.1 ms of CPU per transition, as much as
    the server, while aiohttp (its parser in C) costs about 0.25 ms. The asyncpg floor's
    client costs 0.1. (With httpx, one shared pool of connections had also cost more than
    the requests: it scanned every connection for every request.)"""

    def __init__(self, clients: int, timeout: float) -> None:
        self.clients = clients
        self.sessions = [
            aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=1),
                timeout=aiohttp.ClientTimeout(total=timeout),
            )
            for _ in range(clients)
        ]

    async def post(
        self, client: int, url: str, body: bytes, headers: dict[str, str]
    ) -> tuple[int, bytes]:
        """POST `body` (JSON) on `client`'s connection: the status and the body."""
        headers = {"content-type": "application/json", **headers}
        async with self.sessions[client].post(url, data=body, headers=headers) as response:
            return response.status, await response.read()

    async def close(self) -> None:
        await asyncio.gather(*(session.close() for session in self.sessions))


# --- GraphQL over HTTP ---------------------------------------------------------------

START_TASK = """
mutation StartTask($input: StartTaskInput!) {
  startTask(input: $input) { changed task { id status } userErrors { code message } }
}"""
FINISH_TASK = """
mutation FinishTask($input: FinishTaskInput!) {
  finishTask(input: $input) { changed task { id status } userErrors { code message } }
}"""
MUTATIONS = {"StartTask": START_TASK, "FinishTask": FINISH_TASK}
# The same moves as the app's scan station sends them: trusted documents of the manifest,
# named by their hash (the engine room runs them compiled: src/graph/engine/compiled.py).
SCANS = {manifest.operation_name(text): text for text in manifest.load().values()}
TRUSTED = {"StartTask": SCANS["ScanStart"], "FinishTask": SCANS["ScanFinish"]}


class GraphQLClients(KeepAliveClients):
    """Keep-alive clients, each posting as one worker."""

    def __init__(self, url: str, tokens: list[str], clients: int, *, trusted: bool = False) -> None:
        super().__init__(clients, timeout=30)
        self.url = url
        self.tokens = tokens
        self.trusted = trusted

    def body(self, name: str, query: str, task_id: int) -> bytes:
        """The request for `name` (StartTask or FinishTask): `query`'s text, or with
        `trusted`, the app's own document for the move by its hash."""
        variables = {"input": {"taskId": encode_id("DepartmentTask", task_id)}}
        if not self.trusted:
            return orjson.dumps({"query": query, "operationName": name, "variables": variables})
        text = TRUSTED[name]
        return orjson.dumps(
            {
                "operationName": manifest.operation_name(text),
                "variables": variables,
                "extensions": {
                    "persistedQuery": {"version": 1, "sha256Hash": manifest.document_id(text)}
                },
            }
        )

    async def _call(
        self, client: int, name: str, query: str, task_id: int, result: LoadResult
    ) -> bool:
        token = self.tokens[client % len(self.tokens)]
        body = self.body(name, query, task_id)
        t0 = time.perf_counter()
        try:
            _, content = await self.post(
                client % self.clients, self.url, body, {"authorization": f"Bearer {token}"}
            )
            data = orjson.loads(content)
        except (*HTTP_ERRORS, ValueError) as error:
            result.error(f"{name}: {error!r}")
            return False
        result.latencies.append(time.perf_counter() - t0)
        field_name = "startTask" if name == "StartTask" else "finishTask"
        payload = (data.get("data") or {}).get(field_name)
        if data.get("errors") or not payload or payload["userErrors"] or not payload["changed"]:
            result.error(f"{name}: {data}")
            return False
        result.transitions += 1
        return True

    async def step(
        self, client: int, task_id: int, result: LoadResult, deadline: float = math.inf
    ) -> None:
        """Start then finish a task; past the deadline, the task is left started."""
        started = await self._call(client, "StartTask", START_TASK, task_id, result)
        if started and time.perf_counter() < deadline:
            await self._call(client, "FinishTask", FINISH_TASK, task_id, result)

    async def run(self, pool: list[int], duration: float) -> LoadResult:
        return await run_clients(self.clients, duration, pool, self.step)

    async def each(self, name: str, task_ids: list[int]) -> LoadResult:
        """The mutation `name` (StartTask or FinishTask) on every task in turn, one request
        at a time, from the first client."""
        result = LoadResult()
        start = time.perf_counter()
        for task_id in task_ids:
            if result.errors >= MAX_ERRORS:
                break
            await self._call(0, name, MUTATIONS[name], task_id, result)
        result.elapsed = time.perf_counter() - start
        return result

    async def paced(self, pool: list[int], duration: float, rate: float) -> LoadResult:
        """`rate` transitions/s on a fixed schedule, whatever the response times: a light,
        steady load. Each tick starts one task (start then finish) on its own coroutine,
        at most `clients` at once; ticks that find all of them busy are skipped."""
        result = LoadResult()
        start = time.perf_counter()
        deadline = start + duration
        interval = 2 / rate  # each tick is a start and a finish
        busy = asyncio.Semaphore(self.clients)
        running: set[asyncio.Task[None]] = set()

        async def one(client: int, task_id: int) -> None:
            try:
                await self.step(client, task_id, result)
            finally:
                busy.release()

        tick = 0
        while time.perf_counter() < deadline and pool and result.errors < MAX_ERRORS:
            if not busy.locked():
                await busy.acquire()
                task = asyncio.create_task(one(tick % self.clients, pool.pop()))
                running.add(task)
                task.add_done_callback(running.discard)
            tick += 1
            await asyncio.sleep(max(0.0, start + tick * interval - time.perf_counter()))
        if running:
            await asyncio.wait(running, timeout=60)
        result.elapsed = time.perf_counter() - start
        return result


# --- The same SQL from asyncpg ---------------------------------------------------------


def _compiled(name: str) -> tuple[str, tuple[str, ...]]:
    """A statement of queries.sql as the server's SQLAlchemy asyncpg dialect sends it:
    the same text, with $n parameters, and the parameter names in $n order."""
    compiled = Q[name].compile(dialect=asyncpg_dialect.dialect())
    return compiled.string, tuple(compiled.positiontup or ())


TRANSITION_SQL, TRANSITION_PARAMS = _compiled("transition_task")
SETTLEMENT_SQL, SETTLEMENT_PARAMS = _compiled("settlement_facts")


def transition_args(action: TaskAction, task_id: int, actor_id: int) -> list[Any]:
    """The parameters db.tasks.transition_task binds for this move, in $n order."""
    params = transition_params(task_id, action, actor_id)
    return [params[name] for name in TRANSITION_PARAMS]


SERVER_SETTINGS = {
    # What db.engine sets on the server's connections.
    "application_name": "pressroom-bench",
    "idle_in_transaction_session_timeout": "15000",
    "statement_timeout": "30000",
}


class RawClients:
    """`clients` asyncpg connections sending the transition statement: a start on its
    own, a finish in a transaction with the read of the settlement facts, as db.tasks does.

    `mode` "notify" adds pg_notify inside every transaction (the naive design); `poke`, if
    given, is called after every commit (our design: wake the feed's notifier and reader).
    """

    def __init__(
        self,
        dsn: str,
        actor_ids: list[int],
        clients: int,
        *,
        mode: str = "plain",
        poke: Callable[[], None] | None = None,
    ) -> None:
        assert mode in ("plain", "notify")
        self.dsn = dsn
        self.actor_ids = actor_ids
        self.clients = clients
        self.mode = mode
        self.poke = poke
        self.conns: list[asyncpg.Connection] = []

    async def open(self) -> None:
        self.conns = list(
            await asyncio.gather(
                *(
                    asyncpg.connect(self.dsn, server_settings=SERVER_SETTINGS)
                    for _ in range(self.clients)
                )
            )
        )

    async def close(self) -> None:
        await asyncio.gather(*(c.close() for c in self.conns), return_exceptions=True)

    async def _move(
        self, client: int, action: TaskAction, task_id: int, result: LoadResult
    ) -> bool:
        conn = self.conns[client]
        args = transition_args(action, task_id, self.actor_ids[client % len(self.actor_ids)])
        t0 = time.perf_counter()
        # As the server does: a start is one statement, without BEGIN and COMMIT.
        atomic = needs_transaction(action) or self.mode == "notify"
        try:
            async with conn.transaction() if atomic else contextlib.nullcontext():
                moved = await conn.fetchrow(TRANSITION_SQL, *args)
                if moved is None:
                    result.error(f"{action.value} of task {task_id} matched no row")
                    return False
                if TRANSITIONS[action].settles_order:
                    await conn.fetch(SETTLEMENT_SQL, moved["work_order_id"])
                if self.mode == "notify":
                    await conn.execute(NOTIFY_IN_TRANSACTION)
        except asyncpg.PostgresError as error:
            result.error(f"{action.value}: {error!r}")
            return False
        if self.poke is not None:
            self.poke()
        result.latencies.append(time.perf_counter() - t0)
        result.transitions += 1
        return True

    async def step(
        self, client: int, task_id: int, result: LoadResult, deadline: float = math.inf
    ) -> None:
        started = await self._move(client, TaskAction.START, task_id, result)
        if started and time.perf_counter() < deadline:
            await self._move(client, TaskAction.FINISH, task_id, result)

    async def run(self, pool: list[int], duration: float) -> LoadResult:
        return await run_clients(self.clients, duration, pool, self.step)


class NotificationCounter:
    """A LISTEN connection on the feed's channel, as every server process has one."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.count = 0
        self.conn: asyncpg.Connection | None = None

    def _heard(self, *_: object) -> None:
        self.count += 1

    async def __aenter__(self) -> "NotificationCounter":
        self.conn = await asyncpg.connect(self.dsn)
        await self.conn.add_listener("pressroom_events", self._heard)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.conn is not None:
            await self.conn.close()
