"""rotatePaymentInboxSecret (admins): a new secret, shown once; the old one stays good for
an overlap, while the provider changes over."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db import payment_inboxes
from domain import payments
from domain import webhooks as signing
from domain.errors import DomainError, ErrorCode
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import ADMINS, allowed
from graph.types.payment_inboxes import PaymentInbox


@strawberry.input
class RotatePaymentInboxSecretInput:
    inbox_id: relay.GlobalID = strawberry.field(
        description="The payment inbox whose secret to replace."
    )
    overlap_hours: int = strawberry.field(
        default=payments.OVERLAP_HOURS,
        description="How long the old secret stays good besides the new one (0: it stops "
        f"at once; at most {payments.MAX_OVERLAP_HOURS}). A second rotation within it ends "
        "the first old secret.",
    )


@strawberry.type
class RotatePaymentInboxSecretPayload:
    inbox: PaymentInbox | None = None
    secret: str | None = strawberry.field(
        default=None, description="The new secret, shown only now."
    )
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ADMINS),
    description="Notifications signed with the new secret are taken at once, and those "
    "signed with the old one until the overlap ends (PaymentInbox.previousSecretValidUntil).",
)
async def rotate_payment_inbox_secret(
    info: Info, input: RotatePaymentInboxSecretInput
) -> RotatePaymentInboxSecretPayload:
    async def work(conn: AsyncConnection) -> RotatePaymentInboxSecretPayload:
        inbox_id = require_id(input.inbox_id, "PaymentInbox", "inboxId")
        overlap = payments.overlap(input.overlap_hours)
        secret = signing.new_secret()
        row = await payment_inboxes.rotate_secret(conn, inbox_id, secret, overlap)
        if row is None:
            raise DomainError(ErrorCode.NOT_FOUND, "No such payment inbox.", "inboxId")
        return RotatePaymentInboxSecretPayload(inbox=PaymentInbox.of(row), secret=secret)

    return await mutate(info, RotatePaymentInboxSecretPayload, work)
