"""Money: an exact decimal amount with an explicit ISO 4217 currency."""

from decimal import Decimal

import strawberry

from domain.money import Money as DomainMoney
from domain.money import parse_money


@strawberry.type
class Money:
    amount: Decimal
    currency: str

    @classmethod
    def of(cls, minor: int | None, currency: str | None) -> "Money | None":
        if minor is None or currency is None:
            return None
        return cls.of_domain(DomainMoney(minor, currency))

    @classmethod
    def of_domain(cls, money: DomainMoney) -> "Money":
        return cls(amount=money.amount, currency=money.currency)


@strawberry.input
class MoneyInput:
    amount: Decimal
    currency: str = strawberry.field(description="ISO 4217 code, e.g. EUR.")

    def parse(self, field: str) -> DomainMoney:
        return parse_money(self.amount, self.currency, field)
