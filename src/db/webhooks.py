"""Webhooks and their deliveries: what admins manage, and the relay's claims and writes.

Each webhook follows the event log by its own cursor (`follow`: one statement turns the
next events of its kinds into deliveries and moves the cursor past what it read). The
process that holds a webhook's lease (`claim`, FOR UPDATE SKIP LOCKED) sends its pending
deliveries in commit order and writes each attempt (`attempted`) only while it still holds
the lease, which each write lengthens. A process that dies lets its lease run out; another
takes the webhook over and sends what was not written as sent.
"""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from db.events import StoredEvent, from_row
from db.queries import Q
from db.rows import WebhookDeliveryRow, WebhookRow
from domain.enums import EventType
from domain.outbox import DeliveryStatus
from domain.webhooks import TURNED_OFF, Policy


@dataclass(frozen=True)
class NewWebhook:
    url: str
    description: str | None
    event_kinds: list[EventType]
    department_ids: list[int] | None
    secret: str
    created_by: int


@dataclass(frozen=True)
class Changes:
    """What updateWebhook changes; None keeps what is there (departments and description
    are changed only when `set_*`, since None means "every department" and "none")."""

    url: str | None = None
    event_kinds: list[EventType] | None = None
    enabled: bool | None = None
    set_departments: bool = False
    department_ids: list[int] | None = None
    set_description: bool = False
    description: str | None = None


async def create(conn: AsyncConnection, new: NewWebhook) -> WebhookRow:
    params = {
        "url": new.url,
        "description": new.description,
        "event_kinds": [k.value for k in new.event_kinds],
        "department_ids": new.department_ids,
        "secret": new.secret,
        "created_by": new.created_by,
    }
    return WebhookRow.of((await conn.execute(Q["insert_webhook"], params)).one())


async def everyone(conn: AsyncConnection) -> list[WebhookRow]:
    return WebhookRow.all(await conn.execute(Q["webhooks_all"]))


async def by_ids(conn: AsyncConnection, ids: list[int]) -> list[WebhookRow]:
    return WebhookRow.all(await conn.execute(Q["webhooks_by_ids"], {"ids": ids}))


async def update(conn: AsyncConnection, webhook_id: int, changes: Changes) -> WebhookRow | None:
    params = {
        "id": webhook_id,
        "url": changes.url,
        "event_kinds": None
        if changes.event_kinds is None
        else [k.value for k in changes.event_kinds],
        "enabled": changes.enabled,
        "disabled_reason": TURNED_OFF if changes.enabled is False else None,
        "set_departments": changes.set_departments,
        "department_ids": changes.department_ids,
        "set_description": changes.set_description,
        "description": changes.description,
    }
    return WebhookRow.maybe((await conn.execute(Q["update_webhook"], params)).first())


async def rotate_secret(conn: AsyncConnection, webhook_id: int, secret: str) -> WebhookRow | None:
    found = await conn.execute(Q["rotate_webhook_secret"], {"id": webhook_id, "secret": secret})
    return WebhookRow.maybe(found.first())


async def delete(conn: AsyncConnection, webhook_id: int) -> bool:
    return (await conn.execute(Q["delete_webhook"], {"id": webhook_id})).first() is not None


async def deliveries_page(
    conn: AsyncConnection,
    webhook_id: int,
    *,
    status: DeliveryStatus | None,
    after_id: int | None,
    limit: int,
    backward: bool = False,
) -> list[WebhookDeliveryRow]:
    params = {
        "webhook_id": webhook_id,
        "status": status.value if status else None,
        "after_id": after_id,
        "limit": limit,
        "backward": backward,
    }
    return WebhookDeliveryRow.all(await conn.execute(Q["webhook_deliveries_page"], params))


async def delivery(conn: AsyncConnection, delivery_id: int) -> WebhookDeliveryRow | None:
    found = await conn.execute(Q["webhook_delivery_by_id"], {"id": delivery_id})
    return WebhookDeliveryRow.maybe(found.first())


async def redeliver(conn: AsyncConnection, delivery_id: int) -> bool | None:
    """Whether the delivery is PENDING again: False when its event has been pruned from
    the log (there is nothing to send), None when there is no such delivery."""
    found = (await conn.execute(Q["redeliver_webhook_delivery"], {"id": delivery_id})).first()
    return None if found is None else bool(found.kept)


@dataclass(frozen=True)
class Backlog:
    pending: int
    lag_seconds: float


async def backlog(conn: AsyncConnection, ids: list[int]) -> dict[int, Backlog]:
    rows = await conn.execute(Q["webhook_backlog"], {"ids": ids})
    return {r.id: Backlog(int(r.pending), float(r.lag_seconds)) for r in rows}


# The relay's side.


@dataclass(frozen=True)
class Claimed:
    """A webhook as its holder claimed it (`version`: as it was then)."""

    id: int
    url: str
    secret: str
    created_by: int
    version: int


@dataclass(frozen=True)
class Pending:
    delivery_id: int
    attempts: int
    body: str | None
    due: bool
    event: StoredEvent


async def claim(
    conn: AsyncConnection, owner: str, lease_seconds: float, limit: int
) -> list[Claimed]:
    params = {"owner": owner, "lease_seconds": lease_seconds, "limit": limit}
    rows = await conn.execute(Q["claim_webhooks"], params)
    return [Claimed(r.id, r.url, r.secret, r.created_by, r.version) for r in rows]


async def release(conn: AsyncConnection, webhook_id: int, owner: str) -> None:
    await conn.execute(Q["release_webhook"], {"id": webhook_id, "owner": owner})


async def follow(conn: AsyncConnection, hook: Claimed, owner: str, limit: int) -> int:
    """Deliveries made of the next events after the webhook's cursor; how many events
    were read (fewer than `limit`: the webhook has caught up with the log)."""
    params = {"id": hook.id, "owner": owner, "version": hook.version, "limit": limit}
    return int((await conn.execute(Q["follow_webhook"], params)).one().read)


async def next_deliveries(conn: AsyncConnection, webhook_id: int, limit: int) -> list[Pending]:
    rows = await conn.execute(Q["webhook_next_deliveries"], {"id": webhook_id, "limit": limit})
    return [Pending(r.delivery_id, r.attempts, r.body, r.due, from_row(r)) for r in rows]


@dataclass(frozen=True)
class Attempt:
    delivery_id: int
    status: DeliveryStatus
    response_status: int | None
    error: str | None
    duration_ms: int
    # The body sent (kept from the first attempt on); None when none could be made.
    body: str | None
    # Seconds until the next attempt, for a delivery still PENDING.
    retry_in: float | None


@dataclass(frozen=True)
class Written:
    # False when the lease was lost meanwhile, or the webhook changed: nothing was written.
    held: bool
    # Since when every attempt has failed, when that is longer than the policy allows.
    failing_too_long_since: datetime | None


async def attempted(
    conn: AsyncConnection,
    hook: Claimed,
    owner: str,
    policy: Policy,
    attempts: list[Attempt],
) -> Written:
    """The attempts written, in order, and since when the webhook has failed."""
    params: dict[str, Any] = {
        "webhook_id": hook.id,
        "version": hook.version,
        "owner": owner,
        "lease_seconds": policy.lease_seconds,
        "last_failed": attempts[-1].status is not DeliveryStatus.DELIVERED,
        "any_delivered": any(a.status is DeliveryStatus.DELIVERED for a in attempts),
        "disable_after_seconds": policy.disable_after_days * 86400,
        "ids": [a.delivery_id for a in attempts],
        "statuses": [a.status.value for a in attempts],
        "response_statuses": [a.response_status for a in attempts],
        "errors": [a.error for a in attempts],
        "durations": [a.duration_ms for a in attempts],
        "bodies": [a.body for a in attempts],
        "retry_ins": [a.retry_in for a in attempts],
    }
    written = (await conn.execute(Q["webhook_deliveries_attempted"], params)).all()
    too_long = written[0].failing_since if written and written[0].too_long else None
    return Written(len(written) == len(attempts), too_long)


async def disable(conn: AsyncConnection, webhook_id: int, reason: str) -> None:
    """Stopped by itself (not by an admin): a WEBHOOK_DISABLED event says so."""
    await conn.execute(Q["disable_webhook"], {"id": webhook_id, "reason": reason})
