"""What the shop exchanges with other systems (admins): webhooks and their deliveries,
payment inboxes, and the emails it sends."""

from typing import Annotated

import strawberry
from strawberry import relay

from api.errors import bad_request
from api.ids import decode_id
from db import mail as db_mail
from db import payment_inboxes as db_payment_inboxes
from db import webhooks as db_webhooks
from domain.outbox import DeliveryStatus
from domain.webhooks import SENDABLE
from domain.words import EVENT_KIND
from graph.context import Info
from graph.permissions import ADMINS, allowed
from graph.types.mail import MailMessage, MailMessageConnection
from graph.types.pagination import Before, Last, by_id, window
from graph.types.payment_inboxes import PaymentInbox
from graph.types.webhooks import (
    Webhook,
    WebhookDelivery,
    WebhookDeliveryConnection,
    WebhookEventKind,
)


@strawberry.field(
    extensions=allowed(ADMINS),
    description="The kinds of events a webhook may send, in words, for a form to offer.",
)
def webhook_event_kinds() -> list[WebhookEventKind]:
    return [WebhookEventKind(kind=k, label=EVENT_KIND[k]) for k in SENDABLE]


@strawberry.field(extensions=allowed(ADMINS), description="Every payment inbox, oldest first.")
async def payment_inboxes(info: Info) -> list[PaymentInbox]:
    async with info.context.read() as conn:
        return [PaymentInbox.of(row) for row in await db_payment_inboxes.everyone(conn)]


@strawberry.field(extensions=allowed(ADMINS), description="Every webhook, oldest first.")
async def webhooks(info: Info) -> list[Webhook]:
    async with info.context.read() as conn:
        return [Webhook.of(row) for row in await db_webhooks.everyone(conn)]


@strawberry.field(
    extensions=allowed(ADMINS),
    description="A webhook's deliveries, newest first; with `status`, only those.",
)
async def webhook_deliveries(
    info: Info,
    webhook_id: Annotated[
        relay.GlobalID, strawberry.argument(description="The webhook whose deliveries to list.")
    ],
    status: Annotated[
        DeliveryStatus | None,
        strawberry.argument(description="Only the deliveries in this state."),
    ] = None,
    first: int | None = None,
    after: str | None = None,
    last: Last = None,
    before: Before = None,
) -> WebhookDeliveryConnection:
    pk = decode_id(webhook_id, "Webhook")
    if pk is None:
        raise bad_request("'webhookId' is not the id of a webhook.")
    page = window(first, after, last, before)
    edges, page_info = await by_id(
        info,
        page,
        db_webhooks.deliveries_page,
        WebhookDelivery.of,
        webhook_id=pk,
        status=status,
    )
    return WebhookDeliveryConnection(edges=edges, page_info=page_info)


@strawberry.field(
    extensions=allowed(ADMINS),
    description="The emails the shop sent or is sending, newest first; with `status`, "
    "only those (DEAD: the ones that never went, and why).",
)
async def mail_messages(
    info: Info,
    status: Annotated[
        DeliveryStatus | None, strawberry.argument(description="Only the emails in this state.")
    ] = None,
    first: int | None = None,
    after: str | None = None,
    last: Last = None,
    before: Before = None,
) -> MailMessageConnection:
    page = window(first, after, last, before)
    edges, page_info = await by_id(info, page, db_mail.messages_page, MailMessage.of, status=status)
    return MailMessageConnection(edges=edges, page_info=page_info)
