"""createWebhook (admins): a URL that receives the events of the kinds chosen, signed with
a secret shown once."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection

from db import people, webhooks
from domain import validation
from domain import webhooks as rules
from domain.enums import EventType
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import ADMINS, allowed, viewer_of
from graph.types.webhooks import Webhook
from workers.webhook_targets import reachable, written


@strawberry.input
class CreateWebhookInput:
    url: str = strawberry.field(
        description="Where to POST each event: https (http and private addresses only "
        "where PRESSROOM_WEBHOOK_ALLOW_PRIVATE allows)."
    )
    event_kinds: list[EventType] = strawberry.field(
        description="The kinds of events to send (any but TOKEN_REVOKED and USER_ACCESS_CHANGED)."
    )
    department_codes: list[str] | None = strawberry.field(
        default=None,
        description="Only events of these departments' tasks (events about no department "
        "are sent too); null: every department.",
    )
    description: str | None = strawberry.field(
        default=None, description="What the webhook is for, for admins; null when none."
    )


@strawberry.type
class CreateWebhookPayload:
    webhook: Webhook | None = None
    secret: str | None = strawberry.field(
        default=None,
        description="The signing secret (whsec_...), shown only now: receivers verify "
        "each request's webhook-signature with it.",
    )
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ADMINS),
    description="A webhook follows the event log from now on: each event of its kinds is "
    "POSTed to its URL, at least once and in commit order, retried with backoff.",
)
async def create_webhook(info: Info, input: CreateWebhookInput) -> CreateWebhookPayload:
    async def work(conn: AsyncConnection) -> CreateWebhookPayload:
        policy = info.context.services.webhooks
        with validation.every_problem() as check:
            check(written, policy, input.url)
            codes = (
                check(validation.codes, input.department_codes)
                if input.department_codes is not None
                else None
            )
            kinds = check(rules.kinds, input.event_kinds)
            description = check(rules.description, input.description)
        target = await reachable(policy, input.url)
        departments = None
        if codes is not None:
            departments = [d.id for d in await people.departments_by_codes(conn, codes)]
        secret = rules.new_secret()
        new = webhooks.NewWebhook(
            url=target.url,
            description=description,
            event_kinds=kinds,
            department_ids=departments,
            secret=secret,
            created_by=viewer_of(info).user_id,
        )
        row = await webhooks.create(conn, new)
        return CreateWebhookPayload(webhook=Webhook.of(row), secret=secret)

    return await mutate(info, CreateWebhookPayload, work)
