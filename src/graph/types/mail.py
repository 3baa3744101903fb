"""The emails the shop sent or is sending (admins; Sales, an order's): what each was about,
to whom, how its attempts went, and whether the caller may send it again."""

from datetime import datetime

import strawberry
from strawberry import relay

from db.rows import MailMessageRow
from domain.mail import MailCommand, MailKind, resendable
from domain.outbox import DeliveryStatus
from graph.context import Info
from graph.permissions import SALES, passes
from graph.types import enums as _registered  # noqa: F401  (MailKind, WebhookDeliveryStatus)

# The rule of each email command: its mutation declares it from here, and allowedActions
# offers only what the caller passes (and the email's state allows).
MAIL_RULES = {MailCommand.RESEND: SALES}


@strawberry.type(description="One email: one event told to one recipient.")
class MailMessage(relay.Node):
    id: relay.NodeID[int]
    kind: MailKind = strawberry.field(description="What the email tells, and so to whom.")
    recipient: str = strawberry.field(description="The address it goes to.")
    order_number: str = strawberry.field(description="The work order it is about.")
    subject: str | None = strawberry.field(description="Null until its first attempt.")
    status: DeliveryStatus = strawberry.field(
        description="Whether it went, waits for an attempt, or gave up."
    )
    attempts: int = strawberry.field(description="How many times sending it was tried.")
    error: str | None = strawberry.field(
        description="Why the last attempt failed, when it did (no connection, the mail "
        "server's answer)."
    )
    last_attempt_at: datetime | None = strawberry.field(
        description="When it was last tried; null before the first attempt."
    )
    next_attempt_at: datetime | None = strawberry.field(
        description="When it is tried next; null unless PENDING."
    )
    sent_at: datetime | None = strawberry.field(description="When the mail server took it.")
    created_at: datetime = strawberry.field(description="When it was made.")

    @strawberry.field(
        description="What the caller may ask of this email (RESEND: resendMailMessage, once "
        "it went or died, or while it waits for a retry): the buttons a screen shows."
    )
    def allowed_actions(self, info: Info) -> list[MailCommand]:
        if not resendable(self.status, self.attempts):
            return []
        return [command for command, rule in MAIL_RULES.items() if passes(rule, info)]

    @classmethod
    def of(cls, row: MailMessageRow) -> "MailMessage":
        pending = row.status == DeliveryStatus.PENDING
        return cls(
            id=row.id,
            kind=MailKind(row.kind),
            recipient=row.recipient,
            order_number=row.order_number,
            subject=row.subject,
            status=DeliveryStatus(row.status),
            attempts=row.attempts,
            error=row.error,
            last_attempt_at=row.last_attempt_at,
            next_attempt_at=row.next_attempt_at if pending else None,
            sent_at=row.sent_at,
            created_at=row.created_at,
        )


@strawberry.type
class MailMessageConnection(relay.Connection[MailMessage]):
    pass
