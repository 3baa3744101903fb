"""updatePaymentInbox (admins): whether it takes notifications."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db import payment_inboxes
from domain.errors import DomainError, ErrorCode
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import ADMINS, allowed
from graph.types.payment_inboxes import PaymentInbox


@strawberry.input
class UpdatePaymentInboxInput:
    inbox_id: relay.GlobalID = strawberry.field(description="The payment inbox to change.")
    enabled: bool = strawberry.field(
        description="false: every notification is refused as if no inbox had its name "
        "(401), and none is kept; true takes them again (a provider's retries included)."
    )


@strawberry.type
class UpdatePaymentInboxPayload:
    inbox: PaymentInbox | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ADMINS),
    description="Turns a payment inbox off (it refuses every notification) or on again.",
)
async def update_payment_inbox(
    info: Info, input: UpdatePaymentInboxInput
) -> UpdatePaymentInboxPayload:
    async def work(conn: AsyncConnection) -> UpdatePaymentInboxPayload:
        inbox_id = require_id(input.inbox_id, "PaymentInbox", "inboxId")
        row = await payment_inboxes.set_enabled(conn, inbox_id, input.enabled)
        if row is None:
            raise DomainError(ErrorCode.NOT_FOUND, "No such payment inbox.", "inboxId")
        return UpdatePaymentInboxPayload(inbox=PaymentInbox.of(row))

    return await mutate(info, UpdatePaymentInboxPayload, work)
