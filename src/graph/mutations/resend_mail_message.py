"""resendMailMessage (admins): send one email again, whatever became of it."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db import mail
from domain.errors import DomainError, ErrorCode
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import ADMINS, allowed
from graph.types.mail import MailMessage


@strawberry.input
class ResendMailMessageInput:
    message_id: relay.GlobalID


@strawberry.type
class ResendMailMessagePayload:
    message: MailMessage | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ADMINS),
    description="The email is PENDING again with a fresh count of attempts and goes out as "
    "soon as the mail outbox comes by, made anew (a proof's with a new customer link) to "
    "the same recipient with the same Message-ID: a dead one after its address or the mail "
    "server was put right.",
)
async def resend_mail_message(
    info: Info, input: ResendMailMessageInput
) -> ResendMailMessagePayload:
    async def work(conn: AsyncConnection) -> ResendMailMessagePayload:
        message_id = require_id(input.message_id, "MailMessage", "messageId")
        row = await mail.resend(conn, message_id)
        if row is None:
            raise DomainError(ErrorCode.NOT_FOUND, "No such email.", "messageId")
        return ResendMailMessagePayload(message=MailMessage.of(row))

    return await mutate(info, ResendMailMessagePayload, work)
