"""Small helpers: percentiles and CPU accounting per process group."""

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import psutil


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0..100) by nearest rank; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def summary_ms(seconds: Sequence[float]) -> dict[str, float | int | None]:
    """p50, p99 and max in milliseconds, and how many samples they come from."""

    def ms(value: float | None) -> float | None:
        return None if value is None else round(value * 1000, 2)

    return {
        "count": len(seconds),
        "p50_ms": ms(percentile(seconds, 50)),
        "p99_ms": ms(percentile(seconds, 99)),
        "max_ms": ms(max(seconds) if seconds else None),
    }


def _cpu_seconds(processes: Iterable[psutil.Process], reaped: bool = False) -> float:
    """CPU seconds used so far; with `reaped`, also by children that exited and were
    waited for (PostgreSQL backends of connections that were closed)."""
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
        if reaped:
            total += times.children_user + times.children_system
    return total


@dataclass
class CpuMeter:
    """CPU used by named groups of processes over a phase, in cores (1.0 = one core busy).

    A group is a callable returning its processes now, the first being the root: what
    the root's exited children used counts too (PostgreSQL backends come and go).
    """

    groups: dict[str, Callable[[], list[psutil.Process]]]
    elapsed: float = 0.0

    def start(self) -> None:
        self._t0 = time.perf_counter()
        self._busy, self._irq = _machine_busy()
        self._base = {}
        for name, group in self.groups.items():
            procs = group()
            self._base[name] = {p.pid: _cpu_seconds([p], i == 0) for i, p in enumerate(procs)}

    def stop(self) -> dict[str, float]:
        """Cores used by each group, by interrupt handling ("irq": loopback TCP is largely
        processed there, charged to no process), and by everything else ("others")."""
        elapsed = self.elapsed = time.perf_counter() - self._t0
        if elapsed <= 0:
            return {}
        used: dict[str, float] = {}
        for name, group in self.groups.items():
            base = self._base.get(name, {})
            total = 0.0
            for i, process in enumerate(group()):
                total += _cpu_seconds([process], i == 0) - base.get(process.pid, 0.0)
            used[name] = total / elapsed
        busy, irq = _machine_busy()
        used["irq"] = (irq - self._irq) / elapsed
        used["others"] = max(0.0, (busy - self._busy) / elapsed - sum(used.values()))
        return {name: round(value, 2) for name, value in used.items()}


def _machine_busy() -> tuple[float, float]:
    """CPU seconds the whole machine has spent not idle, and of those in interrupts."""
    times = psutil.cpu_times()
    fields = ("user", "nice", "system", "irq", "softirq", "steal")
    irq = float(getattr(times, "irq", 0.0) + getattr(times, "softirq", 0.0))
    return float(sum(getattr(times, name, 0.0) for name in fields)), irq


def this_process() -> list[psutil.Process]:
    return [psutil.Process()]


def process_tree(pid: int | None) -> Callable[[], list[psutil.Process]]:
    """A process and its descendants (a server and its children, a postmaster and its
    backends); empty when the pid is unknown or gone."""

    def group() -> list[psutil.Process]:
        if pid is None:
            return []
        try:
            root = psutil.Process(pid)
            return [root, *root.children(recursive=True)]
        except psutil.Error:
            return []

    return group
