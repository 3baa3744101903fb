"""The legitimate floor the hostile and customer benches measure beside: workers on a fixed
schedule (start a task, finish it, read a queue page), a probe of /readyz, the tally of
what they saw, and the shop they work in.

The shop has `departments` worked and one more holding READ_TASKS waiting tasks that nobody
moves: the workers read its queue page (the wall display's first page, `WallQueue`), so
that the page costs the same in every phase.
"""

import asyncio
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

import aiohttp
import orjson

from api.ids import encode_id
from bench.load import FINISH_TASK, HTTP_ERRORS, START_TASK, KeepAliveClients
from bench.shop import Shop, TaskPool, seed_shop
from bench.stats import summary_ms
from bench.year import WALL_QUEUE

WORKERS = 8
CYCLES_PER_SECOND = 1.0  # per worker: a start, a finish and a queue page
READ_TASKS = 100
LEGIT_TIMEOUT = 30
PROBE_EVERY = 0.5
REQUESTS = ("startTask", "finishTask", "queue page")


@dataclass(frozen=True)
class FloorShop:
    """A shop seeded for the floor, and two views of it: the departments the workers work
    in, and the one whose queue page they read."""

    seeded: Shop
    worked: Shop
    read: Shop

    @property
    def reads(self) -> str:
        """The code of the department whose queue page the workers read."""
        return self.read.department_codes[0]


async def seed_floor(url: str, *, departments: int, displays: int) -> FloorShop:
    """WORKERS workers in `departments` departments and one more, whose READ_TASKS tasks
    are made here; `displays` display tokens spread over all of them."""
    seeded = await seed_shop(url, departments=departments + 1, workers=WORKERS, displays=displays)
    worked = replace(
        seeded,
        department_codes=seeded.department_codes[:-1],
        department_ids=seeded.department_ids[:-1],
    )
    read = replace(
        seeded,
        department_codes=seeded.department_codes[-1:],
        department_ids=seeded.department_ids[-1:],
    )
    await TaskPool(url, read, prefix="R").take(READ_TASKS)
    return FloorShop(seeded, worked, read)


def tasks_per_phase(seconds: float) -> int:
    """The tasks a phase of `seconds` gets: a third more than the workers' schedule can
    use."""
    return int(WORKERS * CYCLES_PER_SECOND * seconds * 4 / 3) + WORKERS


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
