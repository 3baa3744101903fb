"""Registers the domain's vocabularies as GraphQL enums, under the names clients rely on.

Annotations use the domain enums themselves; importing this module makes them
GraphQL enums (strawberry.enum marks the class and returns it unchanged).
"""

import strawberry

from domain import enums
from domain.errors import ErrorCode

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
    enums.AgeingBucket,
):
    strawberry.enum(_enum)

strawberry.enum(ErrorCode, name="UserErrorCode")
