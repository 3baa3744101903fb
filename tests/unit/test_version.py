"""One version, pyproject.toml's, told by the command as the server tells it (GET /version
and `apiVersion`: tests/integration/test_version.py)."""

import subprocess
import sys
import tomllib
from pathlib import Path

from api.version import VERSION

ROOT = Path(__file__).resolve().parents[2]


def test_the_version_is_pyprojects() -> None:
    """The installed metadata is read: a stale install would show here."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["version"] == VERSION


def test_the_command_tells_it() -> None:
    command = Path(sys.executable).with_name("pressroom")
    done = subprocess.run([command, "--version"], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout) == (0, f"pressroom {VERSION}\n")
