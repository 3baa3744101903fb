"""Live subscribers for the bench: `python -m bench.subscribers` processes driven as one
fleet, and the events each subscriber should have received."""

import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
from typing import Any

import asyncpg
import psutil

from bench import fixture
from bench.shop import Shop

# The subscriber process ends by itself this long after it starts, whatever happens.
SUBSCRIBER_DEADLINE = 600


async def expected_events(
    dsn: str,
    shop: Shop,
    specs: list[tuple[str, str]],
    after: int,
    through: int | None = None,
) -> list[int]:
    """For each subscriber of `specs`, the events of its department in the log after
    event id `after` (up to `through`, when given)."""
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch(
            "SELECT department_id, count(*) AS n FROM events WHERE id > $1 "
            "AND ($2::bigint IS NULL OR id <= $2) GROUP BY department_id",
            after,
            through,
        )
    finally:
        await conn.close()
    by_id = {r["department_id"]: r["n"] for r in rows}
    code_to_id = dict(zip(shop.department_codes, shop.department_ids, strict=True))
    return [by_id.get(code_to_id[code], 0) for _, code in specs]


def delivered(
    expected: list[int],
    received: list[int],
    repeated: list[int] | None = None,
    before: list[int] | None = None,
) -> dict[str, int]:
    """Events expected and received by subscribers: how many were missed or came more than
    expected, in all and by how many subscribers. Given what each subscriber received more
    than once (`repeated`) and of events written before the window (`before`: committed
    after the window's first event id was read, so a subscriber already listening rightly
    got them), also those, and `extra` is what arrived beyond all three."""
    zeros = [0] * len(expected)
    rows = zip(expected, received, repeated or zeros, before or zeros, strict=True)
    pairs = [(e, r - twice - early) for e, r, twice, early in rows]
    counted = {
        "expected": sum(expected),
        "received": sum(received),
        "missing": sum(max(0, e - f) for e, f in pairs),
        "extra": sum(max(0, f - e) for e, f in pairs),
        "subscribers_missing": sum(1 for e, f in pairs if f < e),
        "most_missed_by_one": max((max(0, e - f) for e, f in pairs), default=0),
    }
    if repeated is not None and before is not None:
        counted |= {"repeated": sum(repeated), "before_window": sum(before)}
    return counted


async def drain(ours: "SubscriberFleet", quiet: float = 1.0, limit: float = 30) -> float:
    """Wait until the subscribers have received nothing new for `quiet` seconds (the
    server's backlog is delivered); returns how long that took."""
    start = time.perf_counter()
    last: int | None = None
    since = start
    while time.perf_counter() - start < limit:
        total = sum((await ours.ask("totals", "totals", 30))["received"])
        now = time.perf_counter()
        if total != last:
            last, since = total, now
        elif now - since >= quiet:
            break
        await asyncio.sleep(0.2)
    return round(time.perf_counter() - start, 2)


class SubscriberProcess:
    """`python -m bench.subscribers`, driven by a line per command on its stdin."""

    def __init__(self) -> None:
        self.process: asyncio.subprocess.Process | None = None
        self.specs = tempfile.NamedTemporaryFile(  # noqa: SIM115 (removed in stop)
            "w", prefix="pressroom-bench-displays-", suffix=".json", delete=False
        )

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    async def start(
        self,
        url: str,
        specs: list[tuple[str, str]],
        compression: bool,
        deadline: float = SUBSCRIBER_DEADLINE,
    ) -> None:
        json.dump(specs, self.specs)
        self.specs.close()
        args = ["--url", url, "--specs", self.specs.name, "--seconds", str(deadline)]
        if not compression:
            args.append("--no-compression")
        self.process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.subscribers",
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=fixture.ROOT,
            limit=1 << 26,  # a report carries every latency of a window
        )

    async def send(self, command: str) -> None:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(command.encode() + b"\n")
        await self.process.stdin.drain()

    async def ask(self, command: str, expected: str, within: float) -> dict[str, Any]:
        """Send `command`; its answer, which must be of kind `expected`."""
        assert self.process is not None and self.process.stdout is not None
        await self.send(command)
        line = await asyncio.wait_for(self.process.stdout.readline(), within)
        if not line:
            raise RuntimeError(f"the subscriber process ended before answering {command!r}")
        message = json.loads(line)
        if message["kind"] != expected:
            raise RuntimeError(f"subscriber process: {message['kind']}: {message['body']}")
        body: dict[str, Any] = message["body"]
        return body

    async def stop(self) -> None:
        process = self.process
        if process is not None and process.returncode is None:
            with contextlib.suppress(OSError, RuntimeError):
                await self.send("quit")
            try:
                await asyncio.wait_for(process.wait(), 30)
            except TimeoutError:
                process.kill()
                await process.wait()
        with contextlib.suppress(OSError):
            os.unlink(self.specs.name)


# Subscribers per process: one Python process receives about this many messages of a
# light-load event burst without itself becoming the bottleneck.
PER_PROCESS = 2500


class SubscriberFleet:
    """Subscriber processes of up to PER_PROCESS subscribers each, asked as one."""

    def __init__(self, url: str, compression: bool, deadline: float = SUBSCRIBER_DEADLINE) -> None:
        self.url = url
        self.compression = compression
        self.deadline = deadline  # seconds each process lives at most
        self.processes: list[SubscriberProcess] = []
        # (token, department code) of every subscriber, in the order of their totals.
        self.specs: list[tuple[str, str]] = []

    def processes_now(self) -> list[psutil.Process]:
        found = []
        for process in self.processes:
            with contextlib.suppress(psutil.Error, TypeError):
                found.append(psutil.Process(process.pid))
        return found

    async def add(self, specs: list[tuple[str, str]]) -> dict[str, Any]:
        """Start processes for `specs` and connect them; their merged "connected" answer."""
        new = []
        for start in range(0, len(specs), PER_PROCESS):
            process = SubscriberProcess()
            await process.start(
                self.url, specs[start : start + PER_PROCESS], self.compression, self.deadline
            )
            new.append(process)
        self.processes += new
        self.specs += specs
        return merged(await asyncio.gather(*(p.ask("connect", "connected", 180) for p in new)))

    async def send(self, command: str) -> None:
        await asyncio.gather(*(p.send(command) for p in self.processes))

    async def ask(self, command: str, expected: str, within: float) -> dict[str, Any]:
        answers = [p.ask(command, expected, within) for p in self.processes]
        return merged(await asyncio.gather(*answers))

    async def stop(self) -> None:
        await asyncio.gather(*(p.stop() for p in self.processes))


def merged(answers: list[dict[str, Any]]) -> dict[str, Any]:
    """Several processes' answers as one: lists joined in process order, numbers added."""
    out: dict[str, Any] = {}
    for answer in answers:
        for key, value in answer.items():
            if isinstance(value, list):
                out[key] = out.get(key, []) + value
            else:
                out[key] = out.get(key, 0) + value
    return out
