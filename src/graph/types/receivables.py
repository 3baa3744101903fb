"""Receivables ageing: what customers owe, and for how long (domain.ledger.ageing_bucket)."""

from datetime import datetime

import strawberry

from db.rows import AgeingRow
from domain.enums import AgeingBucket
from domain.ledger import ageing_bucket
from domain.money import Money as DomainMoney
from graph.context import Info
from graph.types.customers import Customer
from graph.types.loading import required
from graph.types.money import Money


@strawberry.type(description="One customer's balance in one currency, and since when unpaid.")
class CustomerAgeing:
    balance: Money = strawberry.field(
        description="What the customer owes in this currency (positive)."
    )
    oldest_unpaid_at: datetime = strawberry.field(
        description="When the oldest charge not yet paid was posted (payments and credits "
        "pay the oldest charges first)."
    )
    days: int = strawberry.field(description="Whole days since then.")
    bucket: AgeingBucket = strawberry.field(
        description="How old the oldest unpaid charge is, by bucket."
    )
    _customer_id: strawberry.Private[int]

    @strawberry.field(description="The customer who owes it.")
    async def customer(self, info: Info) -> Customer:
        row = await info.context.loaders.customer.load(self._customer_id)
        return required(row, Customer.of)


@strawberry.type(description="What is owed in one currency, in all and by age.")
class AgeingTotals:
    currency: str = strawberry.field(description="The ISO 4217 currency of every amount here.")
    owed: Money = strawberry.field(
        description="Everything owed in this currency: the sum of the four buckets."
    )
    current: Money = strawberry.field(description="Oldest unpaid charge up to 30 days old.")
    days_31_to_60: Money = strawberry.field(
        description="Owed by customers whose oldest unpaid charge is 31 to 60 days old."
    )
    days_61_to_90: Money = strawberry.field(
        description="Owed by customers whose oldest unpaid charge is 61 to 90 days old."
    )
    over_90: Money = strawberry.field(
        description="Owed by customers whose oldest unpaid charge is over 90 days old."
    )


@strawberry.type(description="Receivables ageing now: customers who owe, largest balance first.")
class ReceivablesAgeing:
    as_of: datetime = strawberry.field(description="The moment the ages are counted from.")
    totals: list[AgeingTotals] = strawberry.field(
        description="What is owed per currency, in all and per bucket."
    )
    customers: list[CustomerAgeing] = strawberry.field(
        description="Each customer who owes, per currency, largest balance first."
    )

    @classmethod
    def of(cls, rows: list[AgeingRow], now: datetime) -> "ReceivablesAgeing":
        customers = []
        sums: dict[str, dict[AgeingBucket, int]] = {}
        for row in rows:
            bucket = ageing_bucket(row.oldest_unpaid_at, now)
            by_bucket = sums.setdefault(row.currency, dict.fromkeys(AgeingBucket, 0))
            by_bucket[bucket] += row.balance_minor
            customers.append(
                CustomerAgeing(
                    balance=Money.of_domain(DomainMoney(row.balance_minor, row.currency)),
                    oldest_unpaid_at=row.oldest_unpaid_at,
                    days=(now - row.oldest_unpaid_at).days,
                    bucket=bucket,
                    _customer_id=row.customer_id,
                )
            )

        def money(minor: int, currency: str) -> Money:
            return Money.of_domain(DomainMoney(minor, currency))

        totals = [
            AgeingTotals(
                currency=currency,
                owed=money(sum(by.values()), currency),
                current=money(by[AgeingBucket.CURRENT], currency),
                days_31_to_60=money(by[AgeingBucket.DAYS_31_60], currency),
                days_61_to_90=money(by[AgeingBucket.DAYS_61_90], currency),
                over_90=money(by[AgeingBucket.OVER_90], currency),
            )
            for currency, by in sorted(sums.items())
        ]
        return cls(as_of=now, totals=totals, customers=customers)
