"""Payment inboxes: a sender's door for payment notifications (graph/payment_inbox.py), and
the requests each received."""

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


async def by_name(conn: AsyncConnection, name: str) -> PaymentInboxRow | None:
    found = await conn.execute(Q["payment_inbox_by_name"], {"name": name})
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
) -> None:
    """A request the inbox answered, as it answered it."""
    params = {
        "inbox_id": inbox_id,
        "message_id": message_id,
        "status": status,
        "error": error,
        "entry_id": entry_id,
    }
    await conn.execute(Q["insert_payment_inbox_request"], params)


async def requests(
    conn: AsyncConnection, inbox_id: int, limit: int
) -> list[PaymentInboxRequestRow]:
    rows = await conn.execute(
        Q["payment_inbox_requests_page"], {"inbox_id": inbox_id, "limit": limit}
    )
    return PaymentInboxRequestRow.all(rows)
