"""The customer ledger as clients see it: entries with the balance after each, and totals."""

from collections.abc import Iterable
from datetime import datetime

import strawberry
from strawberry import relay

from db.rows import LedgerEntryRow
from domain.enums import LedgerEntryKind
from domain.money import Money as DomainMoney
from graph.context import Info
from graph.permissions import READS_LEDGER, require
from graph.types.customers import Customer
from graph.types.enums import describe_values
from graph.types.loading import node_rows
from graph.types.money import Money
from graph.types.people import User
from graph.types.work_orders import WorkOrder

strawberry.enum(LedgerEntryKind, description="What a ledger entry records; it decides the sign.")
describe_values(
    LedgerEntryKind,
    {
        LedgerEntryKind.CHARGE: "An invoice: what the customer owes rises.",
        LedgerEntryKind.PAYMENT: "Money received: what the customer owes falls.",
        LedgerEntryKind.CREDIT: "A discount or goodwill: what the customer owes falls.",
        LedgerEntryKind.REFUND: "Money paid back: what the customer owes rises.",
        LedgerEntryKind.ADJUSTMENT: "A correction, by its own sign (never zero).",
    },
)


@strawberry.type(description="One posting; append-only (a correction is a new entry).")
class LedgerEntry(relay.Node):
    id: relay.NodeID[int]
    kind: LedgerEntryKind = strawberry.field(
        description="What the entry records; it decides the sign of `amount`."
    )
    amount: Money = strawberry.field(
        description="Signed: positive raises what the customer owes (CHARGE, REFUND), "
        "negative lowers it (PAYMENT, CREDIT); an ADJUSTMENT either way."
    )
    balance_after: Money = strawberry.field(
        description="The customer's balance in this currency right after this entry."
    )
    memo: str | None = strawberry.field(description="A note on the entry; null when none.")
    idempotency_key: str = strawberry.field(
        description="The key it was posted with: posting again with it answers this entry."
    )
    posted_at: datetime = strawberry.field(description="When it was posted.")
    _customer_id: strawberry.Private[int]
    _work_order_id: strawberry.Private[int | None]
    _posted_by: strawberry.Private[int]

    @classmethod
    def of(cls, row: LedgerEntryRow) -> "LedgerEntry":
        return cls(
            id=row.id,
            kind=row.kind,
            amount=Money.of_domain(DomainMoney(row.amount_minor, row.currency)),
            balance_after=Money.of_domain(DomainMoney(row.balance_after_minor, row.currency)),
            memo=row.memo,
            idempotency_key=row.idempotency_key,
            posted_at=row.posted_at,
            _customer_id=row.customer_id,
            _work_order_id=row.work_order_id,
            _posted_by=row.posted_by,
        )

    @strawberry.field(description="The customer whose ledger it is in.")
    async def customer(self, info: Info) -> Customer:
        row = await info.context.loaders.customer.load(self._customer_id)
        assert row is not None
        return Customer.of(row)

    @strawberry.field(description="The work order it is for; null when it is for none.")
    async def work_order(self, info: Info) -> WorkOrder | None:
        if self._work_order_id is None:
            return None
        row = await info.context.loaders.work_order.load(self._work_order_id)
        return WorkOrder.of(row) if row else None

    @strawberry.field(description="Who posted it.")
    async def posted_by(self, info: Info) -> User:
        row = await info.context.loaders.user.load(self._posted_by)
        assert row is not None
        return User.of(row)

    @classmethod
    async def resolve_nodes(  # type: ignore[override]
        cls, *, info: Info, node_ids: Iterable[str], required: bool = False
    ) -> list["LedgerEntry | None"]:
        # `node(id:)` is open to staff; the ledger is not, so the ledger's rule applies here.
        require(READS_LEDGER, info)
        return [
            cls.of(r) if r else None
            for r in await node_rows(info.context.loaders.ledger_entry, node_ids)
        ]


@strawberry.type
class LedgerEntryConnection(relay.Connection[LedgerEntry]):
    pass
