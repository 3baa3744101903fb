"""The legacy import's CSV report opens safely in a spreadsheet: a text cell that would start
a formula (`=`, `+`, `-`, `@`, tab, carriage return) is written behind a quote, and nothing
in an exclusion stops the report from being written."""

import csv
from pathlib import Path

import pytest

from domain.legacy_records import Exclusion, Reason, Record
from pressroom.legacy_import import report_cell, write_report


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ("=1+1", "'=1+1"),
        ('=HYPERLINK("http://evil.test","x")', '\'=HYPERLINK("http://evil.test","x")'),
        ("+1+1", "'+1+1"),
        ("-1-1", "'-1-1"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=1+1", "'\t=1+1"),
        ("\r=1+1", "'\r=1+1"),
        ("'=1+1", "'=1+1"),  # already text
        ("L0000001", "L0000001"),
        ("a=b+c", "a=b+c"),  # only the first character starts a formula
        (" =1", " =1"),
        ("", ""),
        (7, 7),  # numbers stay numbers
        (-7, -7),
    ],
)
def test_a_cell_that_starts_a_formula_is_text(value: str | int, cell: str | int) -> None:
    assert report_cell(value) == cell


def test_the_report_escapes_every_text_cell(tmp_path: Path) -> None:
    report = tmp_path / "report.csv"
    exclusions = [
        Exclusion(Record.ORDER, 1, "=1+1", Reason.DUPLICATE_ORDER_NUMBER, "-2 is odd"),
        Exclusion(Record.USER, 2, None, Reason.BAD_EMAIL, "@home"),
        # A lone surrogate cannot be UTF-8: it is written as its escape, not a crash.
        Exclusion(Record.ORDER, 3, "N\ud800", Reason.DUPLICATE_ORDER_NUMBER, "\tx"),
    ]
    write_report(report, exclusions)

    with report.open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows == [
        ["record", "legacy_id", "order_number", "reason", "detail"],
        ["order", "1", "'=1+1", "DUPLICATE_ORDER_NUMBER", "'-2 is odd"],
        ["user", "2", "", "BAD_EMAIL", "'@home"],
        ["order", "3", "N\\ud800", "DUPLICATE_ORDER_NUMBER", "'\tx"],
    ]
