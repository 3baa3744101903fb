"""Customers."""

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import strawberry
from strawberry import relay

from db import reads
from db.rows import CustomerRow
from domain.enums import CustomerCommand
from domain.money import Money as DomainMoney
from graph.context import Info
from graph.permissions import (
    READS_LEDGER,
    SALES,
    STAFF,
    allowed,
    passes,
)
from graph.types.address import Address
from graph.types.loading import nodes_of
from graph.types.money import Money
from graph.types.pagination import Before, Last, by_id, window

if TYPE_CHECKING:
    from graph.types.ledger import LedgerEntryConnection

# The rule of each customer command: its mutation declares it from here
# (`allowed(CUSTOMER_RULES[...])`), and allowedActions offers what the caller passes.
CUSTOMER_RULES = {CustomerCommand.EDIT: SALES}


@strawberry.type(
    description="Someone the shop works for: the work orders, the ledger and the emails are theirs."
)
class Customer(relay.Node):
    id: relay.NodeID[int]
    name: str = strawberry.field(description="The customer's name, as shown everywhere.")
    created_at: datetime = strawberry.field(description="When the customer was recorded.")
    address: Address = strawberry.field(
        description="Where its work is delivered: delivery screens and walls show it."
    )
    _row: strawberry.Private[CustomerRow]

    @classmethod
    def of(cls, row: CustomerRow) -> "Customer":
        return cls(
            id=row.id, name=row.name, created_at=row.created_at, address=Address.of(row), _row=row
        )

    @strawberry.field(extensions=allowed(STAFF), description="Whom to ask for.")
    def contact_name(self) -> str | None:
        return self._row.contact_name

    @strawberry.field(
        extensions=allowed(STAFF),
        description="Where the shop's emails to the customer go; null when none.",
    )
    def email(self) -> str | None:
        return self._row.email

    @strawberry.field(
        extensions=allowed(STAFF), description="The customer's phone; null when none."
    )
    def phone(self) -> str | None:
        return self._row.phone

    @strawberry.field(
        extensions=allowed(STAFF),
        description="Whether the shop emails the customer about their orders (to `email`).",
    )
    def receives_email(self) -> bool:
        return self._row.receives_email

    @strawberry.field(extensions=allowed(STAFF), description="Anything the shop should know.")
    def notes(self) -> str | None:
        return self._row.notes

    @strawberry.field(
        description="What the caller may ask of this customer (EDIT: updateCustomer): the "
        "buttons a screen shows."
    )
    def allowed_actions(self, info: Info) -> list[CustomerCommand]:
        return [command for command, rule in CUSTOMER_RULES.items() if passes(rule, info)]

    @strawberry.field(
        description="What the customer owes, one amount per currency it has entries in "
        "(never summed across currencies); positive when the customer owes.",
        extensions=allowed(READS_LEDGER),
    )
    async def balance(self, info: Info) -> list[Money]:
        rows = await info.context.loaders.customer_balances.load(self.id)
        return [Money.of_domain(DomainMoney(r.minor, r.currency)) for r in rows]

    @strawberry.field(
        description="What the customer is owed back on its cancelled orders, per currency "
        "(the sum of their WorkOrder.refundDue).",
        extensions=allowed(READS_LEDGER),
    )
    async def refund_due(self, info: Info) -> list[Money]:
        rows = await info.context.loaders.customer_refunds_due.load(self.id)
        return [Money.of_domain(DomainMoney(r.minor, r.currency)) for r in rows]

    @strawberry.field(
        description="Ledger entries, newest first, each with the balance after it.",
        extensions=allowed(READS_LEDGER),
    )
    async def ledger(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        last: Last = None,
        before: Before = None,
    ) -> Annotated["LedgerEntryConnection", strawberry.lazy("graph.types.ledger")]:
        from graph.types.ledger import LedgerEntry, LedgerEntryConnection

        page = window(first, after, last, before)
        edges, page_info = await by_id(
            info, page, reads.customer_ledger_page, LedgerEntry.of, customer_id=self.id
        )
        return LedgerEntryConnection(edges=edges, page_info=page_info)

    @classmethod
    async def resolve_nodes(  # type: ignore[override]
        cls, *, info: Info, node_ids: Iterable[str], required: bool = False
    ) -> list["Customer | None"]:
        return await nodes_of(cls.of, info.context.loaders.customer, node_ids)
