"""The domain's vocabularies exposed as GraphQL enums, under the names clients rely on."""

import strawberry

from domain import enums

DepartmentKind = strawberry.enum(enums.DepartmentKind, name="DepartmentKind")
WorkOrderStatus = strawberry.enum(enums.WorkOrderStatus, name="WorkOrderStatus")
TaskStatus = strawberry.enum(enums.TaskStatus, name="TaskStatus")
TaskAction = strawberry.enum(enums.TaskAction, name="TaskAction")
WorkOrderAction = strawberry.enum(enums.WorkOrderAction, name="WorkOrderAction")
