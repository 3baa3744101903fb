"""Registers the domain's vocabularies as GraphQL enums, under the names clients rely on.

Annotations use the domain enums themselves; importing this module makes them
GraphQL enums (strawberry.enum marks the class and returns it unchanged).
"""

import strawberry

from domain import enums
from domain.errors import ErrorCode
from domain.mail import MailCommand, MailKind
from domain.outbox import DeliveryStatus
from domain.warnings import WarningCode

for _enum in (
    enums.DepartmentKind,
    enums.WorkOrderStatus,
    enums.TaskStatus,
    enums.QueueLane,
    enums.WorkOrderPriority,
    enums.WorkOrderOrder,
    enums.TaskAction,
    enums.WorkOrderAction,
    enums.WorkOrderCommand,
    enums.CustomerCommand,
    enums.AgeingBucket,
    enums.ProofStatus,
    enums.ProofDecider,
):
    strawberry.enum(_enum)

strawberry.enum(ErrorCode, name="UserErrorCode")
strawberry.enum(WarningCode, name="UserWarningCode")
strawberry.enum(enums.EventType, name="EventKind")
strawberry.enum(
    DeliveryStatus,
    name="WebhookDeliveryStatus",
    description="A webhook delivery's or an email's state. PENDING: waiting for its first "
    "attempt or its next retry; DELIVERED: the receiver answered 2xx (an email: the mail "
    "server took it); DEAD: every attempt failed, or the receiver refused it for good (410 "
    "Gone; a mail server's 5xx for the recipient).",
)
strawberry.enum(MailCommand)
strawberry.enum(
    MailKind,
    description="What an email tells. PROOF_READY: the customer, that a proof waits for "
    "their approval (with a link to their page); CHANGES_REQUESTED: Sales, that a customer "
    "asked for changes; READY_FOR_PICKUP, OUT_FOR_DELIVERY: the customer, that the order is "
    "done; DUE_LATER: the customer, that the due date moved later.",
)
