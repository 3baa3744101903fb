"""holdWorkOrder (Sales or admin): its pending tasks leave every queue until it resumes."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db.schedule import hold
from domain import validation
from domain.enums import WorkOrderCommand
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import allowed, viewer_of
from graph.types.work_order_commands import ORDER_RULES
from graph.types.work_orders import WorkOrder


@strawberry.input
class HoldWorkOrderInput:
    work_order_id: relay.GlobalID = strawberry.field(
        description="The ACTIVE work order to put on hold."
    )
    reason: str = strawberry.field(description="Why it waits (the proof, a payment, ...).")


@strawberry.type
class HoldWorkOrderPayload:
    work_order: WorkOrder | None = None
    changed: bool = False
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ORDER_RULES[WorkOrderCommand.HOLD]),
    description="Put an ACTIVE work order on hold: its pending tasks leave every queue and "
    "cannot be started; started ones may finish. Holding a held order changes nothing.",
)
async def hold_work_order(info: Info, input: HoldWorkOrderInput) -> HoldWorkOrderPayload:
    async def work(conn: AsyncConnection) -> HoldWorkOrderPayload:
        with validation.every_problem() as check:
            work_order_id = check(require_id, input.work_order_id, "WorkOrder", "workOrderId")
            reason = check(validation.reason, input.reason)
        done = await hold(conn, work_order_id, reason, viewer_of(info).user_id)
        return HoldWorkOrderPayload(work_order=WorkOrder.of(done.order), changed=done.changed)

    return await mutate(info, HoldWorkOrderPayload, work)
