"""`pressroom import-legacy`: engines, a progress bar, the summary table and the CSV report.

The import itself (reading, planning, batched writes) is `db.legacy.run_import`; the
rules are `domain.legacy`.
"""

import csv
import gc
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from db.engine import create_engine
from db.legacy import Step, Summary, run_import
from domain.legacy_records import Exclusion

REPORT_COLUMNS = ("record", "legacy_id", "order_number", "reason", "detail")


async def import_legacy(
    source_url: str,
    target_url: str,
    *,
    currency: str = "EUR",
    dry_run: bool = False,
    progress: bool = False,
) -> Summary:
    source = create_engine(source_url, pool_size=1, max_overflow=1)
    target = create_engine(target_url, pool_size=2, max_overflow=0)
    # A batch job that builds few reference cycles: without the cyclic collector it no
    # longer rescans every planned order again and again (a third of its time).
    gc.disable()
    try:
        with _progress(progress) as advance:
            return await run_import(
                source,
                target,
                currency=currency,
                now=datetime.now(UTC),
                dry_run=dry_run,
                progress=advance,
            )
    finally:
        gc.enable()
        await source.dispose()
        await target.dispose()


@contextmanager
def _progress(shown: bool) -> Iterator["_Advance | None"]:
    if not shown:
        yield None
        return
    columns = (
        TextColumn("{task.description:10}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=Console(stderr=True)) as bar:
        yield _Advance(bar)


class _Advance:
    def __init__(self, bar: Progress) -> None:
        self.bar = bar
        self.tasks: dict[Step, TaskID] = {}

    def __call__(self, step: Step, done: int, total: int) -> None:
        if step not in self.tasks:
            self.tasks[step] = self.bar.add_task(step.value, total=total)
        self.bar.advance(self.tasks[step], done)


# Spreadsheets run a cell that starts with one of these as a formula (tab and carriage
# return in some of them): the report holds the old system's text, anyone's input.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def report_cell(value: str | int) -> str | int:
    """A text cell behind a quote when it would start a formula, so it shows as text."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def write_report(path: Path, exclusions: list[Exclusion]) -> None:
    """What was not imported and why: one CSV row per excluded order, payment or user.

    UTF-8; a lone surrogate (which no UTF-8 holds) is written as its escape."""
    with path.open("w", newline="", encoding="utf-8", errors="backslashreplace") as out:
        writer = csv.writer(out)
        writer.writerow(REPORT_COLUMNS)
        for e in exclusions:
            cells = (e.record.value, e.legacy_id, e.order_number or "", e.reason.value, e.detail)
            writer.writerow([report_cell(cell) for cell in cells])


def summary_table(summary: Summary, dry_run: bool) -> Table:
    """One line per outcome: what was (or would be) imported, what was there, and each
    reason for exclusion with its count; the CSV report lists the excluded rows."""
    s = summary
    new = "would import" if dry_run else "imported"
    title = "Legacy import" + (" (dry run: nothing written)" if dry_run else "")
    table = Table("record", "outcome", "count", title=title, title_justify="left")
    groups: list[tuple[str, list[tuple[str, int]], dict[str, int]]] = [
        ("orders", [(new, s.orders_imported), ("already imported", s.orders_already)],
         s.orders_excluded),
        ("payments", [(new, s.payments_posted), ("already posted", s.payments_already)],
         s.payments_excluded),
        ("users", [(f"{new}: new", s.users_created), (f"{new}: updated", s.users_updated),
                   ("unchanged", s.users_unchanged)], s.users_excluded),
        ("customers", [(f"{new}: new", s.customers_created)], {}),
    ]  # fmt: skip
    for record, outcomes, excluded in groups:
        rows = outcomes + [(f"excluded: {r}", n) for r, n in sorted(excluded.items())]
        for i, (outcome, count) in enumerate(rows):
            table.add_row(record if i == 0 else "", outcome, str(count))
        table.add_section()
    return table
