"""createPaymentInbox (admins): a door for one payment provider's notifications."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection

from db import payment_inboxes
from domain import validation
from domain import webhooks as signing
from domain.money import currency_code
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import ADMINS, allowed, viewer_of
from graph.types.payment_inboxes import PaymentInbox


@strawberry.input
class CreatePaymentInboxInput:
    name: str = strawberry.field(
        description="Lowercase slug, unique: the inbox's address is /hooks/payments/<name>."
    )
    currency: str = strawberry.field(description="ISO 4217: the only currency it takes.")


@strawberry.type
class CreatePaymentInboxPayload:
    inbox: PaymentInbox | None = None
    secret: str | None = strawberry.field(
        default=None,
        description="The secret the sender signs with (whsec_...), shown only now.",
    )
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ADMINS),
    description="Notifications POSTed to it, signed with its secret, become PAYMENT ledger "
    "entries, once per webhook-id.",
)
async def create_payment_inbox(
    info: Info, input: CreatePaymentInboxInput
) -> CreatePaymentInboxPayload:
    async def work(conn: AsyncConnection) -> CreatePaymentInboxPayload:
        with validation.every_problem() as check:
            name = check(validation.slug, input.name, "name")
            currency = check(currency_code, input.currency)
        secret = signing.new_secret()
        row = await payment_inboxes.create(
            conn,
            name,
            currency,
            secret,
            viewer_of(info).user_id,
        )
        return CreatePaymentInboxPayload(inbox=PaymentInbox.of(row), secret=secret)

    return await mutate(info, CreatePaymentInboxPayload, work)
