"""createWorkOrder (Sales): the order and its tasks, in one transaction."""

from datetime import UTC, datetime

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay
from strawberry.scalars import JSON

from api.ids import require_id
from db.orders import NewWorkOrder
from db.orders import create_work_order as create
from domain import idempotency, validation
from domain.enums import WorkOrderPriority
from domain.warnings import due_notices
from graph.context import Info
from graph.errors import PayloadWarning, UserError
from graph.mutations.base import mutate
from graph.mutations.once import changed_field, idempotency_key_field
from graph.permissions import SALES, allowed, viewer_of
from graph.types.jobs import JobInput
from graph.types.money import MoneyInput
from graph.types.work_orders import WorkOrder


@strawberry.input
class CreateWorkOrderInput:
    customer_id: relay.GlobalID = strawberry.field(description="The customer the order is for.")
    department_codes: list[str] = strawberry.field(
        description="The PRODUCTION departments that work on it; each gets one task. "
        "The delivery task is always added."
    )
    order_number: str | None = strawberry.field(
        default=None, description="Generated like WO-000123 when not given."
    )
    details: JSON | None = strawberry.field(
        default=None,
        description="A JSON object: the job's fields under their names (checked as JobInput "
        "checks them, at details.<field>) and whatever else the shop keeps.",
    )
    job: JobInput | None = strawberry.field(
        default=None, description="The job, typed: kept in `details`, winning over its keys."
    )
    needs_installation: bool = strawberry.field(
        default=False, description="Whether delivery includes installing the job."
    )
    needs_transport: bool = strawberry.field(
        default=False, description="Whether the order is delivered rather than picked up."
    )
    needs_repair: bool = strawberry.field(
        default=False, description="Whether the order includes a repair."
    )
    quote: MoneyInput | None = strawberry.field(
        default=None, description="The price offered; null when none yet."
    )
    due_at: datetime | None = strawberry.field(
        default=None,
        description="When the customer expects it: from 2000, at most 5 years ahead.",
    )
    priority: WorkOrderPriority = strawberry.field(
        default=WorkOrderPriority.NORMAL, description="RUSH puts its tasks first in every queue."
    )
    delivery_only: bool = strawberry.field(
        default=False,
        description="An order that only delivers (stock goods): no production department "
        "and no job line. Any other order needs a production department and details from "
        "which jobLine reads something (a product, a title or notes).",
    )
    proof_required: bool = strawberry.field(
        default=False,
        description="Its departments that need an approved proof (Department."
        "needsApprovedProof) wait until the customer approves the latest proof version.",
    )
    idempotency_key: str | None = idempotency_key_field()


@strawberry.type
class CreateWorkOrderPayload:
    work_order: WorkOrder | None = None
    changed: bool = changed_field()
    user_errors: list[UserError] = strawberry.field(default_factory=list)
    warnings: list[PayloadWarning] = strawberry.field(
        default_factory=list, description="What to know of the order made (DUE_IN_PAST)."
    )


@strawberry.mutation(
    extensions=allowed(SALES),
    description="Takes a work order: one task per department it passes through, and delivery.",
)
async def create_work_order(info: Info, input: CreateWorkOrderInput) -> CreateWorkOrderPayload:
    async def work(conn: AsyncConnection) -> CreateWorkOrderPayload:
        with validation.every_problem() as check:
            customer_id = check(require_id, input.customer_id, "Customer", "customerId")
            order_number = (
                check(validation.order_number, input.order_number)
                if input.order_number is not None
                else None
            )
            details = check(validation.details, input.details)
            job = check(JobInput.checked, input.job) if input.job is not None else None
            quote = (
                check(lambda given: validation.quote(given.parse("quote")), input.quote)
                if input.quote is not None
                else None
            )
            department_codes = check(validation.codes, input.department_codes)
            due_at = check(validation.due_at, input.due_at)
            key = check(idempotency.optional_key, input.idempotency_key)
        if job is not None:
            details = validation.details(validation.with_job(details, job))
        made = await create(
            conn,
            NewWorkOrder(
                customer_id=customer_id,
                order_number=order_number,
                details=details,
                department_codes=department_codes,
                needs_installation=input.needs_installation,
                needs_transport=input.needs_transport,
                needs_repair=input.needs_repair,
                quote=quote,
                created_by=viewer_of(info).user_id,
                due_at=due_at,
                priority=input.priority,
                delivery_only=input.delivery_only,
                proof_required=input.proof_required,
                idempotency_key=key,
            ),
            info.context.services.due_soon,
        )
        return CreateWorkOrderPayload(
            work_order=WorkOrder.of(made.order),
            changed=made.changed,
            warnings=PayloadWarning.of(due_notices(made.order.due_at, datetime.now(UTC))),
        )

    return await mutate(info, CreateWorkOrderPayload, work)
