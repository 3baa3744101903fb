"""What PgBouncer's transaction mode costs: the floor's work through it beside the same
work straight to PostgreSQL.

    .venv/bin/python -m bench.pgbouncer      # about two minutes

One `pressroom serve` process at a time on one database: straight to PostgreSQL, then
through Debian's PgBouncer in transaction mode (`PRESSROOM_PGBOUNCER=true`, db/pgbouncer.py),
then straight again. In each, `--clients` clients start and finish tasks through GraphQL
(transitions/s), then read the departments (`--reads` times each, one statement a read:
reads/s). Printed: both
rates through PgBouncer beside the mean of the two straight runs. No target: the issue
asks what it costs (each statement parsed again, each lone read in a transaction).

Uses the embedded PostgreSQL (`.pressroom/bench-pgdata`), in a fresh database dropped at
the end; skipped (exit 2) when `pgbouncer` is not installed.
"""

import argparse
import asyncio
import functools
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/pgbouncer.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson
from rich.table import Table

from bench import fixture
from bench.load import GraphQLClients
from bench.output import fmt, log
from bench.servers import ServerProcess
from bench.shop import Shop, TaskPool, seed_shop
from bench.stats import ratio
from db import pgbouncer

# A read of one statement, whatever the tasks made meanwhile.
READ = "{ departments { code name kind } }"


async def reads(clients: GraphQLClients, query: str, each: int) -> float:
    """Each client reads `each` times, one after another: reads/s in all."""
    body = orjson.dumps({"query": query})

    async def one(client: int) -> None:
        token = clients.tokens[client % len(clients.tokens)]
        for _ in range(each):
            status, content = await clients.post(
                client, clients.url, body, {"authorization": f"Bearer {token}"}
            )
            if status != 200 or b'"errors"' in content:
                raise SystemExit(f"a read failed: {status} {content[:300]!r}")

    began = time.perf_counter()
    await asyncio.gather(*(one(client) for client in range(clients.clients)))
    return clients.clients * each / (time.perf_counter() - began)


async def measure(
    args: argparse.Namespace,
    server: ServerProcess,
    shop: Shop,
    pool: TaskPool,
) -> tuple[float, float]:
    """Transitions/s, then reads/s, of one server."""
    async with server.running():
        clients = GraphQLClients(server.http_url, shop.worker_tokens, args.clients)
        try:
            await clients.run(await pool.take(args.clients * 50), args.warmup_seconds)
            work = await pool.take(round(args.seconds * 1500))
            moved = await clients.run(work, args.seconds)
            if moved.exhausted:
                raise SystemExit("the tasks ran out: lower --seconds")
            read = await reads(clients, READ, args.reads)
        finally:
            await clients.close()
    return moved.transitions / moved.elapsed, read


async def run(args: argparse.Namespace, url: str, embedded_server: bool) -> dict[str, Any]:
    await fixture.create_database(url)
    shop = await seed_shop(url, departments=4, workers=8, displays=0)
    pool = TaskPool(url, shop)
    direct = []
    with tempfile.TemporaryDirectory() as workdir, pgbouncer.running(url, Path(workdir)) as through:
        log("straight to PostgreSQL")
        direct.append(await measure(args, ServerProcess(url), shop, pool))
        log("through PgBouncer (transaction mode)")
        env = {
            "PRESSROOM_PGBOUNCER": "true",
            "PRESSROOM_LISTEN_DATABASE_URL": url,
            "PRESSROOM_MIGRATION_DATABASE_URL": url,
        }
        bounced = await measure(args, ServerProcess(through, extra_env=env), shop, pool)
        log("straight to PostgreSQL, again")
        direct.append(await measure(args, ServerProcess(url), shop, pool))
    moves = sum(d[0] for d in direct) / 2
    read = sum(d[1] for d in direct) / 2
    return {
        "moves_direct": [d[0] for d in direct],
        "moves_through": bounced[0],
        "moves_ratio": ratio(bounced[0], moves),
        "reads_direct": [d[1] for d in direct],
        "reads_through": bounced[1],
        "reads_ratio": ratio(bounced[1], read),
    }


def report(results: dict[str, Any]) -> Table:
    r = results
    table = Table(title="Through PgBouncer (transaction mode)", title_justify="left")
    for name in ("measure", "straight (first / again)", "through PgBouncer", "through / straight"):
        table.add_column(name, justify="left" if name == "measure" else "right")
    for label, key in (("transitions/s", "moves"), ("reads/s (one statement each)", "reads")):
        first, again = r[f"{key}_direct"]
        table.add_row(
            label, f"{fmt(first)} / {fmt(again)}", fmt(r[f"{key}_through"]),
            fmt(r[f"{key}_ratio"], "", 2),
        )  # fmt: skip
    return table


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench.pgbouncer", description=__doc__)
    p.add_argument("--clients", type=int, default=8, help="GraphQL clients (8)")
    p.add_argument("--seconds", type=float, default=10, help="each load of moves (10)")
    p.add_argument("--warmup-seconds", type=float, default=2, help="load before measuring (2)")
    p.add_argument("--reads", type=int, default=500, help="reads each client makes (500)")
    args = p.parse_args(argv)
    if not pgbouncer.installed():
        print("pgbouncer is not installed: apt-get install pgbouncer", file=sys.stderr)
        return 2
    return fixture.run_and_report("python -m bench.pgbouncer", functools.partial(run, args), report)


if __name__ == "__main__":
    sys.exit(main())
