"""rescheduleWorkOrder (Sales or admin): the due date and priority; every queue re-sorts."""

from datetime import UTC, datetime

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db.schedule import reschedule
from domain import validation
from domain.enums import WorkOrderCommand, WorkOrderPriority
from domain.warnings import due_notices
from graph.context import Info
from graph.errors import PayloadWarning, UserError
from graph.mutations.base import mutate
from graph.permissions import allowed, viewer_of
from graph.types.work_order_commands import ORDER_RULES
from graph.types.work_orders import WorkOrder


@strawberry.input
class RescheduleWorkOrderInput:
    work_order_id: relay.GlobalID = strawberry.field(description="The work order to reschedule.")
    due_at: datetime | None = strawberry.field(
        description="The new due date (null for none): from 2000, at most 5 years ahead."
    )
    priority: WorkOrderPriority = strawberry.field(description="The new priority.")
    expected_version: int | None = strawberry.field(
        default=None, description="When given, the change applies only at this version."
    )


@strawberry.type
class RescheduleWorkOrderPayload:
    work_order: WorkOrder | None = None
    changed: bool = False
    user_errors: list[UserError] = strawberry.field(default_factory=list)
    warnings: list[PayloadWarning] = strawberry.field(
        default_factory=list, description="What to know of the new schedule (DUE_IN_PAST)."
    )


@strawberry.mutation(
    extensions=allowed(ORDER_RULES[WorkOrderCommand.RESCHEDULE]),
    description="Set a work order's due date and priority (the same again changes nothing).",
)
async def reschedule_work_order(
    info: Info, input: RescheduleWorkOrderInput
) -> RescheduleWorkOrderPayload:
    async def work(conn: AsyncConnection) -> RescheduleWorkOrderPayload:
        with validation.every_problem() as check:
            work_order_id = check(require_id, input.work_order_id, "WorkOrder", "workOrderId")
            due_at = check(validation.due_at, input.due_at)
        done = await reschedule(
            conn,
            work_order_id,
            due_at,
            input.priority,
            input.expected_version,
            viewer_of(info).user_id,
            info.context.services.due_soon,
        )
        return RescheduleWorkOrderPayload(
            work_order=WorkOrder.of(done.order),
            changed=done.changed,
            warnings=PayloadWarning.of(due_notices(done.order.due_at, datetime.now(UTC))),
        )

    return await mutate(info, RescheduleWorkOrderPayload, work)
