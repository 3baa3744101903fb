"""chargeWorkOrderQuote (Accounts): "Charge the quote", once for each quote."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db.ledger import charge_quote
from domain.enums import WorkOrderCommand
from graph.context import Info
from graph.mutations.base import mutate
from graph.mutations.post_ledger_entry import PostLedgerEntryPayload
from graph.permissions import allowed, viewer_of
from graph.types.ledger import LedgerEntry
from graph.types.work_order_commands import ORDER_RULES


@strawberry.input
class ChargeWorkOrderQuoteInput:
    work_order_id: relay.GlobalID = strawberry.field(
        description="The work order whose quote to charge."
    )


@strawberry.mutation(
    extensions=allowed(ORDER_RULES[WorkOrderCommand.CHARGE_QUOTE]),
    description="Post a CHARGE of the order's current quote (idempotency key "
    "quote-charge:<order number>:<order version>). Asked again before the quote changes, "
    "it answers with that charge, changed: false; an order without a quote, a cancelled "
    "one, or one whose charges already come to its quote is refused in words.",
)
async def charge_work_order_quote(
    info: Info, input: ChargeWorkOrderQuoteInput
) -> PostLedgerEntryPayload:
    async def work(conn: AsyncConnection) -> PostLedgerEntryPayload:
        order_id = require_id(input.work_order_id, "WorkOrder", "workOrderId")
        posted = await charge_quote(conn, order_id, viewer_of(info).user_id)
        return PostLedgerEntryPayload(entry=LedgerEntry.of(posted.entry), changed=posted.changed)

    return await mutate(info, PostLedgerEntryPayload, work)
