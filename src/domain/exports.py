"""The spreadsheets' rows: one list of columns and one function per export, from a row of
its statement (db/exports.py) to cells. Text a spreadsheet would run as a formula is
defused; numbers stay numbers. Two forms of each: for people, headers and statuses in
words; for machines (`keys`), the column keys and the API's names, as they always were."""

from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

from domain import ledger, words
from domain.due import completed_at
from domain.enums import LedgerEntryKind, TaskAction, TaskStatus, WorkOrderStatus
from domain.money import Money, exponent
from domain.transitions import is_late

# What a spreadsheet reads as the start of a formula (OWASP's CSV injection list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

Cells = list[str]


def text(value: str | None) -> str:
    """A text cell; one that would start a formula gets a leading apostrophe."""
    if value is None:
        return ""
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def moment(value: datetime | None, zone: ZoneInfo) -> str:
    """ISO 8601 in the shop's time zone, with its offset, to the second."""
    return "" if value is None else value.astimezone(zone).isoformat(timespec="seconds")


def amount(money: Money | None) -> str:
    """A plain decimal with every decimal of the currency (`-12.50`): a number, not text."""
    return "" if money is None else f"{money.amount:.{exponent(money.currency)}f}"


def seconds(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


E = TypeVar("E", bound=StrEnum)


def said(value: E, vocabulary: Mapping[E, str], keys: bool) -> str:
    """A status, move or kind: the API's name for machines, else in words ("In progress")."""
    return value.value if keys else vocabulary[value].capitalize()


# A column: its key (for machines) and its header in words.
Columns = list[tuple[str, str]]


def header(columns: Columns, keys: bool) -> Cells:
    return [key if keys else heading for key, heading in columns]


WORK_ORDERS = [
    ("order", "Order"), ("customer", "Customer"), ("created", "Created"), ("due", "Due"),
    ("completed", "Completed"), ("status", "Status"), ("late", "Late"),
    ("currency", "Currency"), ("quote", "Quote"), ("charged", "Charged"), ("paid", "Paid"),
    ("other_currencies", "Other currencies"), ("lead_time_seconds", "Lead time in seconds"),
]  # fmt: skip


def work_order(
    row: Mapping[str, Any], zone: ZoneInfo, now: datetime, shop_currency: str, keys: bool
) -> Cells:
    """`late`: late now (`isLate`), or completed after the due date. Money in the quote's
    currency (the shop's without a quote); entries in any other currency are summed in
    `other_currencies`."""
    status = WorkOrderStatus(row["status"])
    due, completed = row["due_at"], completed_at(status, row["completed_at"])
    finished_late = completed is not None and due is not None and completed > due
    late = is_late(status, due, now) or finished_late
    currency = row["quote_currency"] or shop_currency
    listed = zip(row["entry_kinds"], row["entry_minors"], row["entry_currencies"], strict=True)
    entries = [(LedgerEntryKind(k), Money(m, c)) for k, m, c in listed]
    charged = {m.currency: m for m in ledger.total(entries, ledger.CHARGED_KINDS)}
    paid = {m.currency: m for m in ledger.total(entries, ledger.PAID_KINDS)}
    others = sorted((set(charged) | set(paid)) - {currency})
    quote = Money(row["quote_minor"], currency) if row["quote_minor"] is not None else None
    return [
        text(row["order_number"]),
        text(row["customer"]),
        moment(row["created_at"], zone),
        moment(due, zone),
        moment(completed, zone),
        said(status, words.ORDER_STATUS, keys),
        "yes" if late else "no",
        currency,
        amount(quote),
        _in(charged, currency),
        _in(paid, currency),
        "; ".join(f"{c}: charged {_in(charged, c)}, paid {_in(paid, c)}" for c in others),
        seconds((completed - row["created_at"]).total_seconds()) if completed else "",
    ]


def _in(totals: dict[str, Money], currency: str) -> str:
    return amount(totals.get(currency, Money(0, currency)))


TRANSITIONS = [
    ("order", "Order"), ("department", "Department"), ("from", "From"), ("to", "To"),
    ("action", "Move"), ("actor", "By"), ("reason", "Reason"), ("occurred_at", "When"),
    ("seconds_in_previous_state", "Seconds in previous state"),
]  # fmt: skip


def transition(row: Mapping[str, Any], zone: ZoneInfo, keys: bool) -> Cells:
    """The department by its code for machines, by its name for people."""
    return [
        text(row["order_number"]),
        text(row["department"] if keys else row["department_name"]),
        said(TaskStatus(row["from_status"]), words.TASK_STATUS, keys),
        said(TaskStatus(row["to_status"]), words.TASK_STATUS, keys),
        said(TaskAction(row["action"]), words.TASK_ACTION, keys),
        text(row["actor"]),
        text(row["reason"]),
        moment(row["occurred_at"], zone),
        seconds(row["seconds_before"]),
    ]


LEDGER = [
    ("posted_at", "Posted"), ("kind", "Kind"), ("memo", "Memo"), ("order", "Order"),
    ("amount", "Amount"), ("currency", "Currency"), ("balance", "Balance"),
    ("posted_by", "Posted by"),
]  # fmt: skip


def ledger_entry(row: Mapping[str, Any], zone: ZoneInfo, keys: bool) -> Cells:
    currency = row["currency"]
    return [
        moment(row["posted_at"], zone),
        said(LedgerEntryKind(row["kind"]), words.LEDGER_KIND, keys),
        text(row["memo"]),
        text(row["order_number"]),
        amount(Money(row["amount_minor"], currency)),
        currency,
        amount(Money(row["balance_after_minor"], currency)),
        text(row["posted_by"]),
    ]
