"""deletePaymentInbox (admins): its door closes and its requests go with it; the entries
it posted stay in the ledger."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import encode_id, require_id
from db import payment_inboxes
from domain.errors import DomainError, ErrorCode
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import ADMINS, allowed


@strawberry.input
class DeletePaymentInboxInput:
    inbox_id: relay.GlobalID = strawberry.field(description="The payment inbox to delete.")


@strawberry.type
class DeletePaymentInboxPayload:
    deleted_inbox_id: strawberry.ID | None = strawberry.field(
        default=None, description="The id of the inbox deleted; null when there are `userErrors`."
    )
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ADMINS),
    description="Deletes a payment inbox: its address then refuses every notification.",
)
async def delete_payment_inbox(
    info: Info, input: DeletePaymentInboxInput
) -> DeletePaymentInboxPayload:
    async def work(conn: AsyncConnection) -> DeletePaymentInboxPayload:
        inbox_id = require_id(input.inbox_id, "PaymentInbox", "inboxId")
        if not await payment_inboxes.delete(conn, inbox_id):
            raise DomainError(ErrorCode.NOT_FOUND, "No such payment inbox.", "inboxId")
        return DeletePaymentInboxPayload(
            deleted_inbox_id=strawberry.ID(encode_id("PaymentInbox", inbox_id))
        )

    return await mutate(info, DeletePaymentInboxPayload, work)
