"""Migrations are the schema's only source: they build an empty database, re-running
them changes nothing, the tables the code expects match them, and no admin is demoted."""

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from db import migrate
from db.engine import create_engine
from db.tables import metadata
from tests.support import scratch_database

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
SELECT 'revision', version_num FROM alembic_version
ORDER BY 1, 2
"""


@pytest.fixture
async def empty_db(server_url: str) -> AsyncIterator[str]:
    async with scratch_database(server_url, "pressroom_mig") as url:
        yield url


async def snapshot(engine: AsyncEngine) -> list[tuple[str, str]]:
    async with engine.connect() as conn:
        return [(r.kind, r.what) for r in await conn.execute(text(SCHEMA_SNAPSHOT))]


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


async def test_tables_in_code_match_the_migrations(engine: AsyncEngine) -> None:
    def diff(sync_conn):  # type: ignore[no-untyped-def]
        context = MigrationContext.configure(sync_conn, opts={"compare_type": True})
        return compare_metadata(context, metadata)

    async with engine.connect() as conn:
        differences = await conn.run_sync(diff)
    assert differences == []


def test_downgrade_and_upgrade_again(empty_db: str) -> None:
    migrate.upgrade_sync(empty_db)
    from alembic import command

    command.downgrade(migrate.alembic_config(empty_db), "base")
    migrate.upgrade_sync(empty_db)


def run_cli(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": url}
    return subprocess.run(
        [sys.executable, "-m", "pressroom.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


async def test_create_user_and_reboots_never_demote_an_admin(empty_db: str) -> None:
    made = run_cli(
        empty_db, "create-user", "--email", "Boss@Shop.test", "--password", "secret-pw1", "--admin"
    )
    assert made.returncode == 0, made.stderr
    assert "admin" in made.stdout
    # Re-running without --admin (and with another case of the email) updates, never demotes.
    again = run_cli(
        empty_db, "create-user", "--email", "boss@shop.test", "--password", "secret-pw2"
    )
    assert again.returncode == 0, again.stderr
    assert run_cli(empty_db, "migrate").returncode == 0
    engine = create_engine(empty_db)
    try:
        async with engine.connect() as conn:
            rows = (await conn.execute(text("SELECT email, is_admin FROM users"))).all()
    finally:
        await engine.dispose()
    assert [(r.email, r.is_admin) for r in rows] == [("Boss@Shop.test", True)]


def test_create_user_rejects_unknown_departments(empty_db: str) -> None:
    result = run_cli(
        empty_db,
        "create-user",
        "--email",
        "x@shop.test",
        "--password",
        "secret-pw1",
        "--department",
        "nope",
    )
    assert result.returncode == 2
    assert "Unknown department code(s): nope" in result.stderr


def test_concurrent_boots_migrate_once(empty_db: str) -> None:
    """Several server processes booting at once: one migrates, the others wait, none fails."""
    env = {**os.environ, "DATABASE_URL": empty_db}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "pressroom.cli", "migrate"],
            env=env,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], results


def test_import_from_an_unreachable_database_is_a_clear_error(empty_db: str) -> None:
    result = run_cli(
        empty_db, "import-legacy", "--source-url", "postgresql://nobody@127.0.0.1:1/legacy"
    )
    assert result.returncode == 2
    assert "cannot reach the legacy database" in result.stderr
    assert "Traceback" not in result.stderr
