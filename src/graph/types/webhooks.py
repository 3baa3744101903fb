"""Webhooks (admins) and their deliveries."""

from datetime import datetime

import strawberry
from strawberry import relay

from db import webhooks
from db.rows import WebhookDeliveryRow, WebhookRow
from domain.enums import EventType
from domain.outbox import DeliveryStatus
from domain.webhooks import message_id
from graph.context import Info
from graph.types import enums as _registered  # noqa: F401  (EventKind, WebhookDeliveryStatus)
from graph.types.departments import Department
from graph.types.people import User


@strawberry.type(
    description="Sends the events of its kinds to a URL, in commit order, signed per "
    "Standard Webhooks with its secret (shown once, by createWebhook and "
    "rotateWebhookSecret)."
)
class Webhook(relay.Node):
    id: relay.NodeID[int]
    url: str = strawberry.field(description="The address it POSTs events to.")
    description: str | None = strawberry.field(description="What it is for; null when none.")
    event_kinds: list[EventType] = strawberry.field(description="The kinds of events it sends.")
    enabled: bool = strawberry.field(
        description="Whether it sends; false once an admin or a failing receiver stopped it."
    )
    disabled_reason: str | None = strawberry.field(
        description="Why it stopped sending: an admin turned it off, its receiver answered "
        "410 Gone, or every attempt failed for PRESSROOM_WEBHOOK_DISABLE_AFTER_DAYS."
    )
    failing_since: datetime | None = strawberry.field(
        description="Since when every attempt has failed (null: the last one went through); "
        "turned off once that is PRESSROOM_WEBHOOK_DISABLE_AFTER_DAYS ago."
    )
    created_at: datetime = strawberry.field(description="When it was made.")
    version: int = strawberry.field(description="Rises with every change.")
    _department_ids: strawberry.Private[list[int] | None]
    _created_by: strawberry.Private[int]

    @classmethod
    def of(cls, row: WebhookRow) -> "Webhook":
        return cls(
            id=row.id,
            url=row.url,
            description=row.description,
            event_kinds=[EventType(k) for k in row.event_kinds],
            enabled=row.enabled,
            disabled_reason=row.disabled_reason,
            failing_since=row.failing_since,
            created_at=row.created_at,
            version=row.version,
            _department_ids=row.department_ids,
            _created_by=row.created_by,
        )

    @strawberry.field(
        description="The departments whose events it sends; null: every department. Events "
        "about no department (an order's due date, a ledger entry) are sent either way."
    )
    async def departments(self, info: Info) -> list[Department] | None:
        if self._department_ids is None:
            return None
        rows = await info.context.loaders.department.load_many(self._department_ids)
        return [Department.of(r) for r in rows if r is not None]

    @strawberry.field(description="Who made it.")
    async def created_by(self, info: Info) -> User:
        row = await info.context.loaders.user.load(self._created_by)
        assert row is not None
        return User.of(row)

    @strawberry.field(
        description="Deliveries not yet made (waiting for an attempt or a retry), and how "
        "many seconds the oldest of their events has waited."
    )
    async def backlog(self, info: Info) -> "WebhookBacklog":
        async with info.context.read() as conn:
            found = (await webhooks.backlog(conn, [self.id])).get(self.id)
        if found is None:
            return WebhookBacklog(pending=0, lag_seconds=0.0)
        return WebhookBacklog(pending=found.pending, lag_seconds=found.lag_seconds)


@strawberry.type(description="A kind of event a webhook may send, and what it means.")
class WebhookEventKind:
    kind: EventType = strawberry.field(description="The kind, as `eventKinds` names it.")
    label: str = strawberry.field(description="What it means, in words.")


@strawberry.type(description="What a webhook has still to deliver.")
class WebhookBacklog:
    pending: int = strawberry.field(description="Deliveries waiting for an attempt or a retry.")
    lag_seconds: float = strawberry.field(
        description="How many seconds the oldest of their events has waited; 0 when none."
    )


@strawberry.type(description="One event sent (or to be sent) to one webhook.")
class WebhookDelivery(relay.Node):
    id: relay.NodeID[int]
    status: DeliveryStatus = strawberry.field(
        description="Whether it went, waits for an attempt, or gave up."
    )
    event_kind: EventType = strawberry.field(description="The kind of the event sent.")
    message_id: str = strawberry.field(
        description="The `webhook-id` header: the same for every attempt, so receivers drop "
        "what they have already seen."
    )
    occurred_at: datetime | None = strawberry.field(
        description="When its event happened (null once the event left the log)."
    )
    attempts: int = strawberry.field(description="How many times sending it was tried.")
    response_status: int | None = strawberry.field(
        description="The last attempt's HTTP status; null when the receiver did not answer."
    )
    error: str | None = strawberry.field(
        description="Why the last attempt failed, when it did (the status, a timeout, a "
        "refused connection)."
    )
    duration_ms: int | None = strawberry.field(description="How long the last attempt took.")
    last_attempt_at: datetime | None = strawberry.field(
        description="When it was last tried; null before the first attempt."
    )
    next_attempt_at: datetime | None = strawberry.field(
        description="When it is tried next; null unless PENDING."
    )
    delivered_at: datetime | None = strawberry.field(
        description="When the receiver took it; null until then."
    )
    created_at: datetime = strawberry.field(description="When it was queued.")
    _webhook_id: strawberry.Private[int]

    @classmethod
    def of(cls, row: WebhookDeliveryRow) -> "WebhookDelivery":
        pending = row.status == DeliveryStatus.PENDING
        return cls(
            id=row.id,
            status=DeliveryStatus(row.status),
            event_kind=EventType(row.event_type),
            message_id=message_id(row.event_id),
            occurred_at=row.event_occurred_at,
            attempts=row.attempts,
            response_status=row.response_status,
            error=row.error,
            duration_ms=row.duration_ms,
            last_attempt_at=row.last_attempt_at,
            next_attempt_at=row.next_attempt_at if pending else None,
            delivered_at=row.delivered_at,
            created_at=row.created_at,
            _webhook_id=row.webhook_id,
        )


@strawberry.type
class WebhookDeliveryConnection(relay.Connection[WebhookDelivery]):
    pass
