"""`pressroom serve --demo` as a new user runs it: a fresh embedded PostgreSQL under the
data directory, migrated, seeded once, served, and stopped without leaving a server behind."""

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from tests.support.database import postgres_processes
from tests.support.servers import ROOT, serving

pytestmark = pytest.mark.e2e


LOGIN = """mutation($i: LoginInput!) { login(input: $i) { token userErrors { code } } }"""
ORDERS = """{ workOrders(first: 100) { edges { node { status tasks { status } } } } }"""


BALANCES = """{ customers(first: 100) { edges { node { name balance { amount currency }
  ledger(first: 100) { edges { node { kind } } } } } } }"""


def query(base: str, email: str, document: str) -> dict[str, Any]:
    with httpx.Client(base_url=base, timeout=30) as client:
        assert client.get("/readyz").json()["ok"] is True
        token = client.post(
            "/graphql",
            json={"query": LOGIN, "variables": {"i": {"email": email, "password": "pressroom"}}},
        ).json()["data"]["login"]["token"]
        body = client.post(
            "/graphql", json={"query": document}, headers={"authorization": f"Bearer {token}"}
        ).json()
    assert "errors" not in body, body
    data: dict[str, Any] = body["data"]
    return data


def orders(base: str) -> list[dict[str, object]]:
    return [e["node"] for e in query(base, "admin@pressroom.test", ORDERS)["workOrders"]["edges"]]


def test_demo_server_boots_twice_and_leaves_no_database_running(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with serving(data_dir, "--demo") as (base, lines):
        assert any("Demo shop seeded." in line for line in lines)
        assert any("admin@pressroom.test" in line for line in lines)
        first = orders(base)
        assert postgres_processes(data_dir)
        # The link printed opens the page of the order waiting for its customer's approval.
        [link] = [line.split("approval: ")[1].strip() for line in lines if "approval: " in line]
        assert link.startswith(f"{base}/c/")
        assert "Waiting for your approval" in httpx.get(link, timeout=30).text
        # Accounts can try the ledger at once: the demo shop has postings and balances.
        customers = query(base, "abe@pressroom.test", BALANCES)["customers"]["edges"]
    assert len(first) == 13
    assert {o["status"] for o in first} == {"ACTIVE", "COMPLETED", "CANCELLED"}
    kinds = {e["node"]["kind"] for c in customers for e in c["node"]["ledger"]["edges"]}
    assert kinds == {"CHARGE", "PAYMENT", "CREDIT"}
    assert any(c["node"]["balance"] for c in customers)
    assert postgres_processes(data_dir) == []

    with serving(data_dir, "--demo") as (base, lines):
        assert any("Demo shop already seeded." in line for line in lines)
        assert orders(base) == first
    assert postgres_processes(data_dir) == []


def test_a_second_server_on_a_port_in_use_exits_with_an_error(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with serving(data_dir) as (base, _):
        port = base.rsplit(":", 1)[1]
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        env["PRESSROOM_DATA_DIR"] = str(data_dir)
        second = subprocess.run(
            [sys.executable, "-m", "pressroom.cli", "serve", "--port", port],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert second.returncode != 0
        assert f"could not start on 127.0.0.1:{port}" in second.stderr
        # The first one is unharmed.
        with httpx.Client(base_url=base, timeout=30) as client:
            assert client.get("/readyz").json()["ok"] is True
    assert postgres_processes(data_dir) == []


def test_several_worker_processes_serve_one_shop(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with serving(data_dir, "--demo", workers=2) as (base, lines):
        [parent] = pids(lines, "Started parent process")
        workers = pids(lines, "Started server process")
        # serving() waited for both workers' startup; both run now, under the parent.
        assert len(set(workers)) == 2, "".join(lines)
        assert {psutil.Process(pid).ppid() for pid in workers} == {parent}
        # Requests land on either worker; each is ready (its own listener up) and answers.
        for _ in range(10):
            assert len(orders(base)) == 13
    assert postgres_processes(data_dir) == []


def pids(lines: list[str], started: str) -> list[int]:
    """The pids uvicorn logs as `<started> [pid]`."""
    return [int(m[1]) for line in lines if (m := re.search(rf"{started} \[(\d+)\]", line))]
