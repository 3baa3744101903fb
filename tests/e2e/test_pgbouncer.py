"""`pressroom serve` through Debian's PgBouncer in transaction mode (1.18: no prepared
statement survives its transaction there): it boots, many clients' moves and reads go
through at once, each acknowledged move is written once, and a subscriber gets every
event live (the listener connects to PostgreSQL itself)."""

import asyncio
import os
import pwd
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import asyncpg
import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from db.engine import SESSION_SETTINGS
from tests.support import (
    START,
    Client,
    Shop,
    free_port,
    gid,
    print_tasks,
    serving,
    subscriber,
    take,
)

PGBOUNCER = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
MOVES = 60


@contextmanager
def pgbouncer(url: str, tmp: Path) -> Iterator[str]:
    """A PgBouncer in transaction mode in front of `url`'s server (its socket directory):
    the URL to reach the same database as the same role through it."""
    if not os.path.exists(PGBOUNCER):
        pytest.skip("pgbouncer is not installed: apt-get install pgbouncer (scripts/test does)")
    direct = make_url(url)
    socket_dir = str(direct.query["host"])
    port = free_port()
    settings = "; ".join(f"SET {name} = {value}" for name, value in SESSION_SETTINGS.items())
    (tmp / "userlist.txt").write_text(f'"{direct.username}" "{direct.password}"\n')
    (tmp / "pgbouncer.ini").write_text(
        f"""[databases]
* = host={socket_dir} connect_query='{settings}'

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = scram-sha-256
auth_file = {tmp / "userlist.txt"}
pool_mode = transaction
default_pool_size = 10
max_client_conn = 200
"""
    )
    # As root, PgBouncer must run as another user: the embedded server's, whose socket
    # directory is its own.
    user = ["-u", socket_owner(socket_dir)] if os.getuid() == 0 else []
    tmp.chmod(0o755)
    for name in ("userlist.txt", "pgbouncer.ini"):
        (tmp / name).chmod(0o644)
    proc = subprocess.Popen([PGBOUNCER, *user, str(tmp / "pgbouncer.ini")])
    try:
        wait_listening(port, proc)
        yield direct.set(host="127.0.0.1", port=port, query={}).render_as_string(
            hide_password=False
        )
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def socket_owner(path: str) -> str:
    return pwd.getpwuid(os.stat(path).st_uid).pw_name


def wait_listening(port: int, proc: subprocess.Popen[bytes]) -> None:
    """Until PgBouncer accepts connections on `port` (it says so only in its log)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        assert proc.poll() is None, "pgbouncer exited"
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError("pgbouncer did not listen")


async def test_the_server_works_through_pgbouncer_in_transaction_mode(
    lone_shop: tuple[str, Shop], tmp_path: Path
) -> None:
    url, shop = lone_shop
    tasks = await print_tasks(shop, MOVES)
    with (
        pgbouncer(url, tmp_path) as through,
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
    async with shop.engine.connect() as conn:
        started = await conn.scalar(
            text("SELECT count(*) FROM task_transitions WHERE action = 'START'")
        )
    assert started == MOVES
