"""addWorkOrderDepartment (Sales or admin): a production department's task added to an
open order; its gates follow."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db.corrections import add_department
from domain import validation
from domain.enums import WorkOrderCommand
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import allowed, viewer_of
from graph.types.work_order_commands import ORDER_RULES
from graph.types.work_orders import WorkOrder


@strawberry.input
class AddWorkOrderDepartmentInput:
    work_order_id: relay.GlobalID = strawberry.field(
        description="The ACTIVE work order to add the task to."
    )
    department_code: str = strawberry.field(
        description="The production department (one chosen per order) whose task to add."
    )
    expected_version: int | None = strawberry.field(
        default=None, description="When given, the change applies only at this version."
    )


@strawberry.type
class AddWorkOrderDepartmentPayload:
    work_order: WorkOrder | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ORDER_RULES[WorkOrderCommand.CHANGE_DEPARTMENTS]),
    description="Add a production department's task to an ACTIVE work order. It waits for "
    "what its department follows; tasks downstream of it that have not started wait for it.",
)
async def add_work_order_department(
    info: Info, input: AddWorkOrderDepartmentInput
) -> AddWorkOrderDepartmentPayload:
    async def work(conn: AsyncConnection) -> AddWorkOrderDepartmentPayload:
        with validation.every_problem() as check:
            work_order_id = check(require_id, input.work_order_id, "WorkOrder", "workOrderId")
            code = check(validation.slug, input.department_code, "departmentCode")
        done = await add_department(
            conn, work_order_id, code, input.expected_version, viewer_of(info).user_id
        )
        return AddWorkOrderDepartmentPayload(work_order=WorkOrder.of(done.order))

    return await mutate(info, AddWorkOrderDepartmentPayload, work)
