"""The spreadsheets' rows: one header and one function per export, from a row of its
statement (db/exports.py) to cells. Text a spreadsheet would run as a formula is defused;
numbers stay numbers."""

from collections.abc import Mapping
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from domain import ledger
from domain.enums import LedgerEntryKind, WorkOrderStatus
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


WORK_ORDERS = [
    "order", "customer", "created", "due", "completed", "status", "late", "currency",
    "quote", "charged", "paid", "other_currencies", "lead_time_seconds",
]  # fmt: skip


def work_order(row: Mapping[str, Any], zone: ZoneInfo, now: datetime, shop_currency: str) -> Cells:
    """`late`: late now (`isLate`), or completed after the due date. Money in the quote's
    currency (the shop's without a quote); entries in any other currency are summed in
    `other_currencies`."""
    status = WorkOrderStatus(row["status"])
    due, completed = row["due_at"], row["completed_at"]
    if status is not WorkOrderStatus.COMPLETED:
        completed = None
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
        status.value,
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
    "order", "department", "from", "to", "action", "actor", "reason", "occurred_at",
    "seconds_in_previous_state",
]  # fmt: skip


def transition(row: Mapping[str, Any], zone: ZoneInfo) -> Cells:
    return [
        text(row["order_number"]),
        text(row["department"]),
        row["from_status"],
        row["to_status"],
        row["action"],
        text(row["actor"]),
        text(row["reason"]),
        moment(row["occurred_at"], zone),
        seconds(row["seconds_before"]),
    ]


LEDGER = ["posted_at", "kind", "memo", "order", "amount", "currency", "balance", "posted_by"]


def ledger_entry(row: Mapping[str, Any], zone: ZoneInfo) -> Cells:
    currency = row["currency"]
    return [
        moment(row["posted_at"], zone),
        row["kind"],
        text(row["memo"]),
        text(row["order_number"]),
        amount(Money(row["amount_minor"], currency)),
        currency,
        amount(Money(row["balance_after_minor"], currency)),
        text(row["posted_by"]),
    ]
