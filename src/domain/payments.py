"""A payment notification as a sender posts it to a payment inbox, read and checked.

The JSON: `{"customerId" or "workOrderId", "amount", "currency", "paidAt", "reference"}`
(ids are the API's global ids). It becomes a PAYMENT ledger entry keyed
`inbox:<name>:<webhook-id>`, so a sender's redelivery posts once; no person's key begins
so (domain.ledger.person_key).
"""

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from domain import ledger
from domain.money import Money, parse_money
from domain.validation import invalid, label, text

MAX_REFERENCE = 200
# After a rotation, how long the secret before it stays good by default, and at most: a
# provider may take a day or two to change the secret it signs with.
OVERLAP_HOURS = 24
MAX_OVERLAP_HOURS = 24 * 30


@dataclass(frozen=True)
class Notice:
    customer_id: str | None
    work_order_id: str | None
    amount: Money
    paid_at: datetime
    reference: str


def _text_or_none(body: dict[str, Any], field: str) -> str | None:
    value = body.get(field)
    if value is not None and not isinstance(value, str):
        raise invalid(f"The {label(field)} must be a text (an id from the API).", field)
    return value


def notice(body: Any, currency: str) -> Notice:
    """The notification in `body` (parsed JSON) for an inbox in `currency`."""
    if not isinstance(body, dict):
        raise invalid("The body must be a JSON object.", "body")
    customer_id = _text_or_none(body, "customerId")
    work_order_id = _text_or_none(body, "workOrderId")
    if customer_id is None and work_order_id is None:
        raise invalid("Name the customer or the work order the payment is for.", "customerId")
    given = body.get("currency")
    if given != currency:
        raise invalid(f"This inbox takes payments in {currency}, not '{given or ''}'.", "currency")
    raw = body.get("amount")
    if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
        raise invalid('The amount must be a decimal number such as "120.50".', "amount")
    try:
        amount = parse_money(Decimal(str(raw)), currency, None)
    except InvalidOperation:
        raise invalid(
            f'The amount must be a decimal number such as "120.50", not "{raw}".', "amount"
        ) from None
    if amount.minor <= 0:
        raise invalid("The amount must be more than zero.", "amount")
    paid = body.get("paidAt")
    try:
        paid_at = datetime.fromisoformat(paid) if isinstance(paid, str) else None
    except ValueError:
        paid_at = None
    if paid_at is None or paid_at.tzinfo is None:
        raise invalid("Give the moment it was paid with its time zone (ISO 8601).", "paidAt")
    reference = body.get("reference")
    if not isinstance(reference, str):
        raise invalid("The reference must be a text (the payment's reference).", "reference")
    return Notice(
        customer_id=customer_id,
        work_order_id=work_order_id,
        amount=amount,
        paid_at=paid_at,
        reference=text(reference, "reference", max_len=MAX_REFERENCE),
    )


def memo(inbox: str, n: Notice) -> str:
    """What the entry says: the sender's reference, when it was paid, through which inbox."""
    return f"{n.reference}, paid {n.paid_at.isoformat(timespec='minutes')} (via {inbox})"


def idempotency_key(inbox: str, message_id: str) -> str:
    return f"{ledger.INBOX_KEYS}{inbox}:{message_id}"


def overlap(hours: int) -> timedelta:
    """How long an inbox's secret stays good after a rotation."""
    if not 0 <= hours <= MAX_OVERLAP_HOURS:
        raise invalid(
            f"Keep the old secret from 0 hours (it stops at once) to {MAX_OVERLAP_HOURS} hours.",
            "overlapHours",
        )
    return timedelta(hours=hours)
