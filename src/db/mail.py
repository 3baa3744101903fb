"""The mail outbox: its claims and writes, and what admins read of its messages.

The outbox follows the event log by its own cursor exactly as a webhook does
(db/webhooks.py): the process holding its lease (`claim`, FOR UPDATE SKIP LOCKED) turns
the next events into messages (`follow`: one statement, which moves the cursor past what
it read), keeps each message's bytes at its first attempt (`composed`) and writes each
attempt (`attempted`) only while it still holds the lease, which each write lengthens.
A process that dies lets its lease run out; another sends what was not written as sent.
"""

from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from db.queries import Q
from db.rows import MailMessageRow
from domain.mail import MailKind
from domain.outbox import DeliveryStatus


async def claim(conn: AsyncConnection, owner: str, lease_seconds: float) -> bool:
    """Whether `owner` holds the outbox now (made at the log's horizon the first time)."""
    await conn.execute(Q["start_mail_outbox"])
    params = {"owner": owner, "lease_seconds": lease_seconds}
    return (await conn.execute(Q["claim_mail_outbox"], params)).first() is not None


async def release(conn: AsyncConnection, owner: str) -> None:
    await conn.execute(Q["release_mail_outbox"], {"owner": owner})


async def follow(
    conn: AsyncConnection,
    owner: str,
    *,
    sales_email: str | None,
    max_age_seconds: float,
    limit: int,
) -> int:
    """Messages made of the next events after the cursor; how many events were read
    (fewer than `limit`: the outbox has caught up with the log)."""
    params = {
        "owner": owner,
        "sales_email": sales_email,
        "max_age_seconds": max_age_seconds,
        "limit": limit,
    }
    return int((await conn.execute(Q["follow_mail_outbox"], params)).one().read)


@dataclass(frozen=True)
class Pending:
    """A message due now, with what its words are made of."""

    id: int
    event_id: int
    kind: MailKind
    recipient: str
    payload: dict[str, Any]
    attempts: int
    # Its bytes, once its first attempt made them.
    message: bytes | None
    work_order_id: int
    order_number: str
    details: dict[str, Any]
    customer_name: str
    proof_version: int | None
    proof_comment: str | None
    proof_decided_by_name: str | None


async def next_messages(conn: AsyncConnection, limit: int) -> list[Pending]:
    rows = await conn.execute(Q["mail_next_messages"], {"limit": limit})
    return [
        Pending(
            id=r.id,
            event_id=r.event_id,
            kind=MailKind(r.kind),
            recipient=r.recipient,
            payload=r.payload,
            attempts=r.attempts,
            message=r.message,
            work_order_id=r.work_order_id,
            order_number=r.order_number,
            details=r.details,
            customer_name=r.customer_name,
            proof_version=r.proof_version,
            proof_comment=r.proof_comment,
            proof_decided_by_name=r.proof_decided_by_name,
        )
        for r in rows
    ]


async def composed(
    conn: AsyncConnection,
    owner: str,
    message_id: int,
    *,
    subject: str,
    message: bytes,
    customer_link_id: int | None,
) -> bool:
    """Keep the message's bytes for every attempt; False when the lease was lost (the
    caller rolls back whatever it made for the message)."""
    params = {
        "id": message_id,
        "owner": owner,
        "subject": subject,
        "message": message,
        "customer_link_id": customer_link_id,
    }
    return (await conn.execute(Q["mail_message_composed"], params)).first() is not None


@dataclass(frozen=True)
class Attempt:
    message_id: int
    status: DeliveryStatus
    error: str | None
    # Seconds until the next attempt, for a message still PENDING.
    retry_in: float | None


async def attempted(
    conn: AsyncConnection, owner: str, lease_seconds: float, attempts: list[Attempt]
) -> bool:
    """The attempts written; False when the lease was lost meanwhile (nothing written)."""
    params = {
        "owner": owner,
        "lease_seconds": lease_seconds,
        "ids": [a.message_id for a in attempts],
        "statuses": [a.status.value for a in attempts],
        "errors": [a.error for a in attempts],
        "retry_ins": [a.retry_in for a in attempts],
    }
    written = (await conn.execute(Q["mail_messages_attempted"], params)).all()
    return len(written) == len(attempts)


async def messages_page(
    conn: AsyncConnection,
    *,
    status: DeliveryStatus | None,
    after_id: int | None,
    limit: int,
    backward: bool = False,
) -> list[MailMessageRow]:
    params = {
        "status": status.value if status else None,
        "after_id": after_id,
        "limit": limit,
        "backward": backward,
    }
    return MailMessageRow.all(await conn.execute(Q["mail_messages_page"], params))


async def of_work_orders(conn: AsyncConnection, ids: list[int]) -> list[MailMessageRow]:
    return MailMessageRow.all(await conn.execute(Q["mail_messages_of_work_orders"], {"ids": ids}))


async def for_update(conn: AsyncConnection, message_id: int) -> MailMessageRow | None:
    """The message, locked for the transaction; None when there is no such message."""
    found = (await conn.execute(Q["mail_message_for_update"], {"id": message_id})).first()
    return MailMessageRow.maybe(found)


async def resend(conn: AsyncConnection, message_id: int) -> MailMessageRow:
    """The message, to be sent again."""
    return MailMessageRow.of(
        (await conn.execute(Q["resend_mail_message"], {"id": message_id})).one()
    )
