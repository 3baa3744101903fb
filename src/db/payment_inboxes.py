"""Payment inboxes: a sender's door for payment notifications (routes/payment_inbox.py), and
the requests each received signed with its secret."""

from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncConnection

from db.queries import Q
from db.rows import PaymentInboxRequestRow, PaymentInboxRow
from domain.errors import DomainError, ErrorCode


async def create(
    conn: AsyncConnection, name: str, currency: str, secret: str, created_by: int
) -> PaymentInboxRow:
    params = {"name": name, "currency": currency, "secret": secret, "created_by": created_by}
    row = (await conn.execute(Q["insert_payment_inbox"], params)).first()
    if row is None:
        raise DomainError(ErrorCode.DUPLICATE, f"A payment inbox named {name} exists.", "name")
    return PaymentInboxRow.of(row)


async def door(conn: AsyncConnection, name: str) -> PaymentInboxRow | None:
    """The enabled inbox named `name`, its previous secret only while still good."""
    found = await conn.execute(Q["payment_inbox_door"], {"name": name})
    return PaymentInboxRow.maybe(found.first())


async def everyone(conn: AsyncConnection) -> list[PaymentInboxRow]:
    return PaymentInboxRow.all(await conn.execute(Q["payment_inboxes_all"]))


async def record(
    conn: AsyncConnection,
    inbox_id: int,
    message_id: str | None,
    status: int,
    error: str | None,
    entry_id: int | None,
    *,
    keep_days: int,
) -> None:
    """A request the inbox answered, as it answered it; the inbox's requests older than
    `keep_days` go (a batch at a time)."""
    params = {
        "inbox_id": inbox_id,
        "message_id": message_id,
        "status": status,
        "error": error,
        "entry_id": entry_id,
        "keep_days": keep_days,
    }
    await conn.execute(Q["insert_payment_inbox_request"], params)


async def rotate_secret(
    conn: AsyncConnection, inbox_id: int, secret: str, overlap: timedelta
) -> PaymentInboxRow | None:
    params = {"id": inbox_id, "secret": secret, "overlap_seconds": int(overlap.total_seconds())}
    found = await conn.execute(Q["rotate_payment_inbox_secret"], params)
    return PaymentInboxRow.maybe(found.first())


async def set_enabled(
    conn: AsyncConnection, inbox_id: int, enabled: bool
) -> PaymentInboxRow | None:
    params = {"id": inbox_id, "enabled": enabled}
    found = await conn.execute(Q["set_payment_inbox_enabled"], params)
    return PaymentInboxRow.maybe(found.first())


async def delete(conn: AsyncConnection, inbox_id: int) -> bool:
    return (await conn.execute(Q["delete_payment_inbox"], {"id": inbox_id})).first() is not None


async def requests(
    conn: AsyncConnection, inbox_id: int, limit: int
) -> list[PaymentInboxRequestRow]:
    rows = await conn.execute(
        Q["payment_inbox_requests_page"], {"inbox_id": inbox_id, "limit": limit}
    )
    return PaymentInboxRequestRow.all(rows)
