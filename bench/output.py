"""What the benchmarks print: progress on stderr, and figures as their tables show them."""

import sys
import time
from collections.abc import Callable

from rich.console import Console

console = Console(stderr=True, width=None if sys.stderr.isatty() else 120)
STARTED = time.perf_counter()


def log(message: str) -> None:
    console.print(f"[dim]{time.perf_counter() - STARTED:6.1f} s[/dim]  {message}", highlight=False)


def fmt(value: float | None, unit: str = "", digits: int = 0) -> str:
    return "-" if value is None else f"{value:,.{digits}f}{unit}"


def verdict(value: float | None, ok: Callable[[float], bool]) -> str:
    if value is None:
        return ""
    return "[green]met[/green]" if ok(value) else "[red]missed[/red]"
