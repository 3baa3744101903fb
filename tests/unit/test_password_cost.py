"""PRESSROOM_PASSWORD_MEMORY_KIB and PRESSROOM_PASSWORD_TIME_COST: argon2id's cost, 64 MiB
and 3 passes unless set, never under OWASP's minimum (19 MiB, 2 passes), refused at
start-up; every hash and check (the unknown email's too) at the cost set. The suite runs at
the minimum (tests/conftest.py); a hash made at another cost is remade at its next sign-in
(tests/integration/test_throttle.py)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from argon2 import extract_parameters
from pydantic import ValidationError

from db import credentials
from db.credentials import FLOOR, Cost, HashingPool
from pressroom.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = ("PRESSROOM_PASSWORD_MEMORY_KIB", "PRESSROOM_PASSWORD_TIME_COST")


def made_at(password_hash: str) -> tuple[int, int, int]:
    made = extract_parameters(password_hash)
    return made.memory_cost, made.time_cost, made.parallelism


@pytest.fixture
def production(monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment without the suite's cost."""
    for name in SETTINGS:
        monkeypatch.delenv(name, raising=False)


async def test_unset_the_cost_is_64_mib_and_3_passes(production: None) -> None:
    settings = Settings()
    assert (settings.password_memory_kib, settings.password_time_cost) == (65536, 3)
    before = credentials.hashing
    try:
        settings.configure_hashing()
        made = await credentials.hash_password("a-production-password")
        assert made_at(made) == (65536, 3, 1)
        assert not credentials.outdated(made)
    finally:
        credentials.hashing = before


@pytest.mark.parametrize(
    ("memory", "passes"),
    [("19455", "2"), ("19456", "1"), ("1024", "3"), ("65536", "1"), ("0", "2")],
)
def test_a_cost_under_owasps_minimum_is_refused(
    monkeypatch: pytest.MonkeyPatch, memory: str, passes: str
) -> None:
    monkeypatch.setenv("PRESSROOM_PASSWORD_MEMORY_KIB", memory)
    monkeypatch.setenv("PRESSROOM_PASSWORD_TIME_COST", passes)
    with pytest.raises(ValidationError, match="under OWASP's minimum") as refused:
        Settings()
    assert "PRESSROOM_PASSWORD_MEMORY_KIB" in str(refused.value)


def test_the_minimum_itself_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRESSROOM_PASSWORD_MEMORY_KIB", "19456")
    monkeypatch.setenv("PRESSROOM_PASSWORD_TIME_COST", "2")
    assert Settings().password_cost() == FLOOR == Cost(19456, 2)


def test_the_command_refuses_to_start_under_the_minimum(tmp_path: Path) -> None:
    """Before it touches a database: the URL given leads nowhere, and is never tried."""
    env = {
        **os.environ,
        "PRESSROOM_PASSWORD_MEMORY_KIB": "8192",
        "DATABASE_URL": "postgresql://nobody:secret-in-url@127.0.0.1:1/nowhere",
        "PRESSROOM_DATA_DIR": str(tmp_path / "data"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "pressroom.cli", "migrate"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 2
    assert "PRESSROOM_PASSWORD_MEMORY_KIB" in done.stderr
    assert "under OWASP's minimum (19456 KiB" in done.stderr
    assert "Traceback" not in done.stderr
    assert "secret-in-url" not in done.stderr
    assert not (tmp_path / "data").exists()


def test_an_unknown_email_is_checked_against_a_hash_of_the_same_cost() -> None:
    """Both paths cost one check at the cost set: the unknown email's dummy hash is made
    with the pool's parameters, not the defaults'."""
    assert made_at(HashingPool(cost=FLOOR).dummy_hash) == (19456, 2, 1)
    assert made_at(HashingPool(cost=Cost(24576, 3)).dummy_hash) == (24576, 3, 1)


async def test_this_process_hashes_at_the_cost_its_environment_sets() -> None:
    """tests/conftest.py sets the minimum for every process the tests start, and
    configures this one from it."""
    cost = Settings().password_cost()
    made = await credentials.hash_password("a-test-password")
    assert made_at(made) == (cost.memory_kib, cost.time_cost, 1)
    assert not await credentials.verify_password(None, "a-test-password")
    assert made_at(credentials.hashing.dummy_hash) == made_at(made)
