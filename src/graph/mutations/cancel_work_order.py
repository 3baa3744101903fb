"""cancelWorkOrder (Sales or admin): terminal; its tasks leave every queue."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db.cancellation import cancel_work_order as cancel
from domain import validation
from domain.enums import WorkOrderCommand
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import allowed, viewer_of
from graph.types.work_order_commands import ORDER_RULES
from graph.types.work_orders import WorkOrder


@strawberry.input
class CancelWorkOrderInput:
    work_order_id: relay.GlobalID = strawberry.field(description="The ACTIVE work order to cancel.")
    reason: str = strawberry.field(description="Why, in words (kept in the order's history).")


@strawberry.type
class CancelWorkOrderPayload:
    work_order: WorkOrder | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ORDER_RULES[WorkOrderCommand.CANCEL]),
    description="Cancels an ACTIVE order for good: its tasks leave every queue.",
)
async def cancel_work_order(info: Info, input: CancelWorkOrderInput) -> CancelWorkOrderPayload:
    async def work(conn: AsyncConnection) -> CancelWorkOrderPayload:
        with validation.every_problem() as check:
            work_order_id = check(require_id, input.work_order_id, "WorkOrder", "workOrderId")
            reason = check(validation.reason, input.reason)
        row = await cancel(conn, work_order_id, viewer_of(info).user_id, reason)
        return CancelWorkOrderPayload(work_order=WorkOrder.of(row))

    return await mutate(info, CancelWorkOrderPayload, work)
