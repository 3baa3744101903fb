"""Money parsing: integer minor units plus an explicit ISO 4217 currency. Each failure is
INVALID_INPUT on a named field: bad input gets a clear error and changes nothing, and no
request can produce a 500.
"""

from decimal import Decimal

import pytest

from domain.money import MAX_MINOR_UNITS, Money, exponent, parse_money
from tests.support.refusals import invalid

# --- money: exponents ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "currency", "minor"),
    [
        ("12.34", "EUR", 1234),
        ("12.3", "EUR", 1230),
        ("12", "EUR", 1200),
        ("0.01", "EUR", 1),
        ("0", "EUR", 0),
        ("1234", "JPY", 1234),
        ("1", "JPY", 1),
        ("1.234", "BHD", 1234),
        ("1.2", "BHD", 1200),
        ("0.001", "BHD", 1),
        ("5", "BHD", 5000),
    ],
)
def test_parse_money_scales_to_the_currency_minor_unit(
    amount: str, currency: str, minor: int
) -> None:
    assert parse_money(Decimal(amount), currency, "quote") == Money(minor, currency)


@pytest.mark.parametrize(
    ("currency", "digits"),
    [
        ("EUR", 2),
        ("USD", 2),
        ("GBP", 2),
        ("JPY", 0),
        ("KRW", 0),
        ("ISK", 0),
        ("CLP", 0),
        ("BHD", 3),
        ("KWD", 3),
        ("OMR", 3),
        ("JOD", 3),
    ],
)
def test_exponent_is_the_iso_4217_minor_unit(currency: str, digits: int) -> None:
    assert exponent(currency) == digits


ISO_4217_NOT_TWO_DECIMALS = [("TND", 3), ("LYD", 3), ("IQD", 3), ("VND", 0), ("XOF", 0)]
ISO_4217_NOT_TWO_DECIMALS += [("XAF", 0), ("PYG", 0)]


@pytest.mark.parametrize(("currency", "digits"), ISO_4217_NOT_TWO_DECIMALS)
def test_exponent_of_other_iso_4217_currencies(currency: str, digits: int) -> None:
    assert exponent(currency) == digits


@pytest.mark.parametrize(
    ("amount", "currency", "digits"),
    [
        ("12.345", "EUR", "2"),
        ("0.001", "EUR", "2"),
        ("12.5", "JPY", "0"),
        ("0.1", "JPY", "0"),
        ("1.2345", "BHD", "3"),
    ],
)
def test_too_many_decimals(amount: str, currency: str, digits: str) -> None:
    message = invalid("quote.amount", parse_money, Decimal(amount), currency, "quote")
    assert currency in message
    assert f"{digits} decimal places" in message


@pytest.mark.parametrize(
    ("amount", "currency", "minor"),
    [("12.340", "EUR", 1234), ("100.0", "JPY", 100), ("1.23400", "BHD", 1234)],
)
def test_trailing_zeros_are_not_extra_decimals(amount: str, currency: str, minor: int) -> None:
    assert parse_money(Decimal(amount), currency, "quote").minor == minor


def test_field_prefix_is_the_callers() -> None:
    invalid("entry.amount", parse_money, Decimal("0.001"), "EUR", "entry")
    invalid("entry.currency", parse_money, Decimal("1"), "eur", "entry")


def test_decimals_beyond_the_context_precision_are_refused_not_rounded() -> None:
    invalid("quote.amount", parse_money, Decimal("1.00000000000000000000000000001"), "EUR", "quote")


def test_a_vanishingly_small_amount_is_refused_not_zeroed() -> None:
    invalid("quote.amount", parse_money, Decimal("1E-1000000000"), "EUR", "quote")


# --- money: currency codes ----------------------------------------------------------------


@pytest.mark.parametrize(
    "currency",
    ["eur", "Eur", "EU", "EURO", "", "E1R", " EUR", "EUR ", "E-R", "€", "\u0415UR"],  # Cyrillic IE
)
def test_bad_currency_codes(currency: str) -> None:
    message = invalid("quote.currency", parse_money, Decimal("1"), currency, "quote")
    assert "ISO 4217" in message
    assert repr(currency) in message


@pytest.mark.parametrize("currency", ["ABC", "QQQ", "XAU", "XXX", "XDR"])
def test_codes_shaped_like_currencies_but_not_money_are_refused(currency: str) -> None:
    """The ISO 4217 list decides, not the shape: unknown codes, metals and funds are refused."""
    message = invalid("quote.currency", parse_money, Decimal("1"), currency, "quote")
    assert repr(currency) in message


def test_no_prefix_names_the_plain_fields() -> None:
    invalid("amount", parse_money, Decimal("0.001"), "EUR", None)
    invalid("currency", parse_money, Decimal("1"), "ABC", None)


@pytest.mark.parametrize(
    ("minor", "currency", "text"),
    [(12000, "EUR", "120.00 EUR"), (5, "JPY", "5 JPY"), (-1, "BHD", "-0.001 BHD")],
)
def test_money_text_shows_every_decimal_of_the_currency(
    minor: int, currency: str, text: str
) -> None:
    assert Money(minor, currency).text() == text


def test_currency_with_a_trailing_newline_is_refused() -> None:
    invalid("quote.currency", parse_money, Decimal("1"), "EUR\n", "quote")


# --- money: size and sign -----------------------------------------------------------------


def test_max_minor_units_fits_a_signed_64_bit_column_with_room_for_sums() -> None:
    assert MAX_MINOR_UNITS * 1000 < 2**63


@pytest.mark.parametrize("currency", ["EUR", "JPY", "BHD"])
@pytest.mark.parametrize("sign", [1, -1])
def test_largest_amount_is_accepted_and_the_next_is_too_large(currency: str, sign: int) -> None:
    largest = sign * (MAX_MINOR_UNITS - 1)
    amount = Money(largest, currency).amount
    assert parse_money(amount, currency, "quote").minor == largest
    too_large = Money(sign * MAX_MINOR_UNITS, currency).amount
    message = invalid("quote.amount", parse_money, too_large, currency, "quote")
    assert "too large" in message


def test_very_large_amount_is_too_large() -> None:
    message = invalid("quote.amount", parse_money, Decimal("1E+20"), "EUR", "quote")
    assert "too large" in message


def test_huge_exponent_is_too_large_not_a_crash() -> None:
    invalid("quote.amount", parse_money, Decimal("1E+1000000"), "EUR", "quote")


@pytest.mark.parametrize(
    ("amount", "currency", "minor"),
    [("-12.34", "EUR", -1234), ("-0.01", "EUR", -1), ("-5", "JPY", -5), ("-0.005", "BHD", -5)],
)
def test_negative_amounts_keep_their_sign(amount: str, currency: str, minor: int) -> None:
    # ADJUSTMENT ledger entries take a signed amount as given; the kind's sign is applied later.
    assert parse_money(Decimal(amount), currency, "entry").minor == minor


@pytest.mark.parametrize("amount", ["NaN", "-Infinity", "Infinity", "sNaN"])
def test_non_finite_amounts_are_refused(amount: str) -> None:
    invalid("quote.amount", parse_money, Decimal(amount), "EUR", "quote")


def test_non_finite_amount_message_does_not_blame_decimal_places() -> None:
    message = invalid("quote.amount", parse_money, Decimal("Infinity"), "EUR", "quote")
    assert "decimal places" not in message


# --- money: amount round trip -------------------------------------------------------------


@pytest.mark.parametrize(
    ("minor", "currency", "amount"),
    [
        (1234, "EUR", "12.34"),
        (1200, "EUR", "12.00"),
        (0, "EUR", "0.00"),
        (-5, "EUR", "-0.05"),
        (1234, "JPY", "1234"),
        (1234, "BHD", "1.234"),
        (1, "BHD", "0.001"),
    ],
)
def test_amount_shows_the_currency_minor_digits(minor: int, currency: str, amount: str) -> None:
    assert str(Money(minor, currency).amount) == amount


@pytest.mark.parametrize("currency", ["EUR", "USD", "JPY", "KRW", "BHD", "KWD"])
@pytest.mark.parametrize("minor", [0, 1, -1, 99, 100, 123_456_789, -987_654_321])
def test_amount_round_trips_through_parse_money(minor: int, currency: str) -> None:
    money = Money(minor, currency)
    assert parse_money(money.amount, currency, "quote") == money


def test_amount_round_trips_at_the_limit() -> None:
    money = Money(MAX_MINOR_UNITS - 1, "EUR")
    assert money.amount == Decimal("9999999999999.99")
    assert parse_money(money.amount, "EUR", "quote") == money
