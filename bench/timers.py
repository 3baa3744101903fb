"""Durable timers beside the floor's work: a burst of due timers, and a long queue.

    .venv/bin/python -m bench.timers      # about two minutes

1. 100,000 armed timers: 95,000 due next week, and 5,000 (each a work order's
   WORK_ORDER_LATE, its production task in a queue) falling due in the same second,
   fired by one `pressroom serve` process while `--clients` clients start and finish
   tasks through GraphQL. Seconds from the due time to the last firing (target: under
   10 s), and transitions/s in the slices of time the burst overlaps beside the slices
   before it (target: at least 0.7). Every fired timer's events are counted too.
2. A queue page of a department with `--queue-tasks` pending tasks (10,000), and of one
   with 100: database statements per page (pg_stat_statements; the queue is one
   statement whatever its length) and milliseconds per page.

Uses the embedded PostgreSQL (`.pressroom/bench-pgdata`) or DATABASE_URL, in a fresh
database dropped at the end.
"""

import argparse
import asyncio
import contextlib
import dataclasses
import functools
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/timers.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncpg
import httpx
from rich.console import Console
from rich.table import Table

from bench import fixture
from bench.load import GraphQLClients
from bench.output import fmt, log, verdict
from bench.statements import StatementCounter
from bench.stats import ratio, summary_ms
from db.feed import NOTIFY_CHANNEL

TARGET_FIRE_SECONDS = 10.0
# The queue beside the long one, read the same way.
SHORT_QUEUE = 100
TARGET_RATE_RATIO = 0.7
# Armed for next week, an hour apart per order: never due during the run.
LATER_PER_ORDER = 19
ARM_LATER = """
INSERT INTO timers (purpose, work_order_id, armed_for, due_at)
SELECT 'WORK_ORDER_LATE', o, x.at, x.at
FROM unnest($1::bigint[]) AS o, generate_series(1, $2::int) AS g,
     LATERAL (SELECT now() + interval '7 days' + g * interval '1 hour' AS at) AS x
"""
# The burst: each order due at $2, and its WORK_ORDER_LATE timer armed for it, as a
# reschedule would leave them (without its due-soon timer, due a day earlier).
ARM_BURST = """
WITH moved AS (UPDATE work_orders SET due_at = $2 WHERE id = ANY($1::bigint[]) RETURNING id)
INSERT INTO timers (purpose, work_order_id, armed_for, due_at)
SELECT 'WORK_ORDER_LATE', id, $2, $2 FROM moved
"""
UNFIRED = "SELECT count(*) FROM timers WHERE armed_for = $1 AND fired_at IS NULL"
FIRED = """
SELECT min(fired_at) AS first, max(fired_at) AS last, count(*) AS timers,
       (SELECT count(*) FROM events e
        WHERE e.type = 'WORK_ORDER_LATE' AND e.work_order_id = ANY($2::bigint[])) AS events
FROM timers WHERE armed_for = $1
"""
QUEUE = """query Q($department: String!) { queue(department: $department, first: 50) {
  edges { node { id status workOrder { orderNumber dueAt priority isLate } } } } }"""


@dataclasses.dataclass
class Slice:
    start: float
    end: float
    transitions: int


async def slices(
    clients: GraphQLClients, pool: list[int], length: float, stop: asyncio.Event
) -> list[Slice]:
    """Load in slices of `length` seconds until `stop`: each slice's wall-clock span and
    its transitions."""
    done: list[Slice] = []
    while not stop.is_set() and pool:
        start = time.time()
        result = await clients.run(pool, length)
        done.append(Slice(start, time.time(), result.transitions))
    return done


def rate(parts: list[Slice]) -> float | None:
    seconds = sum(s.end - s.start for s in parts)
    return sum(s.transitions for s in parts) / seconds if seconds else None


async def all_fired(conn: asyncpg.Connection, due: datetime, within: float) -> None:
    """Returns once every timer armed for `due` has fired: looked at again after each
    commit the servers announce (a firing's among them)."""
    woke = asyncio.Event()

    def wake(*_: object) -> None:
        woke.set()

    await conn.add_listener(NOTIFY_CHANNEL, wake)
    try:
        async with asyncio.timeout(within):
            while await conn.fetchval(UNFIRED, due):
                await woke.wait()
                woke.clear()
    finally:
        await conn.remove_listener(NOTIFY_CHANNEL, wake)


async def burst(args: argparse.Namespace, url: str, shop: fixture.Shop) -> dict[str, Any]:
    pool = fixture.TaskPool(url, shop)
    log(f"making {args.burst:,} orders to fall due, and {args.work_tasks:,} tasks of work")
    burst_tasks = await pool.take(args.burst)
    work = await pool.take(args.work_tasks)
    conn = await asyncpg.connect(fixture.dsn(url))
    try:
        order_ids = [
            r["work_order_id"]
            for r in await conn.fetch(
                "SELECT work_order_id FROM department_tasks WHERE id = ANY($1::bigint[])",
                burst_tasks,
            )
        ]
        await conn.execute(ARM_LATER, order_ids, LATER_PER_ORDER)
        armed = await conn.fetchval("SELECT count(*) FROM timers WHERE fired_at IS NULL")
        log(f"{armed:,} timers armed for next week")
        server = fixture.ServerProcess(url)
        async with server.running():
            clients = GraphQLClients(server.http_url, shop.worker_tokens, args.clients)
            try:
                await clients.run(work, args.warmup_seconds)
                stop = asyncio.Event()
                load = asyncio.create_task(slices(clients, work, args.slice_seconds, stop))
                await asyncio.sleep(args.before_seconds)
                due: datetime = await conn.fetchval("SELECT now() + interval '1 second'")
                await conn.execute(ARM_BURST, order_ids, due)
                log(f"{len(order_ids):,} timers fall due at {due:%H:%M:%S.%f}")
                await all_fired(conn, due, within=120)
                await asyncio.sleep(args.after_seconds)
                stop.set()
                done = await load
            finally:
                await clients.close()
        fired = await conn.fetchrow(FIRED, due, order_ids)
    finally:
        await conn.close()
    burst_span = (due.timestamp(), fired["last"].timestamp())
    before = [s for s in done if s.end <= burst_span[0]]
    during = [s for s in done if s.end > burst_span[0] and s.start < burst_span[1]]
    return {
        "armed": armed + len(order_ids),
        "due": len(order_ids),
        "fired": fired["timers"],
        "events": fired["events"],
        "first_fired_s": (fired["first"] - due).total_seconds(),
        "last_fired_s": (fired["last"] - due).total_seconds(),
        "rate_before": rate(before),
        "rate_during": rate(during),
        "slices_before": len(before),
        "slices_during": len(during),
        "ratio": ratio(rate(during), rate(before)),
        "left_in_pool": len(work),
    }


async def queue_pages(
    args: argparse.Namespace, url: str, shop: fixture.Shop, code: str, tasks: int
) -> dict[str, Any]:
    """`tasks` pending tasks made in department `code`, then its first page read
    `--pages` times: statements and milliseconds per page."""
    pool = fixture.TaskPool(url, dataclasses.replace(shop, department_codes=[code]), prefix=code)
    log(f"making {tasks:,} pending tasks in {code}")
    await pool.take(tasks)
    counter = StatementCounter(fixture.dsn(url))
    why_not = await counter.open(need_utility=False)
    server = fixture.ServerProcess(url)
    body = {"query": QUEUE, "variables": {"department": code}}
    headers = {"authorization": f"Bearer {shop.worker_tokens[0]}"}
    try:
        async with server.running(), httpx.AsyncClient(timeout=30, trust_env=False) as client:
            for _ in range(5):  # warm: statements prepared, the token's viewer cached
                (await client.post(server.http_url, json=body, headers=headers)).raise_for_status()
            if why_not is None:
                await counter.reset()
            seconds = []
            for _ in range(args.pages):
                started = time.perf_counter()
                answer = (await client.post(server.http_url, json=body, headers=headers)).json()
                seconds.append(time.perf_counter() - started)
                assert not answer.get("errors"), answer
            counted = await counter.count() if why_not is None else None
    finally:
        await counter.close()
    part: dict[str, Any] = {
        "tasks": tasks,
        "pages": args.pages,
        "page_rows": len(answer["data"]["queue"]["edges"]),
        **summary_ms(seconds),
    }
    if counted is None:
        part["statements_skipped"] = why_not
    else:
        part["statements_per_page"] = counted["request_calls"] / args.pages
        part["statements"] = [s for s in counted["statements"] if not s["feed"]]
    return part


async def run(args: argparse.Namespace, url: str, embedded_server: bool) -> dict[str, Any]:
    await fixture.create_database(url)
    shop = await fixture.seed_shop(url, departments=11, workers=32, displays=0)
    *working, long, short = shop.department_codes
    return {
        "burst": await burst(args, url, dataclasses.replace(shop, department_codes=working)),
        "queues": [
            await queue_pages(args, url, shop, long, args.queue_tasks),
            await queue_pages(args, url, shop, short, SHORT_QUEUE),
        ],
    }


def report(results: dict[str, Any], args: argparse.Namespace) -> Table:
    b = results["burst"]
    table = Table(title="Durable timers", title_justify="left")
    for name, justify in (("measure", "left"), ("figure", "right"), ("target", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    table.add_column("")
    table.add_row("timers armed / falling due in one second", f"{b['armed']:,} / {b['due']:,}")
    table.add_row("  fired / their WORK_ORDER_LATE events", f"{b['fired']:,} / {b['events']:,}")
    table.add_row(
        "due time to the last firing",
        fmt(b["last_fired_s"], " s", 2),
        f"< {TARGET_FIRE_SECONDS:g} s",
        verdict(b["last_fired_s"], lambda v: v < TARGET_FIRE_SECONDS),
    )
    table.add_row("  due time to the first firing", fmt(b["first_fired_s"], " s", 2))
    table.add_row(
        f"transitions/s before ({b['slices_before']} slices of {args.slice_seconds:g} s)",
        fmt(b["rate_before"]),
    )
    table.add_row(
        f"transitions/s during the burst ({b['slices_during']} slices)", fmt(b["rate_during"])
    )
    table.add_row(
        "  during / before",
        fmt(b["ratio"], "", 2),
        f">= {TARGET_RATE_RATIO:g}",
        verdict(b["ratio"], lambda v: v >= TARGET_RATE_RATIO),
    )
    for q in results["queues"]:
        table.add_section()
        title = f"queue page, {q['tasks']:,} pending in the department"
        table.add_row(title, f"{q['page_rows']} rows")
        latency = f"{fmt(q['p50_ms'], '', 1)} / {fmt(q['p99_ms'], '', 1)}"
        table.add_row("  ms per page, p50 / p99", latency)
        if "statements_per_page" not in q:
            table.add_row("  statements not counted", q["statements_skipped"])
            continue
        table.add_row("  database statements per page", fmt(q["statements_per_page"], "", 2))
        for statement in q["statements"]:
            per_page = statement["calls"] / q["pages"]
            if per_page >= 0.5:
                table.add_row(f"    {statement['query'][:70]}", fmt(per_page, "", 2))
    return table


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench.timers", description=__doc__)
    p.add_argument("--burst", type=int, default=5000, help="timers due in one second (5000)")
    p.add_argument("--clients", type=int, default=8, help="GraphQL clients (8)")
    p.add_argument("--work-tasks", type=int, default=12000, help="tasks for the load (12000)")
    p.add_argument("--warmup-seconds", type=float, default=2, help="load before measuring (2)")
    p.add_argument("--before-seconds", type=float, default=6, help="load before the burst (6)")
    p.add_argument("--after-seconds", type=float, default=2, help="load after it fired (2)")
    p.add_argument("--slice-seconds", type=float, default=0.5, help="rate slices (0.5)")
    p.add_argument("--queue-tasks", type=int, default=10000, help="pending in one queue (10000)")
    p.add_argument("--pages", type=int, default=50, help="queue pages read (50)")
    args = p.parse_args(argv)
    results = fixture.run_in_database("python -m bench.timers", functools.partial(run, args))
    if results is None:
        return 130
    with contextlib.suppress(BrokenPipeError):
        Console(width=None if sys.stdout.isatty() else 120).print(report(results, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
