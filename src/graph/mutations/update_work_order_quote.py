"""updateWorkOrderQuote (Sales): optimistic concurrency through expectedVersion."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db.orders import update_quote
from domain import validation
from domain.enums import WorkOrderCommand
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import allowed, viewer_of
from graph.types.money import MoneyInput
from graph.types.work_order_commands import ORDER_RULES
from graph.types.work_orders import WorkOrder


@strawberry.input
class UpdateWorkOrderQuoteInput:
    work_order_id: relay.GlobalID = strawberry.field(
        description="The work order whose quote to set."
    )
    quote: MoneyInput = strawberry.field(description="The new quote, zero or more.")
    expected_version: int | None = strawberry.field(
        default=None, description="When given, the update applies only at this version."
    )


@strawberry.type
class UpdateWorkOrderQuotePayload:
    work_order: WorkOrder | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ORDER_RULES[WorkOrderCommand.EDIT_QUOTE]),
    description="Sets or changes an order's quote (never posted to the ledger).",
)
async def update_work_order_quote(
    info: Info, input: UpdateWorkOrderQuoteInput
) -> UpdateWorkOrderQuotePayload:
    async def work(conn: AsyncConnection) -> UpdateWorkOrderQuotePayload:
        with validation.every_problem() as check:
            work_order_id = check(require_id, input.work_order_id, "WorkOrder", "workOrderId")
            quote = check(lambda: validation.quote(input.quote.parse("quote")))
        row = await update_quote(
            conn, work_order_id, quote, input.expected_version, viewer_of(info).user_id
        )
        return UpdateWorkOrderQuotePayload(work_order=WorkOrder.of(row))

    return await mutate(info, UpdateWorkOrderQuotePayload, work)
