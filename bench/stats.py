"""Small helpers: percentiles and ratios, CPU accounting per process group, the memory of a
group of processes, and the server's garbage collector pauses as its /metrics shows them."""

import contextlib
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import psutil
from prometheus_client.parser import text_string_to_metric_families


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0..100) by nearest rank; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a is not None and b else None


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


def process_cpu_seconds(pid: int | None) -> float:
    """CPU seconds one process has used so far."""
    return _cpu_seconds([psutil.Process(pid)])


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


def rss_mb(processes: Iterable[psutil.Process]) -> float:
    """The resident memory of these processes together, in MiB (one gone counts nothing)."""
    total = 0
    for process in processes:
        with contextlib.suppress(psutil.Error):
            total += process.memory_info().rss
    return total / 2**20


@dataclass(frozen=True)
class GcReading:
    """The server's garbage collector figures (pressroom_gc_pause_*) at one moment."""

    collections: dict[str, float]  # by generation
    buckets: dict[float, float]  # collections of every generation by histogram bound
    paused: float  # seconds, in all
    longest: float  # seconds, the longest pause since the server started serving
    longest_cpu: float  # seconds of CPU the collector took in that pause


# The figures when the server starts serving.
SERVING = GcReading({}, {}, 0.0, 0.0, 0.0)


def gc_reading(exposition: str) -> GcReading:
    collections: dict[str, float] = {}
    buckets: dict[float, float] = {}
    paused = longest = longest_cpu = 0.0
    for family in text_string_to_metric_families(exposition):
        for sample in family.samples:
            if sample.name == "pressroom_gc_pause_seconds_count":
                collections[sample.labels["generation"]] = sample.value
            elif sample.name == "pressroom_gc_pause_seconds_bucket":
                bound = float(sample.labels["le"])
                buckets[bound] = buckets.get(bound, 0.0) + sample.value
            elif sample.name == "pressroom_gc_pause_seconds_sum":
                paused += sample.value
            elif sample.name == "pressroom_gc_pause_max_seconds":
                longest = sample.value
            elif sample.name == "pressroom_gc_pause_max_cpu_seconds":
                longest_cpu = sample.value
    return GcReading(collections, buckets, paused, longest, longest_cpu)


def gc_between(before: GcReading, after: GcReading) -> dict[str, Any]:
    """Collections by generation, time paused and the longest pause between two readings.
    The longest is exact when it raised the server's maximum, or was the only pause;
    otherwise it is a bound: the lowest of the smallest histogram bound holding every
    collection between, the maximum before, and the time paused (`longest_exact` says).
    When it raised the maximum, the collector's CPU time in it is known too (the rest of
    the pause, the server waited for a core); otherwise that is None."""
    collections = {
        g: int(after.collections[g] - before.collections.get(g, 0.0)) for g in after.collections
    }
    count = sum(collections.values())
    paused = after.paused - before.paused
    exact = True
    longest_cpu = None
    if after.longest > before.longest:
        longest = after.longest
        longest_cpu = round(after.longest_cpu * 1000, 2)
    elif count <= 1:
        longest = paused
    else:
        exact = False
        bound = min(b for b, n in after.buckets.items() if n - before.buckets.get(b, 0.0) >= count)
        longest = min(bound, before.longest, paused)
    return {
        "collections": collections,
        "paused_ms": round(paused * 1000, 2),
        "longest_ms": round(longest * 1000, 2),
        "longest_exact": exact,
        "longest_cpu_ms": longest_cpu,
    }
