"""Secrets stay off the command line, which every user of the machine can read (`ps`,
/proc/PID/cmdline).

`create-user` takes the password from one line of standard input (`--password-stdin`) or
asks for it twice on the terminal, without echo; it has no `--password`, and without a
terminal it refuses rather than wait on a prompt. The terminal cases run the command
under a pseudo-terminal that is its controlling terminal (`pty.fork`), since getpass
reads /dev/tty. How a line is read, case by case: tests/unit/test_cli_password.py.
"""

import asyncio
import os
import pty
import select
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from db.credentials import verify_password

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
    Given("nothing", ("--password-stdin",), "", 2, "password must be 8 to 256 characters", None),
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


@pytest.mark.parametrize(
    ("again", "code", "says"),
    [
        (b"secret-pw1", 0, "User Boss@Shop.test (admin) is ready."),
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
