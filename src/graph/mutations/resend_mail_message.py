"""resendMailMessage (Sales, admins): send one email again, once it went or died, or now
rather than at its retry."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db import mail
from domain.errors import DomainError, ErrorCode
from domain.mail import MailCommand, resendable
from domain.outbox import DeliveryStatus
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import allowed
from graph.types.mail import MAIL_RULES, MailMessage


@strawberry.input
class ResendMailMessageInput:
    message_id: relay.GlobalID = strawberry.field(description="The email to send again.")


@strawberry.type
class ResendMailMessagePayload:
    message: MailMessage | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(MAIL_RULES[MailCommand.RESEND]),
    description="The email is PENDING again with a fresh count of attempts and goes out as "
    "soon as the mail outbox comes by, made anew (a proof's with a new customer link) to "
    "the same recipient with the same Message-ID: a dead one after its address or the mail "
    "server was put right, a sent one the customer lost, or one waiting for a retry now. "
    "One whose first attempt is still to come is on its way: INVALID_TRANSITION.",
)
async def resend_mail_message(
    info: Info, input: ResendMailMessageInput
) -> ResendMailMessagePayload:
    async def work(conn: AsyncConnection) -> ResendMailMessagePayload:
        message_id = require_id(input.message_id, "MailMessage", "messageId")
        found = await mail.for_update(conn, message_id)
        if found is None:
            raise DomainError(ErrorCode.NOT_FOUND, "No such email.", "messageId")
        if not resendable(DeliveryStatus(found.status), found.attempts):
            raise DomainError(
                ErrorCode.INVALID_TRANSITION,
                "This email is on its way: its first attempt is still to come.",
                "messageId",
            )
        return ResendMailMessagePayload(message=MailMessage.of(await mail.resend(conn, message_id)))

    return await mutate(info, ResendMailMessagePayload, work)
