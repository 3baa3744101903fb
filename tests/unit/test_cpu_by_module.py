"""`--cpu-by-module` (tests/support/cpu_by_module.py): a module is charged the CPU its tests
spent, and tests run side by side are refused rather than charged each other's."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# One test spends 1 s of CPU, the other nothing.
BURNING = """import time

def test_burns():
    started = time.process_time()
    while time.process_time() - started < 1.0:
        pass

def test_idles():
    pass
"""


def pytest_run(folder: Path, *args: str) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.support.cpu_by_module", "-q", *args],
        cwd=folder,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_module_is_charged_its_tests_cpu(tmp_path: Path) -> None:
    (tmp_path / "test_burning.py").write_text(BURNING)
    done = pytest_run(tmp_path, "-n", "0", "--cpu-by-module", "test_burning.py")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if line.endswith("test_burning.py")]
    assert len(rows) == 1, done.stdout
    seconds, _, share, _, tests, _, _ = rows[0]
    assert float(seconds) >= 0.9, done.stdout
    assert (share, tests) == ("100.0", "2"), done.stdout


def test_workers_side_by_side_are_refused(tmp_path: Path) -> None:
    (tmp_path / "test_burning.py").write_text(BURNING)
    done = pytest_run(tmp_path, "-n", "2", "--cpu-by-module", "test_burning.py")
    assert done.returncode == 4, done.stdout + done.stderr
    assert "--cpu-by-module measures one test at a time: add -n 0" in done.stderr
