"""scripts/cpu-by-process: a command's CPU shows under the kind of process that spent it,
and the command's exit status is the script's."""

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "cpu-by-process"
# Spends 1.5 s of CPU, then exits with 3.
BURN = "import sys, time\nwhile time.process_time() < 1.5: pass\nsys.exit(3)"


def test_a_commands_cpu_is_counted_under_its_kind() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), sys.executable, "-c", BURN],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 3, done.stderr
    rows = [line.split(maxsplit=2) for line in done.stdout.splitlines()]
    burned = [
        float(row[0]) for row in rows if len(row) == 3 and row[2] == "python: -c import sys, time"
    ]
    # Read every quarter second: the last reading misses about the last quarter second.
    assert burned and burned[0] >= 0.75, done.stdout


def test_no_command_is_a_usage_error() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
    assert done.returncode == 2
    assert "cpu-by-process ./dev test" in done.stderr
