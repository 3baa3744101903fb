"""rotateWebhookSecret (admins): a new signing secret, shown once; the old one stops at once."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db import webhooks
from domain import webhooks as rules
from domain.errors import DomainError, ErrorCode
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import ADMINS, allowed
from graph.types.webhooks import Webhook


@strawberry.input
class RotateWebhookSecretInput:
    webhook_id: relay.GlobalID = strawberry.field(
        description="The webhook whose secret to replace."
    )


@strawberry.type
class RotateWebhookSecretPayload:
    webhook: Webhook | None = None
    secret: str | None = strawberry.field(
        default=None, description="The new secret, shown only now."
    )
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ADMINS),
    description="Every attempt from now on is signed with the new secret, retries of "
    "earlier deliveries included.",
)
async def rotate_webhook_secret(
    info: Info, input: RotateWebhookSecretInput
) -> RotateWebhookSecretPayload:
    async def work(conn: AsyncConnection) -> RotateWebhookSecretPayload:
        webhook_id = require_id(input.webhook_id, "Webhook", "webhookId")
        secret = rules.new_secret()
        row = await webhooks.rotate_secret(conn, webhook_id, secret)
        if row is None:
            raise DomainError(ErrorCode.NOT_FOUND, "No such webhook.", "webhookId")
        return RotateWebhookSecretPayload(webhook=Webhook.of(row), secret=secret)

    return await mutate(info, RotateWebhookSecretPayload, work)
