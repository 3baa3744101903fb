"""The legacy import's speed beside its floor, measured in one run.

    .venv/bin/python -m bench.legacy_import                # 100,000 legacy orders
    .venv/bin/python -m bench.legacy_import --orders 20000

1. Builds a legacy database (samples/legacy_data.py's generator: steps, line items,
   payments, users, and every kind of odd data) and an empty Pressroom database with
   the shop's departments.
2. Times `import-legacy` as the command runs it (read, plan, batched writes): orders/s.
3. The floor: the very rows the import wrote (work orders, tasks, history, events,
   ledger entries) written again with COPY into a second empty database with the same
   schema, constraints and indexes. Target: at least 5,000 orders/s and at least 0.3 of
   the COPY floor.

Uses the embedded PostgreSQL (`.pressroom/bench-pgdata`) or DATABASE_URL; the three
databases are dropped at the end.
"""

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/legacy_import.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncpg
from rich.console import Console
from rich.table import Table

from db import admin, embedded, migrate, people
from db.engine import create_engine, unit_of_work
from domain.enums import DepartmentKind
from pressroom.legacy_import import import_legacy
from samples.legacy_data import build_legacy

ROOT = Path(__file__).resolve().parents[1]
console = Console(stderr=True)
# The shop the import maps onto: the codes the generator's steps name.
DEPARTMENTS = [
    ("sales", "SALES", False),
    ("accounts", "ACCOUNTS", False),
    ("design", "PRODUCTION", False),
    ("print", "PRODUCTION", True),
    ("finishing", "PRODUCTION", True),
    ("delivery", "DELIVERY", False),
]
# What the import writes beyond the people and customers it matches or makes, in an
# order that satisfies the foreign keys.
WRITTEN = [
    "work_orders",
    "department_tasks",
    "task_transitions",
    "work_order_transitions",
    "events",
    "customer_ledger_entries",
]
BASE = ["departments", "users", "user_departments", "customers"]


def dsn(url: str) -> str:
    return url.replace("postgresql+asyncpg://", "postgresql://")


async def fresh(url: str) -> None:
    await admin.recreate_database(url)
    await migrate.upgrade(url)


async def add_departments(url: str) -> None:
    engine = create_engine(url, pool_size=1, max_overflow=0)
    try:
        async with unit_of_work(engine) as conn:
            for code, kind, gates in DEPARTMENTS:
                await people.create_department(
                    conn, code, code.title(), DepartmentKind(kind), gates
                )
    finally:
        await engine.dispose()


async def copy_floor(source_url: str, floor_url: str) -> tuple[float, dict[str, int]]:
    """COPY the rows the import wrote into an empty database of the same schema: seconds."""
    src = await asyncpg.connect(dsn(source_url))
    dst = await asyncpg.connect(dsn(floor_url))
    try:
        tables: dict[str, tuple[list[str], list[Any]]] = {}
        for table in BASE + WRITTEN:
            records = await src.fetch(f"SELECT * FROM {table}")
            columns = list(records[0].keys()) if records else []
            tables[table] = (columns, [tuple(r) for r in records])
        for table in BASE:
            columns, rows = tables[table]
            await dst.copy_records_to_table(table, records=rows, columns=columns)
        started = time.perf_counter()
        async with dst.transaction():
            for table in WRITTEN:
                columns, rows = tables[table]
                await dst.copy_records_to_table(table, records=rows, columns=columns)
        elapsed = time.perf_counter() - started
        return elapsed, {t: len(tables[t][1]) for t in WRITTEN}
    finally:
        await src.close()
        await dst.close()


async def run(orders: int, server: str) -> dict[str, Any]:
    pid = os.getpid()
    legacy_url = embedded.with_database(server, f"bench_legacy_{pid}")
    target_url = embedded.with_database(server, f"bench_import_{pid}")
    floor_url = embedded.with_database(server, f"bench_import_floor_{pid}")
    try:
        console.print(f"Building a legacy database of {orders:,} orders...")
        await admin.recreate_database(legacy_url)
        started = time.perf_counter()
        await build_legacy(legacy_url, orders=orders)
        built = time.perf_counter() - started
        for url in (target_url, floor_url):
            await fresh(url)
        await add_departments(target_url)
        console.print("Importing...")
        started = time.perf_counter()
        summary = await import_legacy(legacy_url, target_url, progress=sys.stderr.isatty())
        imported = time.perf_counter() - started
        console.print("Writing the same rows with COPY (the floor)...")
        floor, rows = await copy_floor(target_url, floor_url)
        return {
            "legacy_orders": orders,
            "generate_seconds": round(built, 2),
            "import_seconds": round(imported, 2),
            "orders_imported": summary.orders_imported,
            "orders_excluded": sum(summary.orders_excluded.values()),
            "payments_posted": summary.payments_posted,
            "rows_written": rows,
            "orders_per_second": round(orders / imported),
            "copy_seconds": round(floor, 2),
            "copy_orders_per_second": round(orders / floor),
            "ratio_to_copy": round(floor / imported, 2),
        }
    finally:
        for url in (legacy_url, target_url, floor_url):
            await admin.drop_database(url)


def report(r: dict[str, Any]) -> Table:
    table = Table("measure", "figure", "target", title="Legacy import", title_justify="left")
    per_s = r["orders_per_second"]
    ratio = r["ratio_to_copy"]
    table.add_row(
        "legacy orders read, planned and imported or excluded",
        f"{r['legacy_orders']:,} ({r['orders_imported']:,} imported, "
        f"{r['orders_excluded']:,} excluded; {r['payments_posted']:,} payments)",
        "",
    )
    table.add_row(
        "rows written",
        ", ".join(f"{t} {n:,}" for t, n in r["rows_written"].items()),
        "",
    )
    table.add_row(
        "import, orders/s (whole command)",
        f"{per_s:,} in {r['import_seconds']} s",
        f">= 5,000: {'met' if per_s >= 5000 else 'missed'}",
    )
    table.add_row(
        "floor: the same rows with COPY, orders/s",
        f"{r['copy_orders_per_second']:,} in {r['copy_seconds']} s",
        "",
    )
    table.add_row(
        "import / COPY floor", f"{ratio}", f">= 0.3: {'met' if ratio >= 0.3 else 'missed'}"
    )
    return table


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench.legacy_import", description=__doc__)
    p.add_argument("--orders", type=int, default=100_000, help="legacy orders (100,000)")
    args = p.parse_args(argv)
    server = os.environ.get("DATABASE_URL") or embedded.start(ROOT / ".pressroom" / "bench-pgdata")
    results = asyncio.run(run(args.orders, server))
    Console().print(report(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
