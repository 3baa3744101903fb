"""Customer links: a secret address that shows one work order's page to its customer
(routes/customer_page.py). The secret is random (256 bits) and only its SHA-256 is kept,
as for tokens: a leaked table opens no page. A link works until revoked, or until its
expiry: its own, else PRESSROOM_CUSTOMER_LINK_DAYS after its order completes."""

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from db.credentials import token_hash
from db.queries import Q
from db.rows import CustomerLinkRow
from domain.customer_view import LINK_DAYS, link_ends
from domain.enums import WorkOrderStatus
from domain.errors import DomainError, ErrorCode
from domain.validation import expired


def new_secret() -> str:
    """43 URL-safe characters: it stands in a path as it is."""
    return secrets.token_urlsafe(32)


def _link(found: Any, days: int) -> CustomerLinkRow:
    row = CustomerLinkRow.of(found)
    assert row.order_status is not None, "every statement reading links joins its order"
    status = WorkOrderStatus(row.order_status)
    row.ends_at = link_ends(row.expires_at, status, row.order_ended_at, days)
    return row


@dataclass(frozen=True)
class MadeLink:
    secret: str
    link: CustomerLinkRow


async def create(
    conn: AsyncConnection,
    work_order_id: int,
    *,
    created_by: int | None,
    emailed_to: str | None = None,
    expires_at: datetime | None = None,
    days: int = LINK_DAYS,
) -> MadeLink:
    """A new link to the order, made by a person or for an email to `emailed_to`; its
    secret is in the answer only."""
    secret = new_secret()
    params = {
        "work_order_id": work_order_id,
        "secret_hash": token_hash(secret),
        "created_by": created_by,
        "emailed_to": emailed_to,
        "expires_at": expires_at,
    }
    found = (await conn.execute(Q["insert_customer_link"], params)).first()
    if found is None:
        raise DomainError(ErrorCode.NOT_FOUND, "No such work order.", "workOrderId")
    return MadeLink(secret, _link(found, days))


async def of_work_orders(
    conn: AsyncConnection, ids: Sequence[int], days: int = LINK_DAYS
) -> list[CustomerLinkRow]:
    """The orders' links, newest first within each order."""
    found = await conn.execute(Q["customer_links_of_work_orders"], {"ids": list(ids)})
    return [_link(row, days) for row in found]


async def revoke(
    conn: AsyncConnection, link_id: int, revoked_by: int, days: int = LINK_DAYS
) -> CustomerLinkRow:
    """The link stops working at once; INVALID_TRANSITION if it already was revoked."""
    params = {"id": link_id, "revoked_by": revoked_by}
    found = (await conn.execute(Q["revoke_customer_link"], params)).first()
    if found is not None:
        return _link(found, days)
    state = (await conn.execute(Q["customer_link_exists"], {"id": link_id})).first()
    if state is None:
        raise DomainError(ErrorCode.NOT_FOUND, "No such customer link.", "id")
    raise DomainError(ErrorCode.INVALID_TRANSITION, "The link is already revoked.", "id")


@dataclass(frozen=True)
class Opened:
    """What a secret names: its link, and whether it works now (revoked and expired links
    are found, so that their page can say so)."""

    link: CustomerLinkRow
    works: bool


async def open_link(conn: AsyncConnection, secret: str, days: int = LINK_DAYS) -> Opened | None:
    """The link `secret` names (None: no link has it), marked used when it works."""
    found = (
        await conn.execute(Q["customer_link_by_secret"], {"secret_hash": token_hash(secret)})
    ).first()
    if found is None:
        return None
    link = _link(found, days)
    works = link.revoked_at is None and not expired(link.ends_at, datetime.now(UTC))
    if works:
        await conn.execute(Q["touch_customer_link"], {"id": link.id})
    return Opened(link, works)


async def orders_awaiting_customer(conn: AsyncConnection) -> list[int]:
    """The orders whose latest proof waits for the customer: those a link is sent for."""
    return list((await conn.execute(Q["orders_awaiting_customer"])).scalars())
