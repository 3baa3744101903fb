"""Money as integer minor units with an explicit ISO 4217 currency."""

import re
from dataclasses import dataclass
from decimal import Decimal

from domain.errors import DomainError, ErrorCode

# ISO 4217 currencies whose minor unit is not 1/100; every other code uses two decimals.
_EXPONENTS = {
    **dict.fromkeys(["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"], 3),
    **dict.fromkeys(
        [
            "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF",
            "UGX", "VND", "VUV", "XAF", "XOF", "XPF",
        ],
        0,
    ),
}  # fmt: skip
_CURRENCY = re.compile(r"[A-Z]{3}")
# Keeps every amount inside a signed 64-bit column with room for sums.
MAX_MINOR_DIGITS = 15
MAX_MINOR_UNITS = 10**MAX_MINOR_DIGITS


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
    """Exact conversion to minor units: never rounds, never goes through a float.

    Works on the decimal's digits directly, because Decimal arithmetic in the default
    context would round past 28 digits and overflow on huge exponents.
    """
    if not _CURRENCY.fullmatch(currency):
        raise DomainError(
            ErrorCode.INVALID_INPUT,
            f"Currency must be a three-letter ISO 4217 code such as EUR, got {currency!r}.",
            f"{field}.currency",
        )
    if not amount.is_finite():
        raise DomainError(ErrorCode.INVALID_INPUT, "Amount must be a number.", f"{field}.amount")
    sign, digits, exp = amount.as_tuple()
    assert isinstance(exp, int)
    significant = list(digits)
    while exp < 0 and len(significant) > 1 and significant[-1] == 0:
        significant.pop()
        exp += 1
    if significant == [0]:
        return Money(0, currency)
    places = exponent(currency)
    if -exp > places:
        raise DomainError(
            ErrorCode.INVALID_INPUT,
            f"{currency} amounts have at most {places} decimal places.",
            f"{field}.amount",
        )
    if len(significant) + exp + places > MAX_MINOR_DIGITS:
        raise DomainError(ErrorCode.INVALID_INPUT, "Amount is too large.", f"{field}.amount")
    minor = int("".join(map(str, significant))) * 10 ** (exp + places)
    return Money(-minor if sign else minor, currency)
