"""deleteWebhook (admins): it stops, and its deliveries go with it."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import encode_id, require_id
from db import webhooks
from domain.errors import DomainError, ErrorCode
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import ADMINS, allowed


@strawberry.input
class DeleteWebhookInput:
    webhook_id: relay.GlobalID = strawberry.field(description="The webhook to delete.")


@strawberry.type
class DeleteWebhookPayload:
    deleted_webhook_id: strawberry.ID | None = strawberry.field(
        default=None,
        description="The id of the webhook deleted; null when there are `userErrors`.",
    )
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ADMINS), description="Deletes a webhook: it sends nothing more."
)
async def delete_webhook(info: Info, input: DeleteWebhookInput) -> DeleteWebhookPayload:
    async def work(conn: AsyncConnection) -> DeleteWebhookPayload:
        webhook_id = require_id(input.webhook_id, "Webhook", "webhookId")
        if not await webhooks.delete(conn, webhook_id):
            raise DomainError(ErrorCode.NOT_FOUND, "No such webhook.", "webhookId")
        return DeleteWebhookPayload(
            deleted_webhook_id=strawberry.ID(encode_id("Webhook", webhook_id))
        )

    return await mutate(info, DeleteWebhookPayload, work)
