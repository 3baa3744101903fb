"""Webhook deliveries beside the floor's work.

    .venv/bin/python -m bench.webhooks      # about two minutes

One `pressroom serve` process; `--clients` clients start and finish tasks through GraphQL
in ten production departments. First without webhooks (transitions/s), then with ten,
one per department (each follows TASK_CHANGED of its department), while the clients make
`--events` transitions: each is one event and one delivery, to receivers on loopback in
this process. Printed: deliveries per second (from the first event to the last arrival),
the lag from each event's commit to its arrival (p50, p99, max), and the transitions/s
while the webhooks were sent beside those without them (target: at least 0.7), the
rate without measured before and after, each delivery's arrivals counted. Last, the
server's CPU per transition (the load after) and per delivery (the webhooks turned on
again send that load's events, with nothing else to do).

Uses the embedded PostgreSQL (`.pressroom/bench-pgdata`) or DATABASE_URL, in a fresh
database dropped at the end.
"""

import argparse
import asyncio
import functools
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/webhooks.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncpg
from aiohttp import web
from rich.table import Table

from bench import fixture
from bench.load import GraphQLClients
from bench.output import fmt, log, verdict
from bench.servers import ServerProcess
from bench.shop import Shop, TaskPool, seed_shop
from bench.stats import percentile, process_cpu_seconds, ratio
from db import reads, webhooks
from db.engine import create_engine, unit_of_work
from domain import webhooks as rules
from domain.enums import EventType

TARGET_RATE_RATIO = 0.7
# More transitions per second than one server makes here: tasks enough for a timed load.
RATE_CEILING = 2500
EVENT_TIMES = "SELECT id, extract(epoch FROM occurred_at) AS at FROM events WHERE id = ANY($1)"
LAST_EVENT = "SELECT coalesce(max(id), 0) FROM events"
# The events the load made, each to be sent to one webhook.
SENT = """SELECT id FROM events WHERE id > $1 AND id <= $2 AND type = 'TASK_CHANGED'
          ORDER BY id"""


class Receivers:
    """One HTTP server on loopback, a path per webhook: when each webhook-id first came."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.first: dict[str, float] = {}
        self.requests = 0
        self.all_in = asyncio.Event()
        # The webhook-ids to wait for (set once the load is over).
        self.expected: list[str] = []
        self._runner: web.AppRunner | None = None
        self.urls: list[str] = []

    async def start(self) -> None:
        app = web.Application()
        for n in range(self.count):
            app.router.add_post(f"/hooks/{n}", self._take)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.urls = [f"http://127.0.0.1:{port}/hooks/{n}" for n in range(self.count)]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def all_of(self, event_ids: list[int]) -> None:
        """Until each of these events has arrived (at most ten minutes)."""
        self.expected = [f"evt_{i}" for i in event_ids]
        self.all_in.clear()
        if all(key in self.first for key in self.expected):
            self.all_in.set()
        async with asyncio.timeout(600):
            await self.all_in.wait()

    async def _take(self, request: web.Request) -> web.Response:
        await request.read()
        self.requests += 1
        self.first.setdefault(request.headers["webhook-id"], time.time())
        # Most requests are not the last awaited: the full look only when that one is in.
        last = self.expected[-1:]
        if last and last[0] in self.first and all(k in self.first for k in self.expected):
            self.all_in.set()
        return web.Response(status=204)


async def make_webhooks(url: str, shop: Shop, urls: list[str]) -> None:
    engine = create_engine(url, pool_size=1, max_overflow=0)
    try:
        async with unit_of_work(engine) as conn:
            by_code = {d.code: d.id for d in await reads.all_departments(conn)}
            for code, target in zip(shop.department_codes, urls, strict=True):
                await webhooks.create(
                    conn,
                    webhooks.NewWebhook(
                        url=target,
                        description=f"bench {code}",
                        event_kinds=[EventType.TASK_CHANGED],
                        department_ids=[by_code[code]],
                        secret=rules.new_secret(),
                        created_by=shop.admin_id,
                    ),
                )
    finally:
        await engine.dispose()


async def switch_webhooks(url: str, *, on: bool) -> None:
    engine = create_engine(url, pool_size=1, max_overflow=0)
    try:
        async with unit_of_work(engine) as conn:
            for hook in await webhooks.everyone(conn):
                await webhooks.update(conn, hook.id, webhooks.Changes(enabled=on))
    finally:
        await engine.dispose()


@dataclass(frozen=True)
class Rate:
    per_second: float
    cpu_per_transition: float


async def rate(
    clients: GraphQLClients, pool: TaskPool, seconds: float, server_cpu: Callable[[], float]
) -> Rate:
    """Transitions per second over `seconds`, from tasks enough that none runs dry, and the
    server's CPU seconds per transition."""
    work = await pool.take(round(seconds * RATE_CEILING / 2))
    cpu_before = server_cpu()
    result = await clients.run(work, seconds)
    cpu = server_cpu() - cpu_before
    if result.exhausted:
        raise SystemExit(f"the tasks ran out before {seconds} s: raise RATE_CEILING")
    return Rate(result.transitions / result.elapsed, cpu / result.transitions)


async def run(args: argparse.Namespace, url: str, embedded_server: bool) -> dict[str, Any]:
    await fixture.create_database(url)
    shop = await seed_shop(url, departments=10, workers=16, displays=0)
    pool = TaskPool(url, shop)
    receivers = Receivers(len(shop.department_codes))
    await receivers.start()
    server = ServerProcess(url, extra_env={"PRESSROOM_WEBHOOK_ALLOW_PRIVATE": "true"})
    conn = await asyncpg.connect(fixture.dsn(url))
    try:
        async with server.running():
            clients = GraphQLClients(server.http_url, shop.worker_tokens, args.clients)
            server_cpu = functools.partial(process_cpu_seconds, server.pid)
            try:
                await rate(clients, pool, args.warmup_seconds, server_cpu)
                log("transitions without webhooks")
                before = await rate(clients, pool, args.seconds, server_cpu)
                # Each task is two transitions: started, then finished.
                work = await pool.take(args.events // 2)
                await make_webhooks(url, shop, receivers.urls)
                first_id = await conn.fetchval(LAST_EVENT)
                log(f"{args.events:,} transitions, each sent to its department's webhook")
                began = time.time()
                during = await clients.run(work, 3600)
                last_id = await conn.fetchval(LAST_EVENT)
                sent = [r["id"] for r in await conn.fetch(SENT, first_id, last_id)]
                await receivers.all_of(sent)
                arrived = sum(1 for i in sent if f"evt_{i}" in receivers.first)
                # Turned off: the rate after is one without webhooks again.
                await switch_webhooks(url, on=False)
                off_from = await conn.fetchval(LAST_EVENT)
                log("transitions without webhooks, again (every delivery made)")
                after = await rate(clients, pool, args.seconds, server_cpu)
                off_to = await conn.fetchval(LAST_EVENT)
                owed = [r["id"] for r in await conn.fetch(SENT, off_from, off_to)]
                log(f"the {len(owed):,} events since, sent with nothing else to do")
                cpu_before = server_cpu()
                # Turned on again, the webhooks send what came while they were off.
                await switch_webhooks(url, on=True)
                await receivers.all_of(owed)
                per_delivery = (server_cpu() - cpu_before) / len(owed)
            finally:
                await clients.close()
            metrics = await server.metrics()
        times = {r["id"]: float(r["at"]) for r in await conn.fetch(EVENT_TIMES, sent)}
    finally:
        await conn.close()
        await receivers.stop()
    arrivals = [receivers.first[f"evt_{i}"] for i in sent]
    lags = [receivers.first[f"evt_{i}"] - at for i, at in times.items()]
    with_rate = during.transitions / during.elapsed
    without = (before.per_second + after.per_second) / 2
    attempts = sum(
        float(line.split()[-1])
        for line in metrics.splitlines()
        if line.startswith("pressroom_webhook_attempts_total{")
    )
    return {
        "events": len(sent),
        "arrived": arrived,
        "requests": receivers.requests,
        "attempts": attempts,
        "load_seconds": during.elapsed,
        "deliveries_per_s": len(sent) / (max(arrivals) - began),
        "lag_p50_s": percentile(lags, 50),
        "lag_p99_s": percentile(lags, 99),
        "lag_max_s": max(lags),
        "rate_before": before.per_second,
        "rate_during": with_rate,
        "rate_after": after.per_second,
        "ratio": ratio(with_rate, without),
        "cpu_per_transition_ms": after.cpu_per_transition * 1000,
        "cpu_per_delivery_ms": per_delivery * 1000,
    }


def report(results: dict[str, Any]) -> Table:
    r = results
    table = Table(title="Webhook deliveries", title_justify="left")
    for name, justify in (("measure", "left"), ("figure", "right"), ("target", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    table.add_column("")
    table.add_row(
        "events to ten webhooks / arrived (distinct)", f"{r['events']:,} / {r['arrived']:,}"
    )
    table.add_row(
        "  requests received / attempts made (every phase)",
        f"{r['requests']:,} / {r['attempts']:,.0f}",
    )
    table.add_row("  seconds the load took", fmt(r["load_seconds"], " s", 1))
    table.add_row("deliveries/s (load start to last arrival)", fmt(r["deliveries_per_s"]))
    table.add_row(
        "lag, commit to arrival: p50 / p99 / max",
        f"{fmt(r['lag_p50_s'], '', 2)} / {fmt(r['lag_p99_s'], '', 2)} / "
        f"{fmt(r['lag_max_s'], ' s', 2)}",
    )
    table.add_row("transitions/s without webhooks (before / after)",
                  f"{fmt(r['rate_before'])} / {fmt(r['rate_after'])}")  # fmt: skip
    table.add_row("transitions/s while they were sent", fmt(r["rate_during"]))
    table.add_row(
        "  with / without",
        fmt(r["ratio"], "", 2),
        f">= {TARGET_RATE_RATIO:g}",
        verdict(r["ratio"], lambda v: v >= TARGET_RATE_RATIO),
    )
    table.add_row(
        "server CPU ms per transition / per delivery (alone)",
        f"{fmt(r['cpu_per_transition_ms'], '', 3)} / {fmt(r['cpu_per_delivery_ms'], '', 3)}",
    )
    return table


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench.webhooks", description=__doc__)
    p.add_argument("--events", type=int, default=10000, help="events sent (10000)")
    p.add_argument("--clients", type=int, default=8, help="GraphQL clients (8)")
    p.add_argument("--seconds", type=float, default=15, help="each load without webhooks (15)")
    p.add_argument("--warmup-seconds", type=float, default=3, help="load before measuring (3)")
    args = p.parse_args(argv)
    return fixture.run_and_report("python -m bench.webhooks", functools.partial(run, args), report)


if __name__ == "__main__":
    sys.exit(main())
