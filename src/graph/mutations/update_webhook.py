"""updateWebhook (admins): its URL, kinds, departments, description, or whether it sends."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db import people, webhooks
from domain import validation
from domain import webhooks as rules
from domain.enums import EventType
from domain.errors import DomainError, ErrorCode
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import ADMINS, allowed
from graph.types.webhooks import Webhook
from workers.webhook_targets import reachable, written


@strawberry.input(description="What is given replaces what was; what is left out stays.")
class UpdateWebhookInput:
    webhook_id: relay.GlobalID = strawberry.field(description="The webhook to change.")
    url: str | None = strawberry.field(
        default=None, description="The new address to POST to; null keeps it."
    )
    event_kinds: list[EventType] | None = strawberry.field(
        default=None, description="The new kinds to send, replacing the old; null keeps them."
    )
    department_codes: list[str] | None = strawberry.field(
        default=strawberry.UNSET,
        description="Only these departments' events; null: every department.",
    )
    description: str | None = strawberry.field(
        default=strawberry.UNSET, description="Empty or null clears it."
    )
    enabled: bool | None = strawberry.field(
        default=None,
        description="false stops sending; true sends again from where it stopped, the "
        "events that came meanwhile included.",
    )


@strawberry.type
class UpdateWebhookPayload:
    webhook: Webhook | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ADMINS),
    description="Changes a webhook's address, kinds of events, departments or description; what "
    "is not given stays.",
)
async def update_webhook(info: Info, input: UpdateWebhookInput) -> UpdateWebhookPayload:
    async def work(conn: AsyncConnection) -> UpdateWebhookPayload:
        policy = info.context.services.webhooks
        codes = input.department_codes
        with validation.every_problem() as check:
            webhook_id = check(require_id, input.webhook_id, "Webhook", "webhookId")
            if input.url is not None:
                check(written, policy, input.url)
            kinds = None if input.event_kinds is None else check(rules.kinds, input.event_kinds)
            if codes is not None and codes is not strawberry.UNSET:
                codes = check(validation.codes, codes)
            description = check(rules.description, input.description or None)
        url = None
        if input.url is not None:
            url = (await reachable(policy, input.url)).url
        changes = webhooks.Changes(
            url=url,
            event_kinds=kinds,
            enabled=input.enabled,
            set_departments=input.department_codes is not strawberry.UNSET,
            department_ids=await _department_ids(conn, codes),
            set_description=input.description is not strawberry.UNSET,
            description=description,
        )
        row = await webhooks.update(conn, webhook_id, changes)
        if row is None:
            raise DomainError(ErrorCode.NOT_FOUND, "No such webhook.", "webhookId")
        return UpdateWebhookPayload(webhook=Webhook.of(row))

    return await mutate(info, UpdateWebhookPayload, work)


async def _department_ids(conn: AsyncConnection, codes: list[str] | None) -> list[int] | None:
    if codes is None or codes is strawberry.UNSET:
        return None
    return [d.id for d in await people.departments_by_codes(conn, codes)]
