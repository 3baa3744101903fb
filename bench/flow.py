"""Flow figures over a year of history beside the same question over a fresh shop.

    .venv/bin/python -m bench.flow            # about three minutes

1. A fresh shop (4 production departments, delivery, 8 workers): `flowSummary` for one
   month through GraphQL, `--asks` times; ms per answer.
2. The same shop with a year of a busy shop's history (`--orders`, 158,730 work orders,
   about 1,050,000 task transitions) written by bench/history.py: work orders one after
   another over 365 days, each with one to three production tasks (gating delivery) and
   a delivery task, every task started and finished (one start in ten left over its
   stale time and released), with their events, gates, timers and the orders'
   completion. Written with COPY, not through the writers (at their ~1,500 transitions/s
   a year would take a quarter of an hour). The flow projection, written with the rows,
   is then derived again from that history (`rebuild-flow`'s work, timed), and a server
   started after the load (its event feed at the log's end, as a shop's a year in) asked
   `flowSummary` for a month in the middle of the year, the same way (target: under
   200 ms).
3. `/export/transitions.csv` for the whole year (every one of those transitions), read
   as it streams, with the server's resident memory before and at its peak.

Uses the embedded PostgreSQL (`.pressroom/bench-pgdata`) or DATABASE_URL, in a fresh
database dropped at the end.
"""

import argparse
import functools
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/flow.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncpg
import httpx
import psutil
from rich.table import Table

from bench import dashboard_seed, fixture, history
from bench.output import fmt, log, verdict
from bench.servers import ServerProcess
from bench.shop import seed_shop
from bench.stats import summary_ms
from db import flow
from db.engine import create_engine

TARGET_MS = 200.0
YEAR_END = datetime(2026, 11, 1, tzinfo=UTC)
MONTH = (datetime(2026, 5, 1, tzinfo=UTC), datetime(2026, 6, 1, tzinfo=UTC))
SUMMARY = """query Flow($from: DateTime!, $to: DateTime!) {
  flowSummary(from: $from, to: $to) {
    departments { department { code } started completed wip waiting
      waitTime { count p50 p85 max } workTime { count p50 p85 max }
      perDay { day completed } }
    onTime { completed onTime rate } leadTime { count p50 p85 max } } }"""


async def ask(server: ServerProcess, token: str, times: int) -> dict[str, Any]:
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


async def export(server: ServerProcess, token: str) -> dict[str, Any]:
    """/export/transitions.csv for the whole year, read as it streams, while the server's
    resident memory is sampled every 20 ms: rows, seconds, and memory before and at peak."""
    process = psutil.Process(server.pid)
    before = process.memory_info().rss
    peak = before
    rows = 0
    params = {"from": (YEAR_END - history.YEAR).isoformat(), "to": YEAR_END.isoformat()}
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
    shop = await seed_shop(url, departments=4, workers=8, displays=0, gates_delivery=True)
    token = await dashboard_seed.admin_token(url, shop)
    server = ServerProcess(url)
    async with server.running():
        log("flowSummary over a fresh shop...")
        fresh = await ask(server, token, args.asks)
    log("writing a year of history...")
    shape = history.Shape(
        orders=args.orders, every=history.YEAR / args.orders, production=(1, 3), release=0.1
    )
    built = await history.build(url, shop, shape, YEAR_END)
    log(f"loaded in {built.load_seconds:.1f} s; the flow projection rebuilt from it...")
    rebuilt = await rebuild(url)
    log(f"rebuilt in {rebuilt:.1f} s; flowSummary over the year...")
    server = ServerProcess(url, extra_env=history.KEEP_THE_YEAR)
    async with server.running():
        year = await ask(server, token, args.asks)
        log("exporting the year's transitions...")
        exported = await export(server, token)
    return {
        "transitions": built.history.count("task_transitions"),
        "orders": built.history.count("work_orders"),
        "load_seconds": round(built.load_seconds, 1),
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
    p.add_argument("--orders", type=int, default=158_730, help="work orders in the year")
    p.add_argument("--asks", type=int, default=30, help="flowSummary answers timed (30)")
    args = p.parse_args(argv)
    return fixture.run_and_report("python -m bench.flow", functools.partial(run, args), report)


if __name__ == "__main__":
    sys.exit(main())
