"""Money as integer minor units with an explicit ISO 4217 currency.

The currency list and each currency's minor unit come from the `iso4217` package
(the ISO 4217 tables), never from a pattern: `ABC` has the shape of a code and is
not a currency. Funds and metals without a minor unit (XAU, XDR, ...) are not money
here.
"""

from dataclasses import dataclass
from decimal import Decimal

from iso4217 import Currency

from domain.errors import DomainError, ErrorCode

EXPONENTS: dict[str, int] = {c.code: c.exponent for c in Currency if c.exponent is not None}
# Keeps every amount inside a signed 64-bit column with room for sums.
MAX_MINOR_DIGITS = 15
MAX_MINOR_UNITS = 10**MAX_MINOR_DIGITS


def exponent(currency: str) -> int:
    return EXPONENTS[currency]


@dataclass(frozen=True)
class Money:
    minor: int
    currency: str

    @property
    def amount(self) -> Decimal:
        return Decimal(self.minor).scaleb(-exponent(self.currency))

    def text(self) -> str:
        """`120.00 EUR`: every decimal the currency has, never a float in between."""
        return f"{self.amount:.{exponent(self.currency)}f} {self.currency}"


def _field(prefix: str | None, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def currency_code(value: str, prefix: str | None = None) -> str:
    if value not in EXPONENTS:
        raise DomainError(
            ErrorCode.INVALID_INPUT,
            f"Choose a currency by its ISO 4217 code, such as EUR, not '{value}'.",
            _field(prefix, "currency"),
        )
    return value


def parse_money(amount: Decimal, currency: str, prefix: str | None) -> Money:
    """Exact conversion to minor units: never rounds, never goes through a float.

    Errors name `<prefix>.amount` / `<prefix>.currency` (or plain `amount` /
    `currency` without a prefix). Works on the decimal's digits directly, because
    Decimal arithmetic in the default context would round past 28 digits and
    overflow on huge exponents.
    """
    currency_code(currency, prefix)
    amount_field = _field(prefix, "amount")
    if not amount.is_finite():
        raise DomainError(ErrorCode.INVALID_INPUT, "Amount must be a number.", amount_field)
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
            amount_field,
        )
    if len(significant) + exp + places > MAX_MINOR_DIGITS:
        raise DomainError(ErrorCode.INVALID_INPUT, "Amount is too large.", amount_field)
    minor = int("".join(map(str, significant))) * 10 ** (exp + places)
    return Money(-minor if sign else minor, currency)
