"""Registers the domain's vocabularies as GraphQL enums, under the names clients rely on.

Annotations use the domain enums themselves; importing this module makes them
GraphQL enums (strawberry.enum marks the class and returns it unchanged).
"""

import strawberry

from domain import enums
from domain.errors import ErrorCode
from domain.webhooks import DeliveryStatus

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
strawberry.enum(enums.EventType, name="EventKind")
strawberry.enum(
    DeliveryStatus,
    name="WebhookDeliveryStatus",
    description="PENDING: waiting for its first attempt or its next retry; DELIVERED: the "
    "receiver answered 2xx; DEAD: every attempt failed, or the receiver answered 410 Gone.",
)
