"""`--cpu-by-module`: which test modules spend the machine's CPU, for finding where the
suite's time goes (tests/README.md):

    ./dev test -n 0 --cpu-by-module

One test at a time, it reads the machine's busy time (every process's: the servers,
PostgreSQL and Chromium a test starts are not all pytest's children) as each test starts
and ends, and prints the modules that spent the most. Run it on a quiet machine: whatever
else runs is counted too."""

from collections import Counter, defaultdict

import psutil
import pytest

SHOWN = 15


def busy_seconds() -> float:
    """Every core's time so far outside idle and I/O wait (as scripts/cpu-by-process reads
    it); guest time is already counted in user time."""
    spent = psutil.cpu_times()
    return spent.user + spent.nice + spent.system + spent.irq + spent.softirq + spent.steal


class Meter:
    def __init__(self) -> None:
        self.started = 0.0
        self.spent: defaultdict[str, float] = defaultdict(float)
        self.tests: Counter[str] = Counter()

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        self.started = busy_seconds()

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        module = nodeid.split("::")[0]
        self.spent[module] += busy_seconds() - self.started
        self.tests[module] += 1

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        total = sum(self.spent.values())
        if not total:
            return
        write = terminalreporter.write_line
        write(f"\nCPU by module: {total:,.0f} core-seconds in {len(self.spent)} modules")
        for module, seconds in sorted(self.spent.items(), key=lambda kv: -kv[1])[:SHOWN]:
            share = 100 * seconds / total
            write(f"{seconds:8.1f} s {share:5.1f} % {self.tests[module]:5d} tests  {module}")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--cpu-by-module",
        action="store_true",
        help="print the machine's CPU time spent during each module's tests (with -n 0)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("cpu_by_module"):
        return
    # Tests running side by side would each be charged the others' CPU.
    if getattr(config.option, "numprocesses", None):
        raise pytest.UsageError("--cpu-by-module measures one test at a time: add -n 0")
    config.pluginmanager.register(Meter(), "cpu_by_module_meter")
