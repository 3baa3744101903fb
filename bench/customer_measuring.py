"""What both parts of `python -m bench.customer` measure with: its plan, the server's RSS
sampled by stage, the CPU of the bench, the server and PostgreSQL, and each task's work
order."""

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path

import asyncpg

from bench import fixture
from bench.servers import ServerProcess
from bench.stats import CpuMeter, process_tree, rss_mb, this_process


@dataclass(frozen=True)
class Plan:
    phase_seconds: float
    kinds: tuple[str, ...]
    pages: int
    poll_seconds: float
    rounds: int
    json: Path | None


class RssSampler:
    """The server's RSS (its process tree) every `every` seconds, labelled with the stage."""

    def __init__(self, pid: int | None, every: float) -> None:
        self.group = process_tree(pid)
        self.every = every
        self.stage = "idle"
        self.samples: list[tuple[float, str, float]] = []
        self.task: asyncio.Task[None] | None = None

    def now_mb(self) -> float:
        return rss_mb(self.group())

    async def _run(self) -> None:
        while True:
            self.samples.append((time.perf_counter(), self.stage, self.now_mb()))
            await asyncio.sleep(self.every)

    def start(self) -> None:
        self.task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)

    def of(self, stage: str) -> list[float]:
        return [mb for _, s, mb in self.samples if s == stage]


def meter_of(server: ServerProcess, postmaster: int | None) -> CpuMeter:
    return CpuMeter(
        {
            "bench": this_process,
            "server": process_tree(server.pid),
            "postgres": process_tree(postmaster),
        }
    )


async def orders_of_tasks(url: str, task_ids: list[int]) -> dict[int, int]:
    """Each task's work order."""
    conn = await asyncpg.connect(fixture.dsn(url))
    try:
        rows = await conn.fetch(
            "SELECT id, work_order_id FROM department_tasks WHERE id = ANY($1)", task_ids
        )
    finally:
        await conn.close()
    return {row["id"]: row["work_order_id"] for row in rows}
