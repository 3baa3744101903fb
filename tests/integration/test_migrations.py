"""Migrations are the schema's only source: they build an empty database, re-running
them changes nothing, the tables the code expects match them, and no admin is demoted."""

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from db import migrate, roles
from db.engine import create_engine
from db.tables import metadata
from tests.support.database import scratch_database

ROOT = Path(__file__).resolve().parents[2]

SCHEMA_SNAPSHOT = """
SELECT 'column' AS kind, table_name || '.' || column_name || ' ' || data_type || ' '
       || is_nullable || ' ' || coalesce(column_default, '') AS what
FROM information_schema.columns WHERE table_schema = 'public'
UNION ALL
SELECT 'constraint', conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
FROM pg_constraint WHERE connamespace = 'public'::regnamespace
UNION ALL
SELECT 'index', indexdef FROM pg_indexes WHERE schemaname = 'public'
UNION ALL
SELECT 'view', viewname || ' ' || definition FROM pg_views WHERE schemaname = 'public'
UNION ALL
SELECT 'sequence', sequencename || ' ' || data_type::text || ' ' || start_value || ' '
       || increment_by || ' ' || cycle
FROM pg_sequences WHERE schemaname = 'public'
UNION ALL
SELECT 'function', pg_get_functiondef(oid) FROM pg_proc WHERE pronamespace = 'public'::regnamespace
UNION ALL
SELECT 'trigger', pg_get_triggerdef(t.oid)
FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal
UNION ALL
SELECT 'type', typname || ' ' || typtype::text FROM pg_type t
WHERE typnamespace = 'public'::regnamespace AND typrelid = 0
  AND NOT EXISTS (SELECT FROM pg_type a WHERE a.typarray = t.oid)
UNION ALL
SELECT 'revision', version_num FROM alembic_version
ORDER BY 1, 2
"""

# Every object of ours that can live in the public schema, by kind and name. Relations
# cover tables, views, sequences and indexes; a table's own row type is left out
# (it goes with the table), as are array types (they go with their element type).
OBJECTS = """
SELECT CASE WHEN relkind IN ('r', 'p') THEN 'table' WHEN relkind IN ('v', 'm') THEN 'view'
            WHEN relkind = 'S' THEN 'sequence' WHEN relkind IN ('i', 'I') THEN 'index'
            ELSE 'relation ' || relkind::text END AS kind, relname::text AS name
FROM pg_class WHERE relnamespace = 'public'::regnamespace
UNION ALL
SELECT 'function', oid::regprocedure::text FROM pg_proc
WHERE pronamespace = 'public'::regnamespace
UNION ALL
SELECT 'type', typname::text FROM pg_type t
WHERE typnamespace = 'public'::regnamespace AND typrelid = 0
  AND NOT EXISTS (SELECT FROM pg_type a WHERE a.typarray = t.oid)
UNION ALL
SELECT 'trigger', c.relname || '.' || t.tgname
FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal
"""


@pytest.fixture
async def empty_db(server_url: str) -> AsyncIterator[str]:
    async with scratch_database(server_url, "pressroom_mig") as url:
        yield url


async def snapshot(engine: AsyncEngine) -> list[tuple[str, str]]:
    async with engine.connect() as conn:
        return [(r.kind, r.what) for r in await conn.execute(text(SCHEMA_SNAPSHOT))]


async def objects(engine: AsyncEngine) -> set[tuple[str, str]]:
    async with engine.connect() as conn:
        return {(r.kind, r.name) for r in await conn.execute(text(OBJECTS))}


async def test_upgrade_builds_an_empty_database_to_head(empty_db: str) -> None:
    await migrate.upgrade(empty_db)
    engine = create_engine(empty_db)
    try:
        async with engine.connect() as conn:
            assert await migrate.current_revision(conn) == migrate.head_revision()
            tables = set(
                (
                    await conn.execute(
                        text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
                    )
                ).scalars()
            )
        assert set(metadata.tables) | {"alembic_version"} == tables
    finally:
        await engine.dispose()


async def test_booting_twice_changes_nothing(empty_db: str) -> None:
    await migrate.upgrade(empty_db)
    engine = create_engine(empty_db)
    try:
        first = await snapshot(engine)
        await migrate.upgrade(empty_db)
        assert await snapshot(engine) == first
    finally:
        await engine.dispose()


# Migrates the database of argv[1] in a new process, and prints which of Alembic, Mako and
# Pygments (Mako's) it loaded.
UPGRADE_IN_A_NEW_PROCESS = """
import asyncio, sys
from db import migrate
asyncio.run(migrate.upgrade(sys.argv[1]))
print(sorted({m.split(".")[0] for m in sys.modules} & {"alembic", "mako", "pygments"}))
"""


async def test_a_start_at_the_head_loads_no_alembic(empty_db: str) -> None:
    """A database behind is migrated through Alembic; one at the head only settled (the
    server's rights, the retention), without loading Alembic, Mako or Pygments."""
    await migrate.upgrade(empty_db, "0020")
    engine = create_engine(empty_db)
    try:
        for expected in ("['alembic', 'mako', 'pygments']", "[]"):
            ran = await asyncio.to_thread(
                subprocess.run,
                [sys.executable, "-c", UPGRADE_IN_A_NEW_PROCESS, empty_db],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert ran.returncode == 0, ran.stderr
            assert ran.stdout.strip() == expected
            async with engine.connect() as conn:
                assert await migrate.current_revision(conn) == migrate.head_revision()
    finally:
        await engine.dispose()


async def test_tables_in_code_match_the_migrations(engine: AsyncEngine) -> None:
    def diff(sync_conn):  # type: ignore[no-untyped-def]
        context = MigrationContext.configure(sync_conn, opts={"compare_type": True})
        return compare_metadata(context, metadata)

    async with engine.connect() as conn:
        differences = await conn.run_sync(diff)
    assert differences == []


async def test_downgrade_and_upgrade_again(empty_db: str) -> None:
    await migrate.upgrade(empty_db)
    engine = create_engine(empty_db)
    try:
        fresh = await snapshot(engine)
        # Alembic's async env runs its own event loop, so it gets a thread of its own.
        await asyncio.to_thread(command.downgrade, migrate.alembic_config(empty_db), "base")
        # An upgrade written with CREATE OR REPLACE or IF NOT EXISTS would run again over
        # whatever a downgrade forgot, so what is left is checked here, not by the upgrade.
        assert await objects(engine) == {
            ("table", "alembic_version"),
            ("index", "alembic_version_pkc"),
        }
        await migrate.upgrade(empty_db)
        assert await snapshot(engine) == fresh
    finally:
        await engine.dispose()


def run_cli(url: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": url}
    return subprocess.run(
        [sys.executable, "-m", "pressroom.cli", *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


async def test_create_user_and_reboots_never_demote_an_admin(empty_db: str) -> None:
    made = run_cli(
        empty_db,
        "create-user",
        "--email",
        "Boss@Shop.test",
        "--password-stdin",
        "--admin",
        stdin="secret-pw1\n",
    )
    assert made.returncode == 0, made.stderr
    assert "admin" in made.stdout
    # Re-running without --admin (and with another case of the email) updates, never demotes.
    again = run_cli(
        empty_db, "create-user", "--email", "boss@shop.test", "--password-stdin", stdin="secret-pw2"
    )
    assert again.returncode == 0, again.stderr
    assert run_cli(empty_db, "migrate").returncode == 0
    engine = create_engine(empty_db)
    try:
        async with engine.connect() as conn:
            rows = (await conn.execute(text("SELECT email, is_admin FROM users"))).all()
    finally:
        await engine.dispose()
    # One account, its email stored in the one normalised form.
    assert [(r.email, r.is_admin) for r in rows] == [("boss@shop.test", True)]


def test_create_user_rejects_unknown_departments(empty_db: str) -> None:
    result = run_cli(
        empty_db,
        "create-user",
        "--email",
        "x@shop.test",
        "--password-stdin",
        "--department",
        "nope",
        stdin="secret-pw1\n",
    )
    assert result.returncode == 2
    assert "Unknown department code(s): nope" in result.stderr


BOOTS = 3

WAITING_FOR_THE_MIGRATION_LOCK = """
SELECT count(*) FROM pg_locks
WHERE locktype = 'advisory' AND NOT granted
  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND classid::bigint = CAST(:key AS bigint) >> 32
  AND objid::bigint = CAST(:key AS bigint) & 4294967295 AND objsubid = 1
"""

# Which transactions wrote the schema and its revision row.
WRITERS = """
SELECT count(DISTINCT xmin::text) FROM (
    SELECT xmin FROM pg_class WHERE relnamespace = 'public'::regnamespace
    UNION ALL SELECT xmin FROM pg_proc WHERE pronamespace = 'public'::regnamespace
    UNION ALL SELECT xmin FROM alembic_version
) AS written
"""


async def test_concurrent_boots_migrate_once(empty_db: str) -> None:
    """Several server processes booting at once: one migrates, the others wait, none fails."""
    env = {**os.environ, "DATABASE_URL": empty_db}
    lock = {"key": roles.MIGRATION_LOCK}
    engine = create_engine(empty_db, pool_size=2, max_overflow=0)
    procs: list[asyncio.subprocess.Process] = []
    try:
        async with engine.connect() as holder:
            # Holding the lock while they start makes the boots meet whatever their start-up
            # times. Committed at once: the lock outlives the transaction, and the engine
            # ends sessions left idle in one.
            await holder.execute(text("SELECT pg_advisory_lock(:key)"), lock)
            await holder.commit()
            for _ in range(BOOTS):
                procs.append(
                    await asyncio.create_subprocess_exec(
                        sys.executable,
                        "-m",
                        "pressroom.cli",
                        "migrate",
                        env=env,
                        cwd=ROOT,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                    )
                )
            exits = [asyncio.ensure_future(p.wait()) for p in procs]
            # Python start-up under load takes seconds; a minute is ample for three.
            deadline = time.monotonic() + 60
            while True:
                async with engine.connect() as conn:
                    waiting = await conn.scalar(text(WAITING_FOR_THE_MIGRATION_LOCK), lock)
                if waiting == BOOTS:
                    break
                assert time.monotonic() < deadline, f"{waiting} of {BOOTS} boots wait on the lock"
                # Polls pg_locks, and fails at once should a boot get past the held lock.
                ended, _ = await asyncio.wait(exits, timeout=0.05)
                assert not ended, "a boot ended while the migration lock was held"
            await holder.execute(text("SELECT pg_advisory_unlock(:key)"), lock)
            await holder.commit()
        results = [await asyncio.wait_for(p.communicate(), 120) for p in procs]
        assert [p.returncode for p in procs] == [0] * BOOTS, results
        async with engine.connect() as conn:
            versions = list(await conn.scalars(text("SELECT version_num FROM alembic_version")))
            writers = await conn.scalar(text(WRITERS))
        assert versions == [migrate.head_revision()]
        # env.py runs every revision in the transaction that holds the lock, so a single
        # writer means one boot migrated and the ones that waited found head and wrote nothing.
        assert writers == 1
    finally:
        for p in procs:
            if p.returncode is None:
                p.kill()
                await p.wait()
        await engine.dispose()


def test_import_from_an_unreachable_database_is_a_clear_error(empty_db: str) -> None:
    result = run_cli(
        empty_db, "import-legacy", "--source-url", "postgresql://nobody@127.0.0.1:1/legacy"
    )
    assert result.returncode == 2
    assert "cannot reach the legacy database" in result.stderr
    assert "Traceback" not in result.stderr


def test_import_into_an_unreachable_database_names_that_database(empty_db: str) -> None:
    # The legacy database is the test's own (reachable); ours is not.
    result = run_cli(
        "postgresql://nobody@127.0.0.1:1/pressroom", "import-legacy", "--source-url", empty_db
    )
    assert result.returncode == 2
    assert "error: cannot reach the database:" in result.stderr
    assert "legacy" not in result.stderr
    assert "Traceback" not in result.stderr


async def _users_at_0004(url: str, emails: list[str]) -> AsyncEngine:
    await migrate.upgrade(url, "0004")
    engine = create_engine(url)
    async with engine.begin() as conn:
        for n, email in enumerate(emails):
            await conn.execute(
                text("INSERT INTO users (email, name) VALUES (:email, :name)"),
                {"email": email, "name": f"User {n}"},
            )
    return engine


async def test_emails_stored_before_are_normalised(empty_db: str) -> None:
    engine = await _users_at_0004(empty_db, ["Ada@Shop.TEST", "\uff22en@shop.test", "cy@shop.test"])
    try:
        await migrate.upgrade(empty_db)
        async with engine.connect() as conn:
            stored = (await conn.execute(text("SELECT email FROM users ORDER BY id"))).scalars()
            assert list(stored) == ["ada@shop.test", "ben@shop.test", "cy@shop.test"]
    finally:
        await engine.dispose()


async def test_two_spellings_of_one_address_stop_the_migration_naming_them(empty_db: str) -> None:
    engine = await _users_at_0004(empty_db, ["ben@shop.test", "\uff22en@shop.test"])
    try:
        with pytest.raises(RuntimeError, match=r"ben@shop.test: users \[\d+, \d+\]"):
            await migrate.upgrade(empty_db)
        async with engine.connect() as conn:
            assert await migrate.current_revision(conn) == "0004"
            stored = (await conn.execute(text("SELECT email FROM users ORDER BY id"))).scalars()
            assert list(stored) == ["ben@shop.test", "\uff22en@shop.test"]
    finally:
        await engine.dispose()


async def test_pickers_set_by_overrides_are_cleared_from_history(empty_db: str) -> None:
    """At 0005 an override of a PENDING task made the admin its picker; 0006 clears that
    one, and leaves the worker who finished a task, and the worker an override found."""
    await migrate.upgrade(empty_db, "0005")
    engine = create_engine(empty_db)
    seed = """
    WITH d AS (INSERT INTO departments (code, name, kind, gates_delivery)
               VALUES ('print', 'Print', 'PRODUCTION', true) RETURNING id),
         u AS (INSERT INTO users (email, name, is_admin)
               VALUES ('ada@shop.test', 'Ada', true), ('pat@shop.test', 'Pat', false)
               RETURNING id, name),
         c AS (INSERT INTO customers (name) VALUES ('ACME') RETURNING id),
         w AS (INSERT INTO work_orders (order_number, customer_id)
               SELECT 'WO-' || n, c.id FROM c, generate_series(1, 3) n RETURNING id, order_number)
    INSERT INTO department_tasks (work_order_id, department_id, status, picked_up_by,
                                  available_at, started_at, completed_at)
    SELECT w.id, d.id, 'COMPLETED', u.id, now(), now(), now()
    FROM w, d, u
    WHERE (w.order_number, u.name) IN (('WO-1', 'Ada'), ('WO-2', 'Pat'), ('WO-3', 'Pat'))
    """
    history = """
    INSERT INTO task_transitions (task_id, from_status, to_status, action, actor_id)
    SELECT t.id, x.from_status, 'COMPLETED', x.action, (SELECT id FROM users WHERE name = 'Ada')
    FROM department_tasks t JOIN work_orders w ON w.id = t.work_order_id
    JOIN (VALUES ('WO-1', 'PENDING', 'OVERRIDE_COMPLETE'), ('WO-3', 'STARTED', 'OVERRIDE_COMPLETE'))
         AS x(number, from_status, action) ON x.number = w.order_number
    """
    try:
        async with engine.begin() as conn:
            await conn.execute(text(seed))
            await conn.execute(text(history))
        await migrate.upgrade(empty_db)
        async with engine.connect() as conn:
            rows = await conn.execute(
                text(
                    "SELECT w.order_number, u.name FROM department_tasks t "
                    "JOIN work_orders w ON w.id = t.work_order_id "
                    "LEFT JOIN users u ON u.id = t.picked_up_by ORDER BY w.order_number"
                )
            )
            assert rows.all() == [("WO-1", None), ("WO-2", "Pat"), ("WO-3", "Pat")]
    finally:
        await engine.dispose()


async def test_system_moves_lose_their_actor_and_details_changes_their_parts(
    empty_db: str,
) -> None:
    """At 0020 a gate's opening named whose action caused it, and a details change kept
    only its two texts; 0021 credits the opening to no one and reads the texts' parts
    (the whole texts as one part where a value holds "; " itself)."""
    await migrate.upgrade(empty_db, "0020")
    engine = create_engine(empty_db)
    seed = """
    WITH u AS (INSERT INTO users (email, name) VALUES ('sam@shop.test', 'Sam') RETURNING id),
         c AS (INSERT INTO customers (name) VALUES ('ACME') RETURNING id),
         w AS (INSERT INTO work_orders (order_number, customer_id)
               SELECT 'WO-1', c.id FROM c RETURNING id)
    INSERT INTO work_order_transitions (work_order_id, action, from_state, to_state, actor_id)
    SELECT w.id, x.action, x.from_state, x.to_state, u.id
    FROM w, u, (VALUES
        (1, 'OPEN_GATE', 'CLOSED', 'OPEN'),
        (2, 'DETAILS_CHANGED', 'paperType: (none); quantity: 500; transport: no',
            'paperType: matt; quantity: 1000; transport: yes'),
        (3, 'DETAILS_CHANGED', 'notes: a; b', 'notes: c'),
        (4, 'CANCEL', 'ACTIVE', 'CANCELLED')) AS x(n, action, from_state, to_state)
    ORDER BY x.n
    """
    try:
        async with engine.begin() as conn:
            await conn.execute(text(seed))
        await migrate.upgrade(empty_db)
        async with engine.connect() as conn:
            rows = await conn.execute(
                text(
                    "SELECT h.action, u.name, h.changes FROM work_order_transitions h "
                    "LEFT JOIN users u ON u.id = h.actor_id ORDER BY h.id"
                )
            )
            assert rows.all() == [
                ("OPEN_GATE", None, None),
                ("DETAILS_CHANGED", "Sam", [
                    {"key": "paperType", "detail": True, "before": None, "after": "matt"},
                    {"key": "quantity", "detail": True, "before": "500", "after": "1000"},
                    {"key": "transport", "detail": False, "before": "no", "after": "yes"},
                ]),
                ("DETAILS_CHANGED", "Sam", [
                    {"key": "details", "detail": False, "before": "notes: a; b",
                     "after": "notes: c"},
                ]),
                ("CANCEL", "Sam", None),
            ]  # fmt: skip
    finally:
        await engine.dispose()
