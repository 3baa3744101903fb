"""`pressroom serve --demo` as a new user runs it: a fresh embedded PostgreSQL under the
data directory, migrated, seeded once, served, and stopped without leaving a server behind."""

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import psutil
import pytest

from tests.integration.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
STARTUP_TIMEOUT = 120

pytestmark = pytest.mark.e2e


def postgres_processes(data_dir: Path) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["name", "cmdline"]):
        cmdline = proc.info["cmdline"] or []
        if proc.info["name"] == "postgres" and any(str(data_dir) in part for part in cmdline):
            found.append(proc)
    return found


@contextmanager
def serving(data_dir: Path, *args: str) -> Iterator[tuple[str, list[str]]]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["PRESSROOM_DATA_DIR"] = str(data_dir)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pressroom.cli", "serve", "--port", str(port), *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        # Synchronise on the server saying it is up, not on time passing.
        for line in proc.stdout:
            lines.append(line)
            if "Application startup complete" in line:
                break
        else:
            pytest.fail("server exited before starting:\n" + "".join(lines))
        yield f"http://127.0.0.1:{port}", lines
    finally:
        proc.send_signal(signal.SIGTERM)
        rest, _ = proc.communicate(timeout=STARTUP_TIMEOUT)
        lines.append(rest)
    assert proc.returncode == 0, "".join(lines)


LOGIN = """mutation($i: LoginInput!) { login(input: $i) { token userErrors { code } } }"""
ORDERS = """{ workOrders(first: 100) { edges { node { status tasks { status } } } } }"""


def orders(base: str) -> list[dict[str, object]]:
    with httpx.Client(base_url=base, timeout=30) as client:
        assert client.get("/readyz").json()["ok"] is True
        token = client.post(
            "/graphql",
            json={
                "query": LOGIN,
                "variables": {"i": {"email": "admin@pressroom.test", "password": "pressroom"}},
            },
        ).json()["data"]["login"]["token"]
        body = client.post(
            "/graphql", json={"query": ORDERS}, headers={"authorization": f"Bearer {token}"}
        ).json()
    assert "errors" not in body, body
    return [e["node"] for e in body["data"]["workOrders"]["edges"]]


def test_demo_server_boots_twice_and_leaves_no_database_running(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with serving(data_dir, "--demo") as (base, lines):
        assert any("Demo shop seeded." in line for line in lines)
        assert any("admin@pressroom.test" in line for line in lines)
        first = orders(base)
        assert postgres_processes(data_dir)
    assert len(first) == 12
    assert {o["status"] for o in first} == {"ACTIVE", "COMPLETED", "CANCELLED"}
    assert postgres_processes(data_dir) == []

    with serving(data_dir, "--demo") as (base, lines):
        assert any("Demo shop already seeded." in line for line in lines)
        assert orders(base) == first
    assert postgres_processes(data_dir) == []
