"""resumeWorkOrder (Sales or admin): a held order's pending tasks return to their places."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db.schedule import resume
from domain.enums import WorkOrderCommand
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import allowed, viewer_of
from graph.types.work_order_commands import ORDER_RULES
from graph.types.work_orders import WorkOrder


@strawberry.input
class ResumeWorkOrderInput:
    work_order_id: relay.GlobalID = strawberry.field(description="The work order to take off hold.")


@strawberry.type
class ResumeWorkOrderPayload:
    work_order: WorkOrder | None = None
    changed: bool = False
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ORDER_RULES[WorkOrderCommand.RESUME]),
    description="Take a work order off hold. One that is not held changes nothing.",
)
async def resume_work_order(info: Info, input: ResumeWorkOrderInput) -> ResumeWorkOrderPayload:
    async def work(conn: AsyncConnection) -> ResumeWorkOrderPayload:
        work_order_id = require_id(input.work_order_id, "WorkOrder", "workOrderId")
        done = await resume(conn, work_order_id, viewer_of(info).user_id)
        return ResumeWorkOrderPayload(work_order=WorkOrder.of(done.order), changed=done.changed)

    return await mutate(info, ResumeWorkOrderPayload, work)
