"""redeliverWebhookDelivery (admins): send one delivery again, whatever became of it."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db import webhooks
from domain.errors import DomainError, ErrorCode
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import ADMINS, allowed
from graph.types.webhooks import WebhookDelivery

PRUNED = (
    "Its event is no longer in the log (pruned past the event retention): it cannot be sent again."
)


@strawberry.input
class RedeliverWebhookDeliveryInput:
    delivery_id: relay.GlobalID = strawberry.field(description="The delivery to send again.")


@strawberry.type
class RedeliverWebhookDeliveryPayload:
    delivery: WebhookDelivery | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ADMINS),
    description="The delivery is PENDING again with a fresh count of attempts and goes out "
    "with its webhook's next deliveries, ahead of later events; the same body and "
    "webhook-id as before, so a receiver that had it drops it. Not once its event has been "
    "pruned from the log (NOT_FOUND).",
)
async def redeliver_webhook_delivery(
    info: Info, input: RedeliverWebhookDeliveryInput
) -> RedeliverWebhookDeliveryPayload:
    async def work(conn: AsyncConnection) -> RedeliverWebhookDeliveryPayload:
        delivery_id = require_id(input.delivery_id, "WebhookDelivery", "deliveryId")
        redone = await webhooks.redeliver(conn, delivery_id)
        if redone is None:
            raise DomainError(ErrorCode.NOT_FOUND, "No such delivery.", "deliveryId")
        if not redone:
            raise DomainError(ErrorCode.NOT_FOUND, PRUNED, "deliveryId")
        row = await webhooks.delivery(conn, delivery_id)
        assert row is not None
        return RedeliverWebhookDeliveryPayload(delivery=WebhookDelivery.of(row))

    return await mutate(info, RedeliverWebhookDeliveryPayload, work)
