"""Payment inboxes (admins): doors for payment providers' notifications, and what came."""

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry import relay

from db import payment_inboxes
from db.rows import PaymentInboxRequestRow, PaymentInboxRow
from graph.context import Info
from graph.types.ledger import LedgerEntry
from graph.types.pagination import page_size

PATH = "/hooks/payments/"


@strawberry.type(
    description="Where a payment provider POSTs its notifications, signed per Standard "
    "Webhooks with the inbox's secret (shown once, by createPaymentInbox); each becomes a "
    "PAYMENT ledger entry."
)
class PaymentInbox(relay.Node):
    id: relay.NodeID[int]
    name: str = strawberry.field(
        description="What the inbox is for (e.g. the provider's name), for admins."
    )
    currency: str = strawberry.field(description="The only currency it takes.")
    created_at: datetime = strawberry.field(description="When it was made.")
    enabled: bool = strawberry.field(
        description="false: it refuses every notification, as a name no inbox has."
    )
    previous_secret_valid_until: datetime | None = strawberry.field(
        description="Until when the secret before the last rotation is (or was) taken "
        "besides the new one; null when it stopped at once, or there was none."
    )

    @classmethod
    def of(cls, row: PaymentInboxRow) -> "PaymentInbox":
        return cls(
            id=row.id,
            name=row.name,
            currency=row.currency,
            created_at=row.created_at,
            enabled=row.enabled,
            previous_secret_valid_until=row.previous_secret_until,
        )

    @strawberry.field(description="Its address: POST notifications here.")
    def url(self, info: Info) -> str:
        return f"{info.context.services.public_url.rstrip('/')}{PATH}{self.name}"

    @strawberry.field(description="The requests it received, newest first, as answered.")
    async def requests(
        self,
        info: Info,
        first: Annotated[
            int | None,
            strawberry.argument(
                description="How many requests to answer, newest first (20 when not given, at "
                "most 100)."
            ),
        ] = None,
    ) -> list["PaymentInboxRequest"]:
        async with info.context.read() as conn:
            rows = await payment_inboxes.requests(conn, self.id, page_size(first))
        return [PaymentInboxRequest.of(r) for r in rows]


@strawberry.type(description="A notification an inbox received, and its answer.")
class PaymentInboxRequest:
    received_at: datetime = strawberry.field(description="When it arrived.")
    message_id: str | None = strawberry.field(description="Its webhook-id header.")
    status: int = strawberry.field(description="The HTTP status it was answered with.")
    error: str | None = strawberry.field(description="Why it was refused.")
    _entry_id: strawberry.Private[int | None]

    @classmethod
    def of(cls, row: PaymentInboxRequestRow) -> "PaymentInboxRequest":
        return cls(
            received_at=row.received_at,
            message_id=row.message_id,
            status=row.status,
            error=row.error,
            _entry_id=row.entry_id,
        )

    @strawberry.field(description="The ledger entry it posted (or had posted before).")
    async def entry(self, info: Info) -> LedgerEntry | None:
        if self._entry_id is None:
            return None
        row = await info.context.loaders.ledger_entry.load(self._entry_id)
        return LedgerEntry.of(row) if row else None
