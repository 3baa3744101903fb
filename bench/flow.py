"""Flow figures over a year of history beside the same question over a fresh shop.

    .venv/bin/python -m bench.flow            # about three minutes

1. A fresh shop (4 production departments, delivery, 8 workers): `flowSummary` for one
   month through GraphQL, `--asks` times; ms per answer.
2. The same shop with a year of a busy shop's history (`--transitions`, 1,000,000 task
   transitions): work orders one after another over 365 days, each with one to three
   production tasks and a delivery task, every task started and finished (one in ten
   released and restarted first), the delivery gate's opening and the order's completion
   in the order's history. Written with COPY, not through the writers (at their ~1,500
   transitions/s a year would take a quarter of an hour): the rows the writers would
   write, without events (flow figures do not read them). The flow projection is then
   derived from that history (`rebuild-flow`'s work, timed), and `flowSummary` asked for
   a month in the middle of the year, the same way (target: under 200 ms).
3. `/export/transitions.csv` for the whole year (every one of those transitions), read
   as it streams, with the server's resident memory before and at its peak.

Uses the embedded PostgreSQL (`.pressroom/bench-pgdata`) or DATABASE_URL, in a fresh
database dropped at the end.
"""

import argparse
import functools
import random
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/flow.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncpg
import httpx
import psutil
from rich.table import Table

from bench import fixture
from bench.output import fmt, log, verdict
from bench.stats import summary_ms
from db import flow, people
from db.engine import create_engine, unit_of_work
from domain.enums import TokenKind

TARGET_MS = 200.0
YEAR_END = datetime(2026, 11, 1, tzinfo=UTC)
YEAR = timedelta(days=365)
MONTH = (datetime(2026, 5, 1, tzinfo=UTC), datetime(2026, 6, 1, tzinfo=UTC))
SUMMARY = """query Flow($from: DateTime!, $to: DateTime!) {
  flowSummary(from: $from, to: $to) {
    departments { department { code } started completed wip waiting
      waitTime { count p50 p85 max } workTime { count p50 p85 max }
      perDay { day completed } }
    onTime { completed onTime rate } leadTime { count p50 p85 max } } }"""


async def admin_token(url: str, admin_id: int) -> str:
    engine = create_engine(url, pool_size=1, max_overflow=0)
    try:
        async with unit_of_work(engine) as conn:
            issued = await people.issue_token(
                conn, kind=TokenKind.SESSION, name="bench", user_id=admin_id, ttl_seconds=3600
            )
    finally:
        await engine.dispose()
    return issued.token


async def ask(server: fixture.ServerProcess, token: str, times: int) -> dict[str, Any]:
    """flowSummary for MONTH, `times` times one after another: ms per answer."""
    variables = {"from": MONTH[0].isoformat(), "to": MONTH[1].isoformat()}
    seconds = []
    headers = {"authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(timeout=60, trust_env=False, headers=headers) as client:
        for n in range(times + 2):
            started = time.perf_counter()
            body = (
                await client.post(server.http_url, json={"query": SUMMARY, "variables": variables})
            ).json()
            if n >= 2:  # two to warm the caches
                seconds.append(time.perf_counter() - started)
            assert "errors" not in body, body
    summary = body["data"]["flowSummary"]
    return {
        **summary_ms(seconds),
        "tasks_completed": sum(d["completed"] for d in summary["departments"]),
        "orders_completed": summary["leadTime"]["count"],
    }


def a_year(
    shop: fixture.Shop, transitions: int, rng: random.Random
) -> dict[str, list[tuple[Any, ...]]]:
    """The rows of a year of work, ids from 1: orders until `transitions` are written."""
    rows: dict[str, list[tuple[Any, ...]]] = {
        "work_orders": [],
        "department_tasks": [],
        "task_transitions": [],
        "work_order_transitions": [],
    }
    per_order = 6.3  # 2 production tasks and delivery, 2 moves each, a release in ten
    orders = int(transitions / per_order)
    task_id = 0
    written = 0
    step = YEAR / orders
    worker = shop.worker_ids

    def minutes(mean: float) -> timedelta:
        return timedelta(minutes=rng.expovariate(1 / mean))

    for n in range(1, orders + 1):
        created = YEAR_END - YEAR + n * step
        codes = rng.sample(shop.department_ids, k=rng.randint(1, 3))
        moment = created
        for department in [*codes, shop.delivery_id]:
            task_id += 1
            available = moment
            if department == shop.delivery_id:
                rows["work_order_transitions"].append(
                    (n, "OPEN_GATE", "CLOSED", "OPEN", None, moment, department)
                )
            who = rng.choice(worker)
            start = available + minutes(90)
            if rng.random() < 0.1:
                released = start + minutes(20)
                rows["task_transitions"] += [
                    (task_id, "PENDING", "STARTED", "START", who, start),
                    (task_id, "STARTED", "PENDING", "RELEASE", who, released),
                ]
                start = released + minutes(30)
                written += 2
            done = start + minutes(60)
            rows["task_transitions"] += [
                (task_id, "PENDING", "STARTED", "START", who, start),
                (task_id, "STARTED", "COMPLETED", "FINISH", who, done),
            ]
            written += 2
            rows["department_tasks"].append(
                (task_id, n, department, "COMPLETED", who, available, start, done, created, done)
            )
            moment = done if department != shop.delivery_id else moment
        completed = rows["department_tasks"][-1][7]
        due = created + timedelta(days=2) if n % 3 else None
        rows["work_orders"].append(
            (n, f"B-{n:07d}", shop.customer_id, "COMPLETED", shop.admin_id, created, due, completed)
        )
        rows["work_order_transitions"].append(
            (n, "COMPLETE", "ACTIVE", "COMPLETED", None, completed, None)
        )
    log(f"{orders:,} orders, {task_id:,} tasks, {written:,} task transitions")
    return rows


COLUMNS = {
    "work_orders": (
        "id", "order_number", "customer_id", "status", "created_by", "created_at", "due_at",
        "updated_at",
    ),
    "department_tasks": (
        "id", "work_order_id", "department_id", "status", "picked_up_by", "available_at",
        "started_at", "completed_at", "created_at", "updated_at",
    ),
    "task_transitions": (
        "task_id", "from_status", "to_status", "action", "actor_id", "occurred_at",
    ),
    "work_order_transitions": (
        "work_order_id", "action", "from_state", "to_state", "actor_id", "occurred_at",
        "department_id",
    ),
}  # fmt: skip


async def load(url: str, rows: dict[str, list[tuple[Any, ...]]]) -> float:
    """COPY the year in, move the identities past it, ANALYZE: seconds."""
    started = time.perf_counter()
    conn = await asyncpg.connect(fixture.dsn(url))
    try:
        async with conn.transaction():
            for table, records in rows.items():
                await conn.copy_records_to_table(table, records=records, columns=COLUMNS[table])
            for table in ("work_orders", "department_tasks"):
                await conn.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), max(id)) FROM {table}"
                )
        await conn.execute("ANALYZE")
    finally:
        await conn.close()
    return time.perf_counter() - started


async def export(server: fixture.ServerProcess, token: str) -> dict[str, Any]:
    """/export/transitions.csv for the whole year, read as it streams, while the server's
    resident memory is sampled every 20 ms: rows, seconds, and memory before and at peak."""
    process = psutil.Process(server.pid)
    before = process.memory_info().rss
    peak = before
    rows = 0
    params = {"from": (YEAR_END - YEAR).isoformat(), "to": YEAR_END.isoformat()}
    url = server.http_url.replace("/graphql", "/export/transitions.csv")
    headers = {"authorization": f"Bearer {token}"}
    started = time.perf_counter()
    sampled = started
    async with (
        httpx.AsyncClient(timeout=600, trust_env=False) as client,
        client.stream("GET", url, params=params, headers=headers) as response,
    ):
        response.raise_for_status()
        async for chunk in response.aiter_bytes():
            rows += chunk.count(b"\n")
            if time.perf_counter() - sampled >= 0.02:
                sampled = time.perf_counter()
                peak = max(peak, process.memory_info().rss)
    seconds = time.perf_counter() - started
    peak = max(peak, process.memory_info().rss)
    return {
        "rows": rows - 1,  # the header
        "seconds": round(seconds, 1),
        "rss_before_mb": round(before / 2**20, 1),
        "rss_peak_mb": round(peak / 2**20, 1),
    }


async def rebuild(url: str) -> float:
    """`pressroom rebuild-flow`'s work over the whole year: seconds."""
    started = time.perf_counter()
    engine = create_engine(url, pool_size=1, max_overflow=0)
    try:
        await flow.rebuild_all(engine)
    finally:
        await engine.dispose()
    conn = await asyncpg.connect(fixture.dsn(url))
    try:
        await conn.execute("ANALYZE department_tasks")
    finally:
        await conn.close()
    return time.perf_counter() - started


async def run(args: argparse.Namespace, url: str, embedded_server: bool) -> dict[str, Any]:
    await fixture.create_database(url)
    shop = await fixture.seed_shop(url, departments=4, workers=8, displays=0)
    token = await admin_token(url, shop.admin_id)
    server = fixture.ServerProcess(url)
    async with server.running():
        log("flowSummary over a fresh shop...")
        fresh = await ask(server, token, args.asks)
        log("writing a year of history...")
        rows = a_year(shop, args.transitions, random.Random(1))
        loaded = await load(url, rows)
        log(f"loaded in {loaded:.1f} s; the flow projection rebuilt from it...")
        rebuilt = await rebuild(url)
        log(f"rebuilt in {rebuilt:.1f} s; flowSummary over the year...")
        year = await ask(server, token, args.asks)
        log("exporting the year's transitions...")
        exported = await export(server, token)
    return {
        "transitions": len(rows["task_transitions"]),
        "orders": len(rows["work_orders"]),
        "load_seconds": round(loaded, 1),
        "rebuild_seconds": round(rebuilt, 1),
        "fresh": fresh,
        "year": year,
        "export": exported,
    }


def report(results: dict[str, Any]) -> Table:
    table = Table(title="Flow figures", title_justify="left")
    for name, justify in (("measure", "left"), ("figure", "right"), ("target", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    table.add_column("")
    fresh, year = results["fresh"], results["year"]
    table.add_row(
        "history: task transitions / work orders (a year)",
        f"{results['transitions']:,} / {results['orders']:,}",
    )
    table.add_row(
        "  in the month asked about: tasks / orders completed",
        f"{year['tasks_completed']:,} / {year['orders_completed']:,}",
    )
    table.add_row(
        "flowSummary for a month, fresh shop: p50 / p99 ms",
        f"{fmt(fresh['p50_ms'], '', 1)} / {fmt(fresh['p99_ms'], '', 1)}",
    )
    table.add_row(
        "flowSummary for a month, a year of history: p50 / p99 ms",
        f"{fmt(year['p50_ms'], '', 1)} / {fmt(year['p99_ms'], '', 1)}",
        f"< {TARGET_MS:g} ms",
        verdict(year["p50_ms"], lambda v: v < TARGET_MS),
    )
    table.add_row(
        "rebuilding the flow projection of the year from history", f"{results['rebuild_seconds']} s"
    )
    table.add_row("  year / fresh (p50)", fmt(year["p50_ms"] / fresh["p50_ms"], "", 1))
    e = results["export"]
    table.add_row(
        "/export/transitions.csv of the year: rows in seconds",
        f"{e['rows']:,} in {e['seconds']} s",
    )
    table.add_row(
        "  server memory before / at peak during it",
        f"{e['rss_before_mb']} / {e['rss_peak_mb']} MB",
    )
    return table


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench.flow", description=__doc__)
    p.add_argument("--transitions", type=int, default=1_000_000, help="task transitions")
    p.add_argument("--asks", type=int, default=30, help="flowSummary answers timed (30)")
    args = p.parse_args(argv)
    return fixture.run_and_report("python -m bench.flow", functools.partial(run, args), report)


if __name__ == "__main__":
    sys.exit(main())
