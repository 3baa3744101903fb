"""Part 1 of `python -m bench.customer`: a proof uploaded beside the floor, one upload after
another for a phase per kind of file, after a phase without; each phase's floor, uploads,
server RSS (its peak against before the phase) and CPU."""

import asyncio
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from api.ids import encode_id
from bench import dashboard_seed
from bench.customer_measuring import Plan, RssSampler, meter_of, orders_of_tasks
from bench.floor import FloorTally, Workers, seed_floor, tasks_per_phase
from bench.load import HTTP_ERRORS
from bench.output import log
from bench.proof_files import KINDS
from bench.servers import ServerProcess
from bench.shop import TaskPool
from bench.stats import summary_ms

DEPARTMENTS = 4  # worked; one more holds the queue page the workers read
RSS_EVERY = 0.05
UPLOAD_TIMEOUT = 120


@dataclass
class Uploads:
    seconds: list[float] = field(default_factory=list)
    refused: Counter[str] = field(default_factory=Counter)


async def upload_loop(
    url: str, token: str, path: Path, name: str, deadline: float, done: Uploads
) -> None:
    """One upload after another until the deadline (the last one may end past it)."""
    timeout = aiohttp.ClientTimeout(total=UPLOAD_TIMEOUT)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            try:
                with path.open("rb") as file:
                    form = aiohttp.FormData()
                    form.add_field(
                        "file", file, filename=name, content_type="application/octet-stream"
                    )
                    async with session.post(
                        url, data=form, headers={"authorization": f"Bearer {token}"}
                    ) as response:
                        body = await response.read()
                        if response.status != 201:
                            done.refused[f"{response.status}: {body[:200]!r}"] += 1
                            await asyncio.sleep(1)
                            continue
            except HTTP_ERRORS as error:
                done.refused[repr(error)[:200]] += 1
                continue
            done.seconds.append(time.perf_counter() - started)


class UploadBench:
    def __init__(self, plan: Plan, url: str, postmaster: int | None) -> None:
        self.plan = plan
        self.url = url
        self.postmaster = postmaster

    async def run(self, files: dict[str, Path]) -> dict[str, Any]:
        floor = await seed_floor(self.url, departments=DEPARTMENTS, displays=0)
        [upload_task] = await TaskPool(self.url, floor.read, prefix="U").take(1)
        [order_id] = (await orders_of_tasks(self.url, [upload_task])).values()
        token = await dashboard_seed.admin_token(self.url, floor.seeded)
        phases = ("without", *self.plan.kinds)
        per_phase = tasks_per_phase(self.plan.phase_seconds)
        tasks = TaskPool(self.url, floor.worked)
        pools = {phase: await tasks.take(per_phase) for phase in phases}

        log("part 1: starting `pressroom serve`")
        server = ServerProcess(self.url)
        results: dict[str, Any] = {"file_bytes": {k: files[k].stat().st_size for k in files}}
        async with server.running():
            base = server.http_url.removesuffix("/graphql")
            upload_url = f"{base}/orders/{encode_id('WorkOrder', order_id)}/proofs"
            workers = Workers(server.http_url, floor.worked.worker_tokens, floor.reads)
            rss = RssSampler(server.pid, RSS_EVERY)
            rss.start()
            try:
                for phase in phases:
                    results[phase] = await self.phase(
                        phase, server, rss, workers, pools[phase], token, upload_url, files
                    )
            finally:
                await rss.stop()
                await workers.close()
        return results

    async def phase(
        self,
        phase: str,
        server: ServerProcess,
        rss: RssSampler,
        workers: Workers,
        pool: list[int],
        token: str,
        upload_url: str,
        files: dict[str, Path],
    ) -> dict[str, Any]:
        log(
            f"part 1, {KINDS[phase].label if phase in KINDS else phase}: "
            f"{self.plan.phase_seconds:g} s"
        )
        rss.stage = f"before {phase}"
        await asyncio.sleep(2)  # a settled RSS to measure from
        meter = meter_of(server, self.postmaster)
        tally = FloorTally()
        uploads = Uploads()
        rss.stage = phase
        meter.start()
        deadline = time.perf_counter() + self.plan.phase_seconds
        floor = asyncio.create_task(
            workers.run(pool, self.plan.phase_seconds, asyncio.Event(), tally)
        )
        if phase in KINDS:
            await upload_loop(
                upload_url, token, files[phase], KINDS[phase].file_name, deadline, uploads
            )
        await floor
        cpu = meter.stop()
        rss.stage = f"after {phase}"
        before = rss.of(f"before {phase}")
        during = rss.of(phase)
        return {
            "floor": tally.figures(),
            "uploads": {
                "done": len(uploads.seconds),
                **summary_ms(uploads.seconds),
                "refused": dict(uploads.refused),
            },
            "rss_before_mb": round(statistics.median(before), 1) if before else None,
            "rss_peak_mb": round(max(during), 1) if during else None,
            "cpu_cores": cpu,
            "seconds": round(meter.elapsed, 1),
        }
