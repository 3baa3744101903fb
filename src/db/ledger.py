"""The customer ledger: append-only entries, each posted with its event in one statement."""

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Row
from sqlalchemy.ext.asyncio import AsyncConnection

from db import reads
from db.queries import Q
from db.rows import LedgerEntryRow
from domain import idempotency, ledger
from domain.enums import LedgerEntryKind, WorkOrderStatus
from domain.errors import DomainError, ErrorCode
from domain.ledger import EntryContent
from domain.money import Money


@dataclass(frozen=True)
class NewEntry:
    content: EntryContent  # amount already signed (domain.ledger.signed)
    idempotency_key: str
    posted_by: int


@dataclass(frozen=True)
class Posted:
    entry: LedgerEntryRow
    changed: bool


def content_of(row: Row[Any]) -> EntryContent:
    return EntryContent(
        customer_id=row.customer_id,
        work_order_id=row.work_order_id,
        kind=LedgerEntryKind(row.kind),
        amount=Money(row.amount_minor, row.currency),
        memo=row.memo,
    )


async def _repeat(conn: AsyncConnection, new: NewEntry) -> Posted | None:
    """A key already used: the same content is a retry (changed: false), else DUPLICATE."""
    stored = (
        await conn.execute(Q["ledger_entry_by_key"], {"idempotency_key": new.idempotency_key})
    ).first()
    if stored is None:
        return None
    idempotency.repeat(new.idempotency_key, content_of(stored) == new.content, "entry")
    return Posted(await entry(conn, stored.id), changed=False)


async def entry(conn: AsyncConnection, entry_id: int) -> LedgerEntryRow:
    """An entry as every ledger read shows it: with the balance after it."""
    [found] = await reads.ledger_entries(conn, [entry_id])
    return found


async def post_entry(conn: AsyncConnection, new: NewEntry) -> Posted:
    """Append one entry. A retry with the same key and content returns the original."""
    repeated = await _repeat(conn, new)
    if repeated is not None:
        return repeated
    content = new.content
    facts = (
        await conn.execute(
            Q["ledger_post_facts"],
            {"customer_id": content.customer_id, "work_order_id": content.work_order_id},
        )
    ).one()
    if not facts.customer_exists:
        raise DomainError(ErrorCode.NOT_FOUND, "No such customer.", "customerId")
    if content.work_order_id is not None:
        if facts.order_customer_id is None:
            raise DomainError(ErrorCode.NOT_FOUND, "No such work order.", "workOrderId")
        if facts.order_customer_id != content.customer_id:
            raise DomainError(
                ErrorCode.INVALID_INPUT,
                "The work order belongs to another customer.",
                "workOrderId",
            )
        cancelled = facts.order_status == WorkOrderStatus.CANCELLED.value
        refusal = ledger.charge_refusal(content.kind, cancelled)
        if refusal is not None:
            raise refusal
    posted = (
        await conn.execute(
            Q["post_ledger_entry"],
            {
                "customer_id": content.customer_id,
                "work_order_id": content.work_order_id,
                "kind": content.kind.value,
                "amount_minor": content.amount.minor,
                "currency": content.amount.currency,
                "memo": content.memo,
                "idempotency_key": new.idempotency_key,
                "posted_by": new.posted_by,
            },
        )
    ).first()
    if posted is not None:
        return Posted(await entry(conn, posted.id), changed=True)
    # A concurrent post with this key committed between our check and our insert.
    repeated = await _repeat(conn, new)
    assert repeated is not None
    return repeated


async def charge_quote(conn: AsyncConnection, work_order_id: int, posted_by: int) -> Posted:
    """Accounts' "Charge the quote": a CHARGE of the order's current quote, keyed
    quote-charge:<number>:<version>. Once for a quote: asked again before the quote changes
    (at any version of the order), it answers with the charge already posted."""
    order = (await conn.execute(Q["quote_to_charge"], {"work_order_id": work_order_id})).first()
    if order is None:
        raise DomainError(ErrorCode.NOT_FOUND, "No such work order.", "workOrderId")
    if order.charged_entry_id is not None:
        return Posted(await entry(conn, order.charged_entry_id), changed=False)
    cancelled = order.status == WorkOrderStatus.CANCELLED.value
    quote = None if order.quote_minor is None else Money(order.quote_minor, order.quote_currency)
    charged = [Money(order.charged_minor, order.quote_currency)] if quote else []
    refusal = ledger.quote_charge_refusal(quote, charged, cancelled)
    if refusal is not None:
        raise refusal
    assert quote is not None  # refused above otherwise
    content = EntryContent(
        customer_id=order.customer_id,
        work_order_id=order.id,
        kind=LedgerEntryKind.CHARGE,
        amount=ledger.signed(LedgerEntryKind.CHARGE, quote),
        memo=f"Quote of {order.order_number}",
    )
    key = f"{ledger.QUOTE_CHARGE_KEYS}{order.order_number}:{order.version}"
    return await post_entry(conn, NewEntry(content, key, posted_by))
