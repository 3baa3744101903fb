"""What the benchmarks print: progress on stderr, figures as their tables show them (the
server's garbage collector's among them), and the table of the CPU each group of processes
used in each phase."""

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console, RenderableType
from rich.table import Table

console = Console(stderr=True, width=None if sys.stderr.isatty() else 120)
STARTED = time.perf_counter()


def written(path: Path, results: dict[str, Any], *tables: RenderableType, width: int = 120) -> None:
    """A bench's figures into `path` (JSON), and its tables on standard output."""
    path.write_text(json.dumps(results, indent=2) + "\n")
    out = Console(width=None if sys.stdout.isatty() else width)
    for table in tables:
        out.print(table)
    out.print(f"figures written to {path}")


def log(message: str) -> None:
    console.print(f"[dim]{time.perf_counter() - STARTED:6.1f} s[/dim]  {message}", highlight=False)


def fmt(value: float | None, unit: str = "", digits: int = 0) -> str:
    return "-" if value is None else f"{value:,.{digits}f}{unit}"


def verdict(value: float | None, ok: Callable[[float], bool]) -> str:
    if value is None:
        return ""
    return "[green]met[/green]" if ok(value) else "[red]missed[/red]"


def p50_p99(summary: dict[str, Any]) -> str:
    """A `stats.summary_ms`'s p50 and p99, as a cell."""
    return f"{fmt(summary.get('p50_ms'), digits=1)} / {fmt(summary.get('p99_ms'), digits=1)} ms"


def pause(gc: dict[str, Any]) -> str:
    """The longest pause of a phase (`stats.gc_between`'s figures): exact, with the
    collector's CPU time in it when known, or an upper bound."""
    longest = fmt(gc["longest_ms"], " ms", 1)
    if not gc["longest_exact"]:
        return f"<= {longest}"
    cpu = gc.get("longest_cpu_ms")
    return longest if cpu is None else f"{longest} (CPU {fmt(cpu, digits=1)})"


def collections(gc: dict[str, Any] | None) -> str:
    """A phase's collections by generation (`stats.gc_between`'s figures)."""
    if not gc:
        return "-"
    return " / ".join(fmt(gc["collections"].get(g, 0)) for g in ("0", "1", "2"))


def cpu_table(
    rows: list[tuple[str, dict[str, float]]], groups: tuple[str, ...], note: str = ""
) -> Table:
    """The cores each group of processes used in each phase (`stats.CpuMeter`'s figures),
    a row a phase."""
    table = Table(
        title=f"CPU used during each phase, in cores ({os.cpu_count()} on this machine{note})",
        title_justify="left",
    )
    table.add_column("phase")
    for group in groups:
        table.add_column(group, justify="right")
    for label, cpu in rows:
        table.add_row(label, *(fmt(cpu.get(g), digits=2) for g in groups))
    return table
