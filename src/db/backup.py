"""Backing up and restoring a whole database with PostgreSQL's own pg_dump and pg_restore.

Backups are pg_dump's custom format (`-Fc`). The programs are the embedded wheel's
(`db.embedded.binary`): clients of any server up to their own version, so they serve a
DATABASE_URL server as well as the embedded one. Connection parameters come from the
URL and reach them as libpq environment variables (the password as PGPASSWORD, never
on a command line); a Unix socket directory (`?host=/path`) works like a host name.

A restore never touches the database in use until the backup has been restored into a
staging database beside it and migrated to head; only then is the old database
dropped and the staging one renamed in its place. A backup that cannot be read, or a
restore or migration that fails, leaves the database as it was.
"""

import asyncio
import contextlib
import os
import subprocess
import tempfile
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import asyncpg
from sqlalchemy.engine import make_url

from db import embedded, migrate

# URL query parameters that libpq also understands, by their environment variable.
_QUERY_ENV = {
    "host": "PGHOST",
    "port": "PGPORT",
    "sslmode": "PGSSLMODE",
    "sslrootcert": "PGSSLROOTCERT",
    "sslcert": "PGSSLCERT",
    "sslkey": "PGSSLKEY",
    "connect_timeout": "PGCONNECT_TIMEOUT",
    "target_session_attrs": "PGTARGETSESSIONATTRS",
}
_SSL_MODES = {"disable", "allow", "prefer", "require", "verify-ca", "verify-full"}

T = TypeVar("T")


class BackupError(Exception):
    """A backup or restore that could not be done; the message says why."""


class BadBackupFile(BackupError):
    """The file to restore is missing or is not a pg_dump custom-format archive."""


class RestoreRefused(BackupError):
    """The database holds data, and replacing it was not asked for."""

    def __init__(self, database: str, tables: list[str]) -> None:
        self.database = database
        self.tables = tables
        listed = ", ".join(tables[:5]) + (f" and {len(tables) - 5} more" if len(tables) > 5 else "")
        super().__init__(
            f'database "{database}" is not empty (rows in {listed}); nothing was changed. '
            "Use --force to replace it with the backup."
        )


@dataclass(frozen=True)
class Backup:
    path: Path
    database: str
    size: int


@dataclass(frozen=True)
class Restored:
    path: Path
    database: str
    revision: str
    replaced: bool


def database_name(url: str) -> str:
    name = make_url(url).database
    if not name:
        raise BackupError(f"the database URL names no database: {_safe(url)}")
    return name


def client_env(url: str) -> dict[str, str]:
    """The environment for a libpq program to connect as `url` does."""
    parsed = make_url(url)
    values: dict[str, str | None] = {
        "PGHOST": parsed.host,
        "PGPORT": str(parsed.port) if parsed.port else None,
        "PGUSER": parsed.username,
        "PGPASSWORD": parsed.password or None,
        "PGAPPNAME": "pressroom-backup",
    }
    for key, value in parsed.query.items():
        variable = "PGSSLMODE" if key == "ssl" else _QUERY_ENV.get(key)
        text = ",".join(value) if isinstance(value, tuple) else value
        if variable is None or (variable == "PGSSLMODE" and text not in _SSL_MODES):
            continue  # a driver option libpq does not share (asyncpg's `ssl=true`, ...)
        values[variable] = text
    env = dict(os.environ)
    env.update({k: v for k, v in values.items() if v is not None})
    return env


def dump(url: str, path: Path) -> Backup:
    """Write the database of `url` to `path` (pg_dump custom format, mode 0600).

    The dump goes to `<path>.partial` and replaces `path` only once complete, so an
    earlier backup at `path` survives a failed one."""
    database = database_name(url)
    if path.is_dir():
        raise BackupError(f"{path} is a directory; give the backup a file name.")
    if not path.parent.is_dir():
        raise BackupError(f"no directory {path.parent} to write the backup in.")
    partial = path.with_name(path.name + ".partial")
    try:
        # Created private before pg_dump writes: the backup holds password hashes.
        os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
        partial.chmod(0o600)
        run_client("pg_dump", ["--format=custom", f"--file={partial}", dbname(database)], url)
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
    return Backup(path=path, database=database, size=path.stat().st_size)


def check_archive(path: Path) -> None:
    """Refuse a missing file, or one pg_restore cannot read, before anything is touched."""
    if not path.is_file():
        raise BadBackupFile(f"no backup file at {path}.")
    try:
        run_client("pg_restore", ["--list", str(path)], None)
    except BackupError as error:
        raise BadBackupFile(f"{path} is not a pg_dump custom-format backup ({error})") from None


async def tables_with_rows(url: str) -> list[str]:
    """The user tables of the database that hold at least one row (Alembic's version
    table aside); none when the database does not exist."""
    try:
        conn = await asyncpg.connect(_dsn(url))
    except asyncpg.InvalidCatalogNameError:
        return []
    try:
        tables = await conn.fetch(
            "SELECT n.nspname, c.relname FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE c.relkind IN ('r', 'p') "
            "AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
            "AND n.nspname NOT LIKE 'pg\\_toast%' "
            "AND NOT (n.nspname = 'public' AND c.relname = 'alembic_version') "
            "ORDER BY n.nspname, c.relname"
        )
        found = []
        for schema, table in tables:
            name = f"{_ident(schema)}.{_ident(table)}"
            if await conn.fetchval(f"SELECT EXISTS (SELECT 1 FROM {name})"):
                found.append(table if schema == "public" else f"{schema}.{table}")
        return found
    finally:
        await conn.close()


async def restore(url: str, path: Path, *, force: bool) -> Restored:
    """Replace the database of `url` with the backup at `path`, then migrate it to head.

    Refused (RestoreRefused) when the database holds data, unless `force`."""
    database = database_name(url)
    await asyncio.to_thread(check_archive, path)
    occupied = await _guarded(tables_with_rows(url), "could not inspect the database")
    if occupied and not force:
        raise RestoreRefused(database, occupied)
    staging_name = f"{database[:50]}_restoring"
    staging = make_url(url).set(database=staging_name).render_as_string(hide_password=False)
    version = await _guarded(_recreate(url, staging_name), "could not create the staging database")
    try:
        await asyncio.to_thread(_pg_restore, path, staging, staging_name, version)
        await _guarded(_rebase_event_positions(staging), "could not rebase the event log")
        try:
            await migrate.upgrade(staging)
        except Exception as error:
            raise BackupError(f"migrating the restored backup failed: {error}") from error
    except BaseException:
        with contextlib.suppress(Exception):
            await _drop(url, staging_name)
        raise
    await _guarded(_swap(url, staging_name, database), "could not put the restored database")
    return Restored(path, database, migrate.head_revision(), replaced=bool(occupied))


# The tables of the outboxes that follow the log by a cursor (cursor_xid, cursor_id).
CURSOR_TABLES = ("webhooks", "mail_outbox")
REBASE_CURSORS = """
UPDATE {table} c
SET cursor_xid = pg_current_xact_id(),
    cursor_id = coalesce(
        (SELECT min(e.id) - 1 FROM events e
         WHERE e.xid >= pg_current_xact_id() AND (e.xid, e.id) > (c.cursor_xid, c.cursor_id)),
        (SELECT max(e.id) FROM events e WHERE e.xid >= pg_current_xact_id()),
        c.cursor_id)
WHERE c.cursor_xid >= pg_current_xact_id()
"""


async def _rebase_event_positions(url: str) -> None:
    """Keep the event log readable on a server whose transaction counter is behind the
    backup's (a restore onto a new server). An event's position is the xid that wrote
    it, and readers take only events below the oldest running transaction: events
    numbered ahead of the counter would be held back, then replayed as new, and new
    ones would sort before them. They take this transaction's xid instead, keeping
    their order by id, so every restored event is in the past and new ones follow."""
    conn = await asyncpg.connect(_dsn(url))
    try:
        if await conn.fetchval("SELECT to_regclass('public.events') IS NOT NULL"):
            # The log refuses UPDATE (migration 0005) from anyone; the restoring user
            # owns the staging copy, which nobody else sees, and lifts that for this
            # one statement.
            async with conn.transaction():
                # Before the events move: an outbox's cursor goes to just before the first
                # restored event it has not read (the new order is by id; what it had read
                # after that is read again, at least once as ever, never skipped).
                for table in CURSOR_TABLES:
                    if await conn.fetchval(f"SELECT to_regclass('public.{table}') IS NOT NULL"):
                        await conn.execute(REBASE_CURSORS.format(table=table))
                await conn.execute("ALTER TABLE events DISABLE TRIGGER USER")
                await conn.execute(
                    "UPDATE events SET xid = pg_current_xact_id() WHERE xid >= pg_current_xact_id()"
                )
                await conn.execute("ALTER TABLE events ENABLE TRIGGER USER")
                # Where the log starts, and the event each delivery carries, move with it.
                for table, column in (
                    ("events_pruned", "xid"),
                    ("webhook_deliveries", "event_xid"),
                ):
                    if await conn.fetchval(f"SELECT to_regclass('public.{table}') IS NOT NULL"):
                        await conn.execute(
                            f"UPDATE {table} SET {column} = pg_current_xact_id() "
                            f"WHERE {column} >= pg_current_xact_id()"
                        )
    finally:
        await conn.close()


async def _recreate(url: str, name: str) -> int:
    """An empty database `name` on the server of `url`; returns the server's version
    (`server_version_num`)."""
    conn = await asyncpg.connect(_dsn(url, "postgres"))
    try:
        await conn.execute(f"DROP DATABASE IF EXISTS {_ident(name)} WITH (FORCE)")
        await conn.execute(f"CREATE DATABASE {_ident(name)}")
        return int(await conn.fetchval("SHOW server_version_num"))
    finally:
        await conn.close()


# Ownership and grants name roles the target server may not have: the restored objects
# belong to the user restoring them.
_RESTORE_OPTIONS = ["--no-owner", "--no-acl", "--exit-on-error"]

# pg_restore (18) opens every restore with `SET transaction_timeout = 0`, a setting
# PostgreSQL has only since 17; an older server refuses it and the restore stops there.
TRANSACTION_TIMEOUT_SINCE = 170000
_TRANSACTION_TIMEOUT = b"SET transaction_timeout = 0;\n"
_HEADER_LINES = 40


def _pg_restore(path: Path, url: str, database: str, server_version: int) -> None:
    """Restore the archive into `database` in one transaction: with pg_restore itself,
    or, for a server older than the setting above, with pg_restore's script streamed
    into psql without that one line."""
    if server_version >= TRANSACTION_TIMEOUT_SINCE:
        run_client(
            "pg_restore",
            [*_RESTORE_OPTIONS, "--single-transaction", f"--dbname={dbname(database)}", str(path)],
            url,
        )
        return
    script = [str(embedded.binary("pg_restore")), *_RESTORE_OPTIONS, "--file=-", str(path)]
    psql = [str(embedded.binary("psql")), "--no-psqlrc", "--quiet", "--no-password"]
    psql += ["--single-transaction", "--set=ON_ERROR_STOP=1", f"--dbname={dbname(database)}"]
    env = client_env(url)
    with tempfile.TemporaryFile() as reader_err, tempfile.TemporaryFile() as writer_err:
        try:
            reader = subprocess.Popen(script, env=env, stdout=subprocess.PIPE, stderr=reader_err)
            writer = subprocess.Popen(
                psql, env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=writer_err
            )
        except OSError as error:
            raise BackupError(f"could not run pg_restore and psql: {error}") from None
        assert reader.stdout is not None and writer.stdin is not None
        try:
            for number, line in enumerate(reader.stdout):
                # The settings open the script (its first twenty-odd lines); the line
                # is dropped there only, never from the schema or the data after them.
                if number < _HEADER_LINES and line == _TRANSACTION_TIMEOUT:
                    continue
                writer.stdin.write(line)
        except BrokenPipeError:
            pass  # psql stopped at an error: its exit status and message say which
        finally:
            reader.stdout.close()
            with contextlib.suppress(BrokenPipeError):
                writer.stdin.close()
        writer.wait()
        reader.wait()
        # psql's failure first: pg_restore then only lost its reader.
        for name, process, errors in (
            ("psql", writer, writer_err),
            ("pg_restore", reader, reader_err),
        ):
            if process.returncode != 0:
                errors.seek(0)
                message = errors.read().decode(errors="replace").strip()
                raise BackupError(f"{name} failed: {message or f'exit code {process.returncode}'}")


async def _drop(url: str, name: str) -> None:
    conn = await asyncpg.connect(_dsn(url, "postgres"))
    try:
        await conn.execute(f"DROP DATABASE IF EXISTS {_ident(name)} WITH (FORCE)")
    finally:
        await conn.close()


async def _swap(url: str, staging: str, database: str) -> None:
    """Drop the database (closing its sessions: servers reconnect to the restored one)
    and give the staging database its name."""
    conn = await asyncpg.connect(_dsn(url, "postgres"))
    try:
        await conn.execute(f"DROP DATABASE IF EXISTS {_ident(database)} WITH (FORCE)")
        await conn.execute(f"ALTER DATABASE {_ident(staging)} RENAME TO {_ident(database)}")
    finally:
        await conn.close()


async def _guarded(work: Awaitable[T], what: str) -> T:
    """Connection and database errors as a BackupError saying what was being done."""
    try:
        return await work
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        raise BackupError(f"{what}: {error}") from error


def run_client(program: str, args: list[str], url: str | None) -> str:
    """Run one of the embedded wheel's client programs (pg_dump, ...) for `url`; its output."""
    command = [str(embedded.binary(program)), "--no-password", *args]
    env = client_env(url) if url is not None else dict(os.environ)
    try:
        done = subprocess.run(
            command, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True
        )
    except OSError as error:
        raise BackupError(f"could not run {program}: {error}") from None
    if done.returncode != 0:
        message = done.stderr.strip() or f"exit code {done.returncode}"
        raise BackupError(f"{program} failed: {message}")
    return done.stdout


def dbname(name: str) -> str:
    """A libpq connection string naming just the database (any name, quoted)."""
    return f"dbname={embedded.conninfo_value(name)}"


def _dsn(url: str, database: str | None = None) -> str:
    parsed = make_url(url).set(drivername="postgresql")
    if database is not None:
        parsed = parsed.set(database=database)
    return parsed.render_as_string(hide_password=False)


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _safe(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)
