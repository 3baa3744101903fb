"""The read cache (src/graph/read_cache.py): the dashboard page through Pressroom beside
PostGraphile 4, while the shop's data changes.

    .venv/bin/python -m bench.read_cache              # about two minutes, 2-core machine
    .venv/bin/python -m bench.read_cache --seconds 3  # shorter, noisier

The page, the data and PostGraphile are the dashboard bench's (bench/dashboard.py). Each of
`--clients` keep-alive clients loops on one of three mixes, Pressroom and PostGraphile
taking turns in short windows:
- read-mostly: each step a page, or with `--write-share` (5 %) a write instead;
- cold: each step a write, then a page (for Pressroom, the page never found kept, but
  shared by clients asking at once: answers are kept per viewer's rights);
- reads only: pages, nothing written (for Pressroom, the page kept after its first read).
The clients ask as eight admins, then as eight members of Sales. A write renames one of
the page's customers (db.customers.update_customer, from the bench's own process, as
another process of the shop would): both servers then show the new name, PostGraphile
reading it like any page, Pressroom because the commit turns its kept answer away.

Targets (the speed issue): pages/s at least 2x PostGraphile's in the read-mostly mix at 8
clients, at least 1.0x cold. Pressroom is served as shipped (the read cache on); its
answers are checked by their bytes during the run and parsed in full after.
"""

import argparse
import asyncio
import functools
import random
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/read_cache.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncpg
from rich.table import Table
from sqlalchemy.ext.asyncio import AsyncEngine

from bench import fixture
from bench.dashboard_measure import postgraphile_peer
from bench.dashboard_page import (
    DASHBOARD_PAGE,
    PAGE_SIZE,
    PRESSROOM_FIELDS,
    PageClients,
    PageRun,
    Target,
    target,
)
from bench.dashboard_seed import admin_tokens, sales_tokens, seed_orders
from bench.load import run_loops
from bench.output import fmt, log, verdict, written
from bench.postgraphile_server import add_cache_argument
from bench.servers import ServerProcess
from bench.shop import seed_shop
from bench.stats import percentile, ratio
from db.customers import update_customer
from db.engine import create_engine, unit_of_work
from domain.enums import DepartmentKind

RESULTS = Path(__file__).with_name("read-cache-results.json")
MIXES = ("read-mostly", "cold", "reads only")
# Who the clients ask as: an admin each, or a member of Sales each (people of the same
# rights share answers: `Viewer.rights`).
VIEWERS = ("admins", "Sales members")
TARGETS = {"read-mostly": 2.0, "cold": 1.0}


class MixClients(PageClients):
    """Page clients that also write (through `writer`'s pool, as the shop's code writes),
    each asking as the viewer whose headers are its own (`viewers`)."""

    def __init__(self, target: Target, writer: AsyncEngine, viewers: list[dict[str, str]]) -> None:
        super().__init__(target, len(viewers))
        self.writer = writer
        self.viewers = viewers
        self.writes = 0

    async def write(self, customers: list[int], rng: random.Random) -> None:
        async with unit_of_work(self.writer) as conn:
            name = f"Customer {rng.randrange(1_000_000)}"
            await update_customer(conn, rng.choice(customers), name, {})
        self.writes += 1

    async def mixed(
        self, seconds: float, mix: str, share: float, customers: list[int], seed: int
    ) -> PageRun:
        run = PageRun()
        rng = random.Random(seed)

        async def step(index: int, deadline: float) -> bool:
            if mix == "cold" or (mix == "read-mostly" and rng.random() < share):
                await self.write(customers, rng)
                if mix != "cold":
                    return True
            await self.ask(run, index, self.viewers[index])
            return True

        await run_loops(self.clients, seconds, run, step, slack=120)
        return self.checked(run)


async def measure(
    url: str,
    targets: list[Target],
    customers: list[int],
    tokens: dict[str, list[str]],
    args: argparse.Namespace,
) -> dict[str, Any]:
    """Pages/s of each target in each mix, in alternating windows after a warm-up, the
    clients asking as VIEWERS say."""
    results: dict[str, Any] = {}
    writer = create_engine(url, pool_size=args.clients, max_overflow=0)
    try:
        for viewers in VIEWERS:
            by_mix: dict[str, Any] = {}
            for mix in MIXES:
                by_mix[mix] = await mix_figures(
                    targets, customers, tokens, writer, viewers, mix, args
                )
            results[viewers] = by_mix
    finally:
        await writer.dispose()
    return results


async def mix_figures(
    targets: list[Target],
    customers: list[int],
    tokens: dict[str, list[str]],
    writer: AsyncEngine,
    viewers: str,
    mix: str,
    args: argparse.Namespace,
) -> dict[str, Any]:
    headers = [{"authorization": f"Bearer {token}"} for token in tokens[viewers]]
    pools = {t.name: MixClients(t, writer, [{**t.headers, **h} for h in headers]) for t in targets}
    totals = {t.name: PageRun() for t in targets}
    writes = dict.fromkeys(pools, 0)
    try:
        for t in targets:
            await pools[t.name].mixed(1.0, mix, args.write_share, customers, 0)
        for r in range(args.rounds):
            for t in targets if r % 2 == 0 else targets[::-1]:
                log(f"{t.name}: {mix}, {args.clients} clients, {viewers}, round {r + 1}")
                pool = pools[t.name]
                before = pool.writes
                window = args.seconds / args.rounds
                run = await pool.mixed(window, mix, args.write_share, customers, r + 1)
                totals[t.name].add(run)
                writes[t.name] += pool.writes - before
    finally:
        await asyncio.gather(*(p.close() for p in pools.values()))
    figures: dict[str, Any] = {}
    for t in targets:
        total = totals[t.name]
        p50, p99 = percentile(total.latencies, 50), percentile(total.latencies, 99)
        figures[t.name] = {
            "pages": total.pages,
            "writes": writes[t.name],
            "pages_per_second": round(total.rate, 1),
            "latency_p50_ms": None if p50 is None else round(p50 * 1000, 2),
            "latency_p99_ms": None if p99 is None else round(p99 * 1000, 2),
            "errors": total.errors,
            "first_error": total.first_error,
        }
    peer = figures.get("postgraphile", {}).get("pages_per_second")
    figures["ratio"] = ratio(figures["pressroom"]["pages_per_second"], peer)
    return figures


async def run(args: argparse.Namespace, url: str, embedded_server: bool) -> dict[str, Any]:
    await fixture.drop_stale_databases(url)
    log("creating the bench database (migrations)")
    await fixture.create_database(url)
    shop = await seed_shop(url, departments=10, workers=32, displays=0)
    log(f"seeding {args.orders} work orders")
    seeded = await seed_orders(url, shop, args.orders)
    tokens = {
        "admins": await admin_tokens(url, shop, args.clients),
        "Sales members": await sales_tokens(url, shop, args.clients),
    }
    dsn = fixture.dsn(url)
    conn = await asyncpg.connect(dsn)
    try:
        delivery = await conn.fetchval(
            "SELECT id FROM departments WHERE kind = $1", DepartmentKind.DELIVERY.value
        )
        customers = [row["id"] for row in await conn.fetch("SELECT id FROM customers")]
    finally:
        await conn.close()
    log("starting `pressroom serve` (the read cache on, as shipped)")
    server = ServerProcess(url)
    peer_started = postgraphile_peer(dsn, delivery, cache=args.postgraphile_cache)
    async with server.running(), peer_started as (peer, peer_info):
        ours = target(
            "pressroom",
            server.http_url,
            DASHBOARD_PAGE,
            {"first": PAGE_SIZE},
            PRESSROOM_FIELDS,
            server.pid,
        )
        targets = [ours] if peer is None else [ours, peer]
        by_viewers = await measure(url, targets, customers, tokens, args)
        metrics = await server.metrics()
    kept = [line for line in metrics.splitlines() if line.startswith("pressroom_read_cache")]
    return {
        "seeded": seeded,
        "clients": args.clients,
        "seconds": args.seconds,
        "rounds": args.rounds,
        "write_share": args.write_share,
        "postgraphile": peer_info,
        "by_viewers": by_viewers,
        "read_cache_metrics": kept,
    }


def at_least(goal: float, value: float) -> bool:
    return value >= goal


def report(results: dict[str, Any]) -> Table:
    n = results["clients"]
    table = Table(
        title=f"Dashboard page (50 work orders) while the data changes, {n} clients",
        title_justify="left",
    )
    for name in ("mix", "Pressroom pages/s", "PostGraphile pages/s", "ratio", "target", ""):
        table.add_column(name, justify="left" if name == "mix" else "right")
    for viewers, by_mix in results["by_viewers"].items():
        for mix, figures in by_mix.items():
            goal = TARGETS.get(mix)
            table.add_row(
                f"{mix}, {viewers} ({figures['pressroom']['writes']} writes)",
                fmt(figures["pressroom"]["pages_per_second"], digits=1),
                fmt(figures.get("postgraphile", {}).get("pages_per_second"), digits=1),
                fmt(figures["ratio"], digits=2),
                "" if goal is None else f">= {goal:g}",
                ""
                if goal is None
                else verdict(figures["ratio"], functools.partial(at_least, goal)),
                end_section=mix == MIXES[-1],
            )
    if results["postgraphile"]["skipped"]:
        table.add_row(f"PostGraphile skipped: {results['postgraphile']['skipped']}")
    return table


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="bench.read_cache", description=(__doc__ or "").split("\n\n")[0]
    )
    p.add_argument("--seconds", type=float, default=8, help="measured time per server and mix (8)")
    p.add_argument("--rounds", type=int, default=2, help="alternating windows per mix (2)")
    p.add_argument("--clients", type=int, default=8, help="keep-alive clients (8)")
    p.add_argument("--write-share", type=float, default=0.05, help="read-mostly writes (0.05)")
    p.add_argument("--orders", type=int, default=200, help="work orders in the database (200)")
    add_cache_argument(p)
    p.add_argument("--json", type=Path, default=RESULTS, help="where to write the figures")
    args = p.parse_args(argv)
    if args.orders <= PAGE_SIZE:
        p.error(f"--orders: more than a page ({PAGE_SIZE}) is needed")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    results = fixture.run_in_database("python -m bench.read_cache", functools.partial(run, args))
    if results is None:
        return 130
    written(args.json, results, report(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
