"""The customer ledger's rules: which way each kind moves a balance, and what a post needs.

A balance is positive when the customer owes. Clients send a positive amount and
the kind gives the sign: CHARGE and REFUND raise what is owed, PAYMENT and CREDIT
lower it. Only ADJUSTMENT takes a signed amount as given (never zero). The
database enforces the same table with a CHECK constraint (a test compares them).
"""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from domain import idempotency
from domain.enums import AgeingBucket, LedgerEntryKind
from domain.errors import DomainError, ErrorCode
from domain.money import Money
from domain.validation import invalid, text
from domain.words import LEDGER_KIND

# +1 raises what is owed, -1 lowers it, 0: the amount's own sign (ADJUSTMENT).
SIGNS: dict[LedgerEntryKind, int] = {
    LedgerEntryKind.CHARGE: 1,
    LedgerEntryKind.REFUND: 1,
    LedgerEntryKind.PAYMENT: -1,
    LedgerEntryKind.CREDIT: -1,
    LedgerEntryKind.ADJUSTMENT: 0,
}

# What `WorkOrder.charged` and `WorkOrder.paid` add up, from the signed amounts: charged
# is CHARGE less CREDIT (the stored sum), paid is PAYMENT less REFUND (the stored sum,
# negated). Adjustments count in the balance only.
CHARGED_KINDS = (LedgerEntryKind.CHARGE, LedgerEntryKind.CREDIT)
PAID_KINDS = (LedgerEntryKind.PAYMENT, LedgerEntryKind.REFUND)
# What a cancelled order is owed back (WorkOrder.refundDue) is paid less what was credited
# beyond what was charged; the rule is the database view refunds_due (migration 0012),
# since the customer list filters and pages on it.

MAX_MEMO = 1000
# Where the keys of entries the server keys itself begin: a payment inbox's notifications
# (domain.payments) and a quote's charge (db.ledger.charge_quote). A person's key may not
# begin so, or it could take a provider's notification's key, or pass for a quote's charge.
INBOX_KEYS = "inbox:"
QUOTE_CHARGE_KEYS = "quote-charge:"


def person_key(value: str) -> str:
    """An entry's idempotency key as a person gives it (postLedgerEntry)."""
    key = idempotency.key(value)
    for prefix in (INBOX_KEYS, QUOTE_CHARGE_KEYS):
        if key.startswith(prefix):
            raise invalid(
                f"An idempotency key may not begin with '{prefix}': such keys are the "
                "server's own.",
                idempotency.FIELD,
            )
    return key


def signed(kind: LedgerEntryKind, amount: Money) -> Money:
    """The stored, signed amount of an entry the client sent as `amount`."""
    sign = SIGNS[kind]
    if sign == 0:
        if amount.minor == 0:
            raise invalid("An adjustment must not be zero.", "amount")
        return amount
    if amount.minor <= 0:
        raise invalid(
            f"A {LEDGER_KIND[kind]}'s amount must be positive: the kind of entry gives the "
            "sign (an adjustment takes a signed correction).",
            "amount",
        )
    return Money(sign * amount.minor, amount.currency)


def sign_allowed(kind: LedgerEntryKind, minor: int) -> bool:
    """Whether a stored amount fits its kind (the rule the database CHECK enforces)."""
    sign = SIGNS[kind]
    return minor != 0 if sign == 0 else minor * sign > 0


def memo(value: str | None) -> str | None:
    return text(value, "memo", max_len=MAX_MEMO) if value is not None else None


@dataclass(frozen=True)
class EntryContent:
    """What makes two posts with one idempotency key the same post (domain.idempotency)."""

    customer_id: int
    work_order_id: int | None
    kind: LedgerEntryKind
    amount: Money
    memo: str | None


def charge_refusal(kind: LedgerEntryKind, order_cancelled: bool) -> DomainError | None:
    """Why an entry of `kind` cannot be posted on a work order now, or None: nothing
    charges a cancelled order."""
    if kind is LedgerEntryKind.CHARGE and order_cancelled:
        return DomainError(
            ErrorCode.WORK_ORDER_CLOSED,
            "The work order is cancelled: it cannot be charged.",
            "workOrderId",
        )
    return None


def quote_charge_refusal(
    quote: Money | None, charged: Iterable[Money], order_cancelled: bool
) -> DomainError | None:
    """Why a work order's quote cannot be charged now (chargeWorkOrderQuote), or None:
    `charged` is what the order's entries charged already (CHARGE less CREDIT, per
    currency); once that comes to the quote, charging it again would bill twice."""
    if quote is None:
        return DomainError(
            ErrorCode.INVALID_INPUT,
            "The work order has no quote to charge: set one first.",
            "workOrderId",
        )
    if any(m.currency == quote.currency and m.minor >= quote.minor for m in charged):
        return DomainError(
            ErrorCode.INVALID_INPUT,
            "The work order's charges already come to its quote: there is nothing left to charge.",
            "workOrderId",
        )
    return charge_refusal(LedgerEntryKind.CHARGE, order_cancelled)


def total(
    entries: Iterable[tuple[LedgerEntryKind, Money]], kinds: tuple[LedgerEntryKind, ...]
) -> list[Money]:
    """Per currency, the signed sum of the entries of `kinds`, shown positive when it goes
    the way the first kind does (charged: CHARGE less CREDIT; paid: PAYMENT less REFUND)."""
    direction = SIGNS[kinds[0]]
    sums: dict[str, int] = {}
    for kind, amount in entries:
        if kind in kinds:
            sums[amount.currency] = sums.get(amount.currency, 0) + direction * amount.minor
    return [Money(minor, currency) for currency, minor in sorted(sums.items())]


def ageing_bucket(oldest_unpaid_at: datetime, now: datetime) -> AgeingBucket:
    """Up to 30 days: current; then 31-60, 61-90, and over 90 days (whole days)."""
    days = (now - oldest_unpaid_at).days
    if days <= 30:
        return AgeingBucket.CURRENT
    if days <= 60:
        return AgeingBucket.DAYS_31_60
    if days <= 90:
        return AgeingBucket.DAYS_61_90
    return AgeingBucket.OVER_90
