"""updateWorkOrder (Sales or admin): correct an open order's details, flags or customer
at the version the person saw."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay
from strawberry.scalars import JSON

from api.ids import require_id
from db.corrections import Correction, update_details
from domain import validation
from domain.enums import WorkOrderCommand
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import allowed, viewer_of
from graph.types.jobs import JobInput
from graph.types.work_order_commands import ORDER_RULES
from graph.types.work_orders import WorkOrder


@strawberry.input
class UpdateWorkOrderInput:
    work_order_id: relay.GlobalID = strawberry.field(
        description="The ACTIVE work order to correct."
    )
    expected_version: int = strawberry.field(
        description="The version the change was made on (WorkOrder.version): another "
        "change in between is STALE_OBJECT."
    )
    details: JSON | None = strawberry.field(
        default=None,
        description="A JSON object: replaces the details (null: unchanged); the job's "
        "fields in it are checked as in createWorkOrder.",
    )
    job: JobInput | None = strawberry.field(
        default=None,
        description="The job as a whole: replaces the job's fields of the details (those "
        "given in `details` too), keeping the rest (null: unchanged).",
    )
    needs_installation: bool | None = strawberry.field(
        default=None, description="Whether delivery includes installing; null keeps it."
    )
    needs_transport: bool | None = strawberry.field(
        default=None, description="Whether the order is delivered; null keeps it."
    )
    needs_repair: bool | None = strawberry.field(
        default=None, description="Whether it includes a repair; null keeps it."
    )
    customer_id: relay.GlobalID | None = strawberry.field(
        default=None, description="Another customer for the order; null keeps it."
    )
    proof_required: bool | None = strawberry.field(
        default=None,
        description="Whether its departments that need an approved proof wait for the "
        "customer's approval of the latest proof (null: unchanged).",
    )


@strawberry.type
class UpdateWorkOrderPayload:
    work_order: WorkOrder | None = None
    changed: bool = False
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ORDER_RULES[WorkOrderCommand.EDIT_DETAILS]),
    description="Correct an ACTIVE work order: what is not given stays; the same values "
    "again change nothing. History: DETAILS_CHANGED, naming what changed.",
)
async def update_work_order(info: Info, input: UpdateWorkOrderInput) -> UpdateWorkOrderPayload:
    async def work(conn: AsyncConnection) -> UpdateWorkOrderPayload:
        with validation.every_problem() as check:
            work_order_id = check(require_id, input.work_order_id, "WorkOrder", "workOrderId")
            customer_id = (
                check(require_id, input.customer_id, "Customer", "customerId")
                if input.customer_id is not None
                else None
            )
            details = (
                check(validation.details, input.details) if input.details is not None else None
            )
            job = check(JobInput.checked, input.job) if input.job is not None else None
        correction = Correction(
            details=details,
            job=job,
            needs_installation=input.needs_installation,
            needs_transport=input.needs_transport,
            needs_repair=input.needs_repair,
            customer_id=customer_id,
            proof_required=input.proof_required,
        )
        done = await update_details(
            conn, work_order_id, correction, input.expected_version, viewer_of(info).user_id
        )
        return UpdateWorkOrderPayload(work_order=WorkOrder.of(done.order), changed=done.changed)

    return await mutate(info, UpdateWorkOrderPayload, work)
