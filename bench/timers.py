"""Durable timers beside the floor's work: a burst of due timers, and a long queue.

    .venv/bin/python -m bench.timers      # about four minutes

Every order and timer is made as the server makes them (db.orders, db.schedule).

1. 100,000 armed timers: 95,000 due next week (47,500 orders' due-soon and late), and
   5,000 falling due in the same second (2,500 orders rescheduled, during the load, to
   a due time 10 s ahead with a due-soon window of nothing: both their timers at once,
   each writing the order's event and its two queued tasks'), fired by one `pressroom
   serve` process while `--clients` clients start and finish tasks through GraphQL.
   Seconds from the due time to the last firing (target: under 10 s), and transitions/s
   in the slices of time the firing overlaps beside the slices before the burst was
   armed (target: at least 0.7). Every fired timer's events are counted too.
2. A queue page of a department with `--queue-tasks` pending tasks (10,000), and of one
   with 100: database statements per page (pg_stat_statements; the queue is one
   statement whatever its length) and milliseconds per page.

Uses the embedded PostgreSQL (`.pressroom/bench-pgdata`) or DATABASE_URL, in a fresh
database dropped at the end.
"""

import argparse
import asyncio
import dataclasses
import functools
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/timers.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncpg
import httpx
from rich.table import Table

from bench import fixture
from bench.load import GraphQLClients
from bench.output import fmt, log, verdict
from bench.servers import ServerProcess
from bench.shop import Shop, TaskPool, seed_shop
from bench.statements import StatementCounter
from bench.stats import ratio, summary_ms
from db import schedule, timers
from db.engine import create_engine, unit_of_work
from db.feed import NOTIFY_CHANNEL
from domain.enums import WorkOrderPriority

TARGET_FIRE_SECONDS = 10.0
# The queue beside the long one, read the same way.
SHORT_QUEUE = 100
TARGET_RATE_RATIO = 0.7
# Each order's due date arms two timers (due soon and late): the orders that fall due
# together are half the burst's timers, the rest of the armed ones are due next week.
ARMED = 100_000
# Through ix_timers_due: the burst's timers are all due at $1.
UNFIRED = "SELECT count(*) FROM timers WHERE fired_at IS NULL AND due_at = $1"
# The bench's own look at the table, at most this often: it shares the machine.
LOOK_EVERY = 0.2
FIRED = """
SELECT min(fired_at) AS first, max(fired_at) AS last, count(*) AS timers,
       (SELECT count(*) FROM events e
        WHERE e.type IN ('WORK_ORDER_DUE_SOON', 'WORK_ORDER_LATE')
          AND e.work_order_id = ANY($2::bigint[])) AS events
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
    """Returns once every timer due at `due` has fired: looked at again after a commit
    the servers announce (a firing's among them), at most every LOOK_EVERY seconds."""
    woke = asyncio.Event()

    def wake(*_: object) -> None:
        woke.set()

    await conn.add_listener(NOTIFY_CHANNEL, wake)
    try:
        async with asyncio.timeout(within):
            while await conn.fetchval(UNFIRED, due):
                await woke.wait()
                await asyncio.sleep(LOOK_EVERY)
                woke.clear()
    finally:
        await conn.remove_listener(NOTIFY_CHANNEL, wake)


async def orders_of(conn: asyncpg.Connection, task_ids: list[int]) -> list[int]:
    rows = await conn.fetch(
        "SELECT work_order_id FROM department_tasks WHERE id = ANY($1::bigint[])", task_ids
    )
    return [r["work_order_id"] for r in rows]


async def schedule_all(
    url: str, orders: list[int], due: datetime, actor: int, due_soon: timedelta
) -> None:
    """Each order due at `due`, as Sales reschedules one (its timers armed with it), four
    transactions of 250 at a time."""
    engine = create_engine(url, pool_size=4, max_overflow=0)
    writers = asyncio.Semaphore(4)

    async def chunk(part: list[int]) -> None:
        async with writers, unit_of_work(engine) as conn:
            for order in part:
                await schedule.reschedule(
                    conn, order, due, WorkOrderPriority.NORMAL, None, actor, due_soon
                )

    try:
        await asyncio.gather(*(chunk(orders[i : i + 250]) for i in range(0, len(orders), 250)))
    finally:
        await engine.dispose()


async def burst(args: argparse.Namespace, url: str, shop: Shop) -> dict[str, Any]:
    pool = TaskPool(url, shop)
    falling, later = args.burst // 2, (ARMED - args.burst) // 2
    log(f"making {falling:,} orders to fall due, {later:,} due next week, and work")
    conn = await asyncpg.connect(fixture.dsn(url))
    try:
        burst_orders = await orders_of(conn, await pool.take(falling))
        calendar = await orders_of(conn, await pool.take(later))
        work = await pool.take(args.work_tasks)
        next_week: datetime = await conn.fetchval("SELECT now() + interval '7 days'")
        await schedule_all(url, calendar, next_week, shop.admin_id, timers.DUE_SOON)
        armed = await conn.fetchval("SELECT count(*) FROM timers WHERE fired_at IS NULL")
        # What autovacuum would otherwise do to the tables just written, during the load.
        await conn.execute("VACUUM ANALYZE")
        log(f"{armed:,} timers armed for next week")
        server = ServerProcess(url)
        async with server.running():
            clients = GraphQLClients(server.http_url, shop.worker_tokens, args.clients)
            try:
                await clients.run(work, args.warmup_seconds)
                stop = asyncio.Event()
                load = asyncio.create_task(slices(clients, work, args.slice_seconds, stop))
                await asyncio.sleep(args.before_seconds)
                arming = time.time()
                due: datetime = await conn.fetchval(
                    "SELECT now() + make_interval(secs => $1)", args.arm_seconds
                )
                # Due soon and late at the same instant: two timers per order.
                await schedule_all(url, burst_orders, due, shop.admin_id, timedelta(0))
                armed_by = time.time()
                log(f"{2 * len(burst_orders):,} timers fall due at {due:%H:%M:%S.%f}")
                await all_fired(conn, due, within=120)
                await asyncio.sleep(args.after_seconds)
                stop.set()
                done = await load
            finally:
                await clients.close()
        fired = await conn.fetchrow(FIRED, due, burst_orders)
    finally:
        await conn.close()
    burst_span = (due.timestamp(), fired["last"].timestamp())
    # The slices before the burst's orders were rescheduled, and those the firing overlaps.
    before = [s for s in done if s.end <= arming]
    during = [s for s in done if s.end > burst_span[0] and s.start < burst_span[1]]
    return {
        "armed": armed + fired["timers"],
        "due": fired["timers"],
        "armed_early_s": due.timestamp() - armed_by,
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
    args: argparse.Namespace, url: str, shop: Shop, code: str, tasks: int
) -> dict[str, Any]:
    """`tasks` pending tasks made in department `code`, then its first page read
    `--pages` times: statements and milliseconds per page."""
    pool = TaskPool(url, dataclasses.replace(shop, department_codes=[code]), prefix=code)
    log(f"making {tasks:,} pending tasks in {code}")
    await pool.take(tasks)
    counter = StatementCounter(fixture.dsn(url))
    why_not = await counter.open(need_utility=False)
    server = ServerProcess(url)
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
    shop = await seed_shop(url, departments=11, workers=32, displays=0)
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
    table.add_row("  fired / their events", f"{b['fired']:,} / {b['events']:,}")
    table.add_row("  all armed this long before their due time", fmt(b["armed_early_s"], " s", 1))
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
    p.add_argument(
        "--arm-seconds", type=float, default=10, help="the burst is due this long after arming (10)"
    )
    p.add_argument("--after-seconds", type=float, default=2, help="load after it fired (2)")
    p.add_argument("--slice-seconds", type=float, default=0.5, help="rate slices (0.5)")
    p.add_argument("--queue-tasks", type=int, default=10000, help="pending in one queue (10000)")
    p.add_argument("--pages", type=int, default=50, help="queue pages read (50)")
    args = p.parse_args(argv)
    return fixture.run_and_report(
        "python -m bench.timers",
        functools.partial(run, args),
        lambda results: report(results, args),
    )


if __name__ == "__main__":
    sys.exit(main())
