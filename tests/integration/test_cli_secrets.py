"""Secrets stay off the command line, which every user of the machine can read (`ps`,
/proc/PID/cmdline).

`create-user` takes the password from one line of standard input (`--password-stdin`) or
asks for it twice on the terminal, without echo; it has no `--password`, and without a
terminal it refuses rather than wait on a prompt. The terminal cases run the command
under a pseudo-terminal that is its controlling terminal (`pty.fork`), since getpass
reads /dev/tty. How a line is read, case by case: tests/unit/test_cli_secrets.py.

`import-legacy` reads the old database with the password from PGPASSWORD or a password
file (asyncpg's own), and warns when --source-url holds one (it still works); a
password that is missing or wrong is one line of error, exit code 2. The old database is
a PostgreSQL of the module's own that asks `legacy_reader` for its password.
"""

import asyncio
import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from db import embedded
from db.credentials import outdated, verify_password
from samples.legacy_data import Expected, build_legacy
from tests.support.shop import Shop

ROOT = Path(__file__).resolve().parents[2]
EMAIL = "Boss@Shop.test"


def cli_env(database_url: str) -> dict[str, str]:
    return {**os.environ, "DATABASE_URL": database_url}


def run_cli(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pressroom.cli", *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


def on_a_terminal(
    env: dict[str, str], args: list[str], answers: list[tuple[bytes, bytes]], timeout: float = 120
) -> tuple[int, str]:
    """The CLI with a pseudo-terminal for its terminal; each (prompt, answer) is typed once
    that prompt has appeared. Returns the exit code and everything the terminal showed."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: nothing but exec
        try:
            os.chdir(ROOT)
            os.execve(sys.executable, [sys.executable, "-m", "pressroom.cli", *args], env)
        finally:
            os._exit(127)
    shown = b""
    pending = list(answers)
    deadline = time.monotonic() + timeout
    try:
        while True:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, f"the command hung; the terminal showed {shown!r}"
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # EIO: the command closed the terminal (it ended)
                break
            if not chunk:
                break
            shown += chunk
            if pending and pending[0][0] in shown:
                shown = shown.replace(pending[0][0], b"<" + pending[0][0].strip() + b">", 1)
                os.write(fd, pending.pop(0)[1] + b"\n")
    finally:
        os.close(fd)
        _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), shown.decode(errors="replace")


async def password_of(engine: AsyncEngine, email: str) -> str | None:
    """The hash of the user's password, or None when there is no such user."""
    async with engine.connect() as conn:
        row = (
            await conn.execute(
                text("SELECT password_hash FROM users WHERE lower(email) = lower(:e)"), {"e": email}
            )
        ).first()
    return None if row is None else str(row.password_hash)


@dataclass(frozen=True)
class Given:
    name: str
    args: tuple[str, ...]
    stdin: str
    code: int
    says: str  # in standard output when it succeeds, in standard error when not
    password: str | None  # the password the user then has; None: no user is written


GIVEN = [
    Given("one line", ("--password-stdin",), "secret-pw1\n", 0, "is ready", "secret-pw1"),
    Given(
        "nothing", ("--password-stdin",), "", 2, "Choose a password of 8 to 256 characters", None
    ),
    Given(
        "no terminal to ask on",
        (),
        "secret-pw1\n",
        2,
        "standard input is not a terminal to ask the password on; give it on standard input "
        "with --password-stdin.",
        None,
    ),
    Given(
        "on the command line",
        ("--password", "secret-pw1"),
        "",
        2,
        "unrecognized arguments: --password secret-pw1",
        None,
    ),
]


@pytest.mark.parametrize("given", GIVEN, ids=[g.name for g in GIVEN])
async def test_create_user_reads_the_password_from_standard_input(
    given: Given, clean_db: AsyncEngine, database_url: str
) -> None:
    args = ["create-user", "--email", EMAIL, "--admin", *given.args]

    done = await asyncio.to_thread(run_cli, cli_env(database_url), *args, stdin=given.stdin)

    assert done.returncode == given.code, done.stderr
    assert given.says in (done.stdout if given.code == 0 else done.stderr)
    assert "Traceback" not in done.stderr
    stored = await password_of(clean_db, EMAIL)
    if given.password is None:
        assert stored is None
    else:
        assert await verify_password(stored, given.password)
        # Made at the cost the environment sets, as this process makes them.
        assert not outdated(stored)


@pytest.mark.parametrize(
    ("again", "code", "says"),
    [
        (b"secret-pw1", 0, "User boss@shop.test (admin) is ready."),
        (b"secret-pw2", 2, "error: the two passwords differ; nothing was changed."),
    ],
)
async def test_create_user_asks_twice_on_a_terminal(
    again: bytes, code: int, says: str, clean_db: AsyncEngine, database_url: str
) -> None:
    answers = [(b"Password: ", b"secret-pw1"), (b"Password again: ", again)]
    args = ["create-user", "--email", EMAIL, "--admin"]

    exit_code, shown = await asyncio.to_thread(on_a_terminal, cli_env(database_url), args, answers)

    assert exit_code == code, shown
    assert "<Password:>" in shown and "<Password again:>" in shown
    assert says in shown
    assert "secret-pw" not in shown  # not echoed
    stored = await password_of(clean_db, EMAIL)
    if code == 0:
        assert await verify_password(stored, "secret-pw1")
    else:
        assert stored is None


# --- import-legacy: the old database's password ---------------------------------------------

READER = "legacy_reader"
SOURCE_PASSWORD = "sesame-legacy-1"
WARNING = "warning: --source-url holds a password"


@dataclass
class PasswordSource:
    url: str  # names no password
    expected: Expected


@pytest.fixture(scope="module")
async def password_source(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[PasswordSource]:
    """A legacy database on a PostgreSQL of its own where `legacy_reader` must give its
    password (the test server trusts everyone, so a password there proves nothing)."""
    data_dir = tmp_path_factory.mktemp("password_source") / "pgdata"
    server = await asyncio.to_thread(embedded.start, data_dir)
    try:
        admin_url = embedded.with_database(server, "postgres")
        conn = await asyncpg.connect(admin_url)
        try:
            await conn.execute(f"CREATE ROLE {READER} LOGIN PASSWORD '{SOURCE_PASSWORD}'")
            await conn.execute(f"CREATE DATABASE legacy OWNER {READER}")
        finally:
            await conn.close()
        legacy_admin = embedded.with_database(server, "legacy")
        expected = await build_legacy(legacy_admin, orders=30)
        conn = await asyncpg.connect(legacy_admin)
        try:
            await conn.execute(f"GRANT USAGE ON SCHEMA legacy TO {READER}")
            await conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA legacy TO {READER}")
            hba = data_dir / "pg_hba.conf"
            hba.write_text(f"local all {READER} scram-sha-256\n" + hba.read_text())
            await conn.execute("SELECT pg_reload_conf()")
        finally:
            await conn.close()
        # URL.set leaves a field alone when given None: the superuser's password must go.
        url = make_url(legacy_admin)._replace(username=READER, password=None)
        yield PasswordSource(url.render_as_string(hide_password=False), expected)
    finally:
        await asyncio.to_thread(embedded.stop, data_dir)


def with_password(url: str) -> str:
    return make_url(url).set(password=SOURCE_PASSWORD).render_as_string(hide_password=False)


@dataclass(frozen=True)
class Secret:
    name: str
    env: dict[str, str]  # PGPASSFILE "<file>": a password file holding the right password
    in_url: bool  # the password in --source-url itself
    code: int
    says: str = ""  # in standard error when it fails


SECRETS = [
    Secret("in PGPASSWORD", {"PGPASSWORD": SOURCE_PASSWORD}, False, 0),
    Secret("in a password file", {"PGPASSFILE": "<file>"}, False, 0),
    Secret("in the URL, with a warning", {}, True, 0),
    Secret(
        "nowhere",
        {},
        False,
        2,
        "error: cannot reach the legacy database: password authentication failed",
    ),
    Secret(
        "wrong",
        {"PGPASSWORD": "wrong-password"},
        False,
        2,
        "error: cannot reach the legacy database: password authentication failed",
    ),
]


# One worker runs them all, so the PostgreSQL of password_source is made once.
@pytest.mark.xdist_group("password_source")
@pytest.mark.parametrize("secret", SECRETS, ids=[s.name for s in SECRETS])
async def test_import_legacy_takes_the_password_from_the_environment(
    secret: Secret,
    password_source: PasswordSource,
    shop: Shop,
    database_url: str,
    tmp_path: Path,
) -> None:
    passfile = tmp_path / "pgpass"
    passfile.write_text(f"*:*:legacy:{READER}:{SOURCE_PASSWORD}\n")
    passfile.chmod(0o600)
    env = {k: v for k, v in cli_env(database_url).items() if k not in ("PGPASSWORD", "PGPASSFILE")}
    env["PGPASSFILE"] = str(tmp_path / "none")  # not this machine's ~/.pgpass
    env |= {k: str(passfile) if v == "<file>" else v for k, v in secret.env.items()}
    url = with_password(password_source.url) if secret.in_url else password_source.url

    done = await asyncio.to_thread(run_cli, env, "import-legacy", "--source-url", url)

    assert done.returncode == secret.code, done.stderr
    assert (WARNING in done.stderr) == secret.in_url, done.stderr
    assert secret.says in done.stderr
    assert "Traceback" not in done.stderr
    assert SOURCE_PASSWORD not in done.stdout + done.stderr
    async with shop.engine.connect() as conn:
        imported = await conn.scalar(
            text("SELECT count(*) FROM work_orders WHERE legacy_id IS NOT NULL")
        )
    assert imported == (password_source.expected.orders_imported if secret.code == 0 else 0)
