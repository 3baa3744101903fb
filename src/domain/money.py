"""Money as integer minor units with an explicit ISO 4217 currency."""

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from domain.errors import DomainError, ErrorCode

# Currencies whose minor unit is not 1/100; every other code uses two decimals.
_EXPONENTS = {"JPY": 0, "KRW": 0, "ISK": 0, "CLP": 0, "BHD": 3, "KWD": 3, "OMR": 3, "JOD": 3}
_CURRENCY = re.compile(r"^[A-Z]{3}$")
# Keeps every amount inside a signed 64-bit column with room for sums.
MAX_MINOR_UNITS = 10**15


def exponent(currency: str) -> int:
    return _EXPONENTS.get(currency, 2)


@dataclass(frozen=True)
class Money:
    minor: int
    currency: str

    @property
    def amount(self) -> Decimal:
        return Decimal(self.minor).scaleb(-exponent(self.currency))


def parse_money(amount: Decimal, currency: str, field: str) -> Money:
    if not _CURRENCY.match(currency):
        raise DomainError(
            ErrorCode.INVALID_INPUT,
            f"Currency must be a three-letter ISO 4217 code such as EUR, got {currency!r}.",
            f"{field}.currency",
        )
    try:
        scaled = Decimal(amount).scaleb(exponent(currency))
        if not scaled.is_finite() or scaled != scaled.to_integral_value():
            raise InvalidOperation
    except InvalidOperation:
        raise DomainError(
            ErrorCode.INVALID_INPUT,
            f"{currency} amounts have at most {exponent(currency)} decimal places.",
            f"{field}.amount",
        ) from None
    minor = int(scaled)
    if abs(minor) >= MAX_MINOR_UNITS:
        raise DomainError(ErrorCode.INVALID_INPUT, "Amount is too large.", f"{field}.amount")
    return Money(minor, currency)
