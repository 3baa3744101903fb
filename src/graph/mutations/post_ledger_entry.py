"""postLedgerEntry (Accounts): append one entry to a customer's ledger, idempotently."""

from decimal import Decimal

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db.ledger import NewEntry, post_entry
from domain import ledger, validation
from domain.enums import LedgerEntryKind
from domain.ledger import EntryContent
from domain.money import parse_money
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import READS_LEDGER, allowed, viewer_of
from graph.types.ledger import LedgerEntry


@strawberry.input
class PostLedgerEntryInput:
    customer_id: relay.GlobalID = strawberry.field(
        description="The customer whose ledger takes the entry."
    )
    work_order_id: relay.GlobalID | None = strawberry.field(
        default=None, description="The work order it is posted against (of the same customer)."
    )
    kind: LedgerEntryKind = strawberry.field(
        description="What the entry records; it decides the sign."
    )
    amount: Decimal = strawberry.field(
        description="Positive; the kind gives the sign. Only an ADJUSTMENT is signed as given "
        "(positive raises what the customer owes)."
    )
    currency: str | None = strawberry.field(
        default=None, description="ISO 4217 code; the shop's currency when omitted."
    )
    memo: str | None = strawberry.field(
        default=None, description="A note on the entry (e.g. why a credit was given)."
    )
    idempotency_key: str = strawberry.field(
        description="One per intended entry (e.g. a UUID made when the form opens): a retry "
        "with the same key and content returns the original entry, changed: false. Keys "
        "beginning inbox: or quote-charge: are the server's own and refused."
    )


@strawberry.type
class PostLedgerEntryPayload:
    entry: LedgerEntry | None = None
    changed: bool = strawberry.field(
        default=False, description="False when this key was already posted with this content."
    )
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(READS_LEDGER),
    description="Append an entry to a customer's ledger (never edited; a "
    "correction is a new entry).",
)
async def post_ledger_entry(info: Info, input: PostLedgerEntryInput) -> PostLedgerEntryPayload:
    async def work(conn: AsyncConnection) -> PostLedgerEntryPayload:
        currency = input.currency if input.currency is not None else info.context.services.currency
        with validation.every_problem() as check:
            customer_id = check(require_id, input.customer_id, "Customer", "customerId")
            work_order_id = (
                check(require_id, input.work_order_id, "WorkOrder", "workOrderId")
                if input.work_order_id is not None
                else None
            )
            amount = check(
                lambda: ledger.signed(input.kind, parse_money(input.amount, currency, None))
            )
            memo = check(ledger.memo, input.memo)
            key = check(ledger.person_key, input.idempotency_key)
        posted = await post_entry(
            conn,
            NewEntry(
                content=EntryContent(
                    customer_id=customer_id,
                    work_order_id=work_order_id,
                    kind=input.kind,
                    amount=amount,
                    memo=memo,
                ),
                idempotency_key=key,
                posted_by=viewer_of(info).user_id,
            ),
        )
        return PostLedgerEntryPayload(entry=LedgerEntry.of(posted.entry), changed=posted.changed)

    return await mutate(info, PostLedgerEntryPayload, work)
