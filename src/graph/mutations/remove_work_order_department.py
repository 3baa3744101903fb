"""removeWorkOrderDepartment (Sales or admin): a department's task that nobody started
taken off an open order, with a reason; its history stays."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db.corrections import remove_department
from domain import validation
from domain.enums import TaskAction
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import moves, viewer_of
from graph.types.work_orders import WorkOrder


@strawberry.input
class RemoveWorkOrderDepartmentInput:
    work_order_id: relay.GlobalID = strawberry.field(
        description="The ACTIVE work order to take the task off."
    )
    department_code: str = strawberry.field(
        description="The production department whose PENDING task to remove."
    )
    reason: str = strawberry.field(description="Why, in words (kept in the task's history).")
    expected_version: int | None = strawberry.field(
        default=None, description="When given, the change applies only at this version."
    )


@strawberry.type
class RemoveWorkOrderDepartmentPayload:
    work_order: WorkOrder | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=moves(TaskAction.REMOVE),
    description="Take a production department's PENDING task off an ACTIVE work order (its "
    "status becomes REMOVED; its history stays). A started or completed task is "
    "INVALID_TRANSITION. What waited for it waits no more.",
)
async def remove_work_order_department(
    info: Info, input: RemoveWorkOrderDepartmentInput
) -> RemoveWorkOrderDepartmentPayload:
    async def work(conn: AsyncConnection) -> RemoveWorkOrderDepartmentPayload:
        with validation.every_problem() as check:
            work_order_id = check(require_id, input.work_order_id, "WorkOrder", "workOrderId")
            code = check(validation.slug, input.department_code, "departmentCode")
            reason = check(validation.reason, input.reason)
        actor = viewer_of(info).actor()
        done = await remove_department(
            conn,
            work_order_id,
            code,
            reason,
            input.expected_version,
            actor,
        )
        return RemoveWorkOrderDepartmentPayload(work_order=WorkOrder.of(done.order))

    return await mutate(info, RemoveWorkOrderDepartmentPayload, work)
