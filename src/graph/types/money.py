"""Money: an exact decimal amount with an explicit ISO 4217 currency."""

import dataclasses
from decimal import Decimal

import strawberry
from strawberry.exceptions import StrawberryInputCoercionError
from strawberry.schema.types.base_scalars import DecimalDefinition

from domain.money import Money as DomainMoney
from domain.money import parse_money

# The API's one form of an amount; a person's "1.250,00" is the app's to read
# (src/web/lib/format.js).
PLAIN_FORM = (
    "Write amounts as plain decimals: digits, with a point before the cents (1250.50), "
    "no grouping and no comma."
)


def _decimal(value: object) -> object:
    try:
        return DecimalDefinition.parse_value(value)  # type: ignore[misc]
    except StrawberryInputCoercionError:
        raise StrawberryInputCoercionError(
            f'Value cannot represent a Decimal: "{value}". {PLAIN_FORM}'
        ) from None


# Strawberry's Decimal, its refusal saying which form it takes (the schema passes it as
# the override of decimal.Decimal). Its form is ours: docs/api.md's "Decimal" section
# is the text at the URL (docs/decisions.md says why that URL).
PLAIN_DECIMAL = dataclasses.replace(
    DecimalDefinition,
    parse_value=_decimal,
    description='An exact decimal amount, as a JSON string ("1987.00", "-15.00"): digits, '
    "at most one point, an optional leading minus, no exponent, no grouping. An amount "
    "of money has exactly its currency's decimal places (ISO 4217: 2 for EUR, 0 for "
    "JPY); sent with more, it is refused, never rounded.",
    specified_by_url="https://pressroom.invalid/docs/api#decimal",
)


@strawberry.type(description="An exact amount in one currency.")
class Money:
    amount: Decimal = strawberry.field(
        description="The amount, with exactly the currency's decimal places."
    )
    currency: str = strawberry.field(description="The ISO 4217 currency code, e.g. EUR.")

    @classmethod
    def of(cls, minor: int | None, currency: str | None) -> "Money | None":
        if minor is None or currency is None:
            return None
        return cls.of_domain(DomainMoney(minor, currency))

    @classmethod
    def of_domain(cls, money: DomainMoney) -> "Money":
        return cls(amount=money.amount, currency=money.currency)


@strawberry.input(description="An exact amount in one currency, as sent.")
class MoneyInput:
    amount: Decimal = strawberry.field(
        description="The amount: at most the currency's decimal places, never rounded."
    )
    currency: str = strawberry.field(description="ISO 4217 code, e.g. EUR.")

    def parse(self, field: str) -> DomainMoney:
        return parse_money(self.amount, self.currency, field)
