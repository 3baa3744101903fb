"""`pressroom serve` through Debian's PgBouncer in transaction mode (1.18: no prepared
statement survives its transaction there): it boots, many clients' moves and reads go
through at once, each acknowledged move is written once, and a subscriber gets every
event once (the listener connects to PostgreSQL itself), and an export streams through
it; a server pointed at PgBouncer without being told says so and exits."""

import asyncio
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import httpx
from sqlalchemy import text

from db import pgbouncer
from db.engine import SESSION_SETTINGS
from tests.support.client import Client, gid
from tests.support.database import needs_pgbouncer
from tests.support.servers import ROOT, STARTUP_TIMEOUT, free_port, serving
from tests.support.shop import Shop
from tests.support.subscriptions import START, print_tasks, subscriber, take

pytestmark = needs_pgbouncer

MOVES = 60


async def test_the_server_works_through_pgbouncer_in_transaction_mode(
    lone_shop: tuple[str, Shop], tmp_path: Path
) -> None:
    url, shop = lone_shop
    tasks = await print_tasks(shop, MOVES)
    with (
        pgbouncer.running(url, tmp_path, pool_size=10) as through,
        serving(
            None,
            database_url=through,
            settings={
                "PRESSROOM_PGBOUNCER": "true",
                "PRESSROOM_LISTEN_DATABASE_URL": url,
                "PRESSROOM_MIGRATION_DATABASE_URL": url,
            },
        ) as (base, _),
    ):
        # The time limits the server sets itself elsewhere hold here too (connect_query).
        conn = await asyncpg.connect(through, statement_cache_size=0)
        try:
            limits = [await conn.fetchval(f"SHOW {name}") for name in SESSION_SETTINGS]
        finally:
            await conn.close()
        assert limits == ["15s", "30s"]
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            ready = (await http.get("/readyz")).json()
            assert ready == {"ok": True, "database": True, "migrations": True, "listener": True}
            api = Client(http, f"{base}/graphql")
            cursor = (await api.as_(shop.tokens["pat"])(
                '{ queue(department: "print") { eventCursor } }'
            ))["queue"]["eventCursor"]  # fmt: skip
            variables = {"department": "print", "after": cursor}
            async with subscriber(
                f"{base}/graphql", shop.tokens["pat"], "graphql-transport-ws", variables
            ) as got:
                # Every move at once, each with a read beside it: many transactions share
                # PgBouncer's ten server connections.
                moves = [
                    api.as_(shop.tokens["pat"])(START, {"i": {"taskId": gid("DepartmentTask", t)}})
                    for t in tasks
                ]
                reads = [
                    api.as_(shop.tokens["pia"])('{ queue(department: "print") { eventCursor } }')
                    for _ in tasks
                ]
                answers = await asyncio.gather(*moves, *reads)
                assert [a["startTask"]["changed"] for a in answers[:MOVES]] == [True] * MOVES
                events = await take(got, MOVES)
            assert sorted(e["queueEvents"]["task"]["id"] for e in events) == sorted(
                gid("DepartmentTask", t) for t in tasks
            )
            # An export streams from one snapshot, through PgBouncer too.
            now = datetime.now(UTC) + timedelta(minutes=1)
            exported = await http.get(
                "/export/transitions.csv",
                params={
                    "from": (now - timedelta(days=1)).isoformat(),
                    "to": now.isoformat(),
                    "headers": "keys",
                },
                headers={"authorization": f"Bearer {shop.tokens['abe']}"},
            )
            assert exported.status_code == 200, exported.text
            rows = exported.text.splitlines()[1:]
            assert len(rows) == MOVES and all(",START," in row for row in rows), rows[:3]
    async with shop.engine.connect() as conn:
        started = await conn.scalar(
            text("SELECT count(*) FROM task_transitions WHERE action = 'START'")
        )
    assert started == MOVES


async def test_a_server_not_told_of_pgbouncer_says_so_and_exits(
    lone_shop: tuple[str, Shop], tmp_path: Path
) -> None:
    url, _ = lone_shop
    with pgbouncer.running(url, tmp_path) as through:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PRESSROOM_")}

        def serve() -> "subprocess.CompletedProcess[str]":
            return subprocess.run(
                [sys.executable, "-m", "pressroom.cli", "serve", "--port", str(free_port())],
                cwd=ROOT,
                env=env | {"DATABASE_URL": through, "PRESSROOM_MIGRATION_DATABASE_URL": url},
                capture_output=True,
                text=True,
                timeout=STARTUP_TIMEOUT,
            )

        done = await asyncio.to_thread(serve)
    assert done.returncode == 2, done.stderr
    assert "unsupported startup parameter" in done.stderr
    assert "PRESSROOM_PGBOUNCER=true" in done.stderr
    assert "Traceback" not in done.stderr
