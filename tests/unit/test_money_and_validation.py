"""Money parsing and the shared input rules: each failure is INVALID_INPUT on a named field.

Money is integer minor units plus an explicit ISO 4217 currency; bad input
gets a clear error and changes nothing, and no request can produce a 500.
"""

import json
from decimal import Decimal
from typing import Any

import pytest

from domain import validation
from domain.errors import DomainError, ErrorCode
from domain.money import MAX_MINOR_UNITS, Money, exponent, parse_money


def invalid(field: str, call: Any, *args: Any, **kwargs: Any) -> str:
    """Call, expect INVALID_INPUT on `field`, return the message."""
    with pytest.raises(DomainError) as info:
        call(*args, **kwargs)
    assert info.value.code is ErrorCode.INVALID_INPUT
    assert info.value.field == field
    assert info.value.message == str(info.value)
    return info.value.message


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


# --- validation.text and reason -----------------------------------------------------------


def test_text_strips_surrounding_whitespace() -> None:
    assert validation.text("  Ada Lovelace \n", "name") == "Ada Lovelace"


@pytest.mark.parametrize("value", ["", " ", "\t\n  "])
def test_text_must_not_be_empty(value: str) -> None:
    assert invalid("name", validation.text, value, "name") == "Fill in the name."


def test_text_length_limit_is_inclusive_and_counts_after_stripping() -> None:
    limit = validation.MAX_NAME
    assert validation.text("x" * limit, "name") == "x" * limit
    assert validation.text(f"  {'x' * limit}  ", "name") == "x" * limit
    message = invalid("name", validation.text, "x" * (limit + 1), "name")
    assert str(limit) in message and "name" in message


def test_text_custom_limit_and_field() -> None:
    assert validation.text("abcde", "memo", max_len=5) == "abcde"
    message = invalid("memo", validation.text, "abcdef", "memo", max_len=5)
    assert "memo" in message and "5" in message


def test_reason_has_its_own_limit_and_field() -> None:
    limit = validation.MAX_REASON
    assert limit > validation.MAX_NAME
    assert validation.reason(" wrong paper stock ") == "wrong paper stock"
    assert validation.reason("r" * limit) == "r" * limit
    message = invalid("reason", validation.reason, "r" * (limit + 1))
    assert str(limit) in message
    assert invalid("reason", validation.reason, "   ") == "Fill in the reason."


# --- validation.slug ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "value", ["a", "7", "ab", "digital-print", "a-b-c", "offset2", "x" * 40, "a" + "-" * 38 + "b"]
)
def test_valid_slugs(value: str) -> None:
    assert validation.slug(value) == value


@pytest.mark.parametrize(
    "value",
    [
        "",
        "-print",
        "print-",
        "-",
        "Print",
        "PRINT",
        "digital_print",
        "digital print",
        " print",
        "print ",
        "imprimé",
        "a.b",
        "x" * 41,
    ],
)
def test_invalid_slugs(value: str) -> None:
    message = invalid("code", validation.slug, value)
    assert repr(value) in message
    assert "lowercase" in message


def test_slug_names_the_callers_field() -> None:
    message = invalid("departmentCode", validation.slug, "Bad Code", "departmentCode")
    assert message.startswith("A department code is 1 to 40 ")


def test_slug_with_a_trailing_newline_is_refused() -> None:
    invalid("code", validation.slug, "print\n")


# --- validation.order_number --------------------------------------------------------------


@pytest.mark.parametrize(
    "value", ["WO-000123", "a", "7", "2024/17", "A.b_c/d-e", "X" * 40, "wo.1_2/3-4"]
)
def test_valid_order_numbers(value: str) -> None:
    assert validation.order_number(value) == value


def test_order_number_is_stripped() -> None:
    assert validation.order_number("  WO-42\n") == "WO-42"


@pytest.mark.parametrize(
    "value",
    ["", "   ", "-WO", ".1", "_1", "/1", "WO 1", "WO#1", "WO:1", "Ö1", "X" * 41, "WO-1\nWO-2"],
)
def test_invalid_order_numbers(value: str) -> None:
    message = invalid("orderNumber", validation.order_number, value)
    assert message.startswith("An order number is 1 to 40 ")


# --- validation.email ---------------------------------------------------------------------


@pytest.mark.parametrize("value", ["ada@example.com", "a.b+c@mail.example.co.uk", "x@y.io"])
def test_valid_emails(value: str) -> None:
    assert validation.email(value) == value


def test_email_is_stripped() -> None:
    assert validation.email("  ada@example.com \n") == "ada@example.com"


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("Ada@Example.COM", "ada@example.com"),
        ("\uff21da@example.com", "ada@example.com"),  # fullwidth A
        ("stra\u00dfe@example.com", "strasse@example.com"),  # sharp s folds to ss
        ("p\u0130a@example.com", "pi\u0307a@example.com"),  # dotted capital I: i + dot
        ("cafe\u0301@example.com", "caf\u00e9@example.com"),  # composed again after folding
    ],
)
def test_an_email_is_kept_in_one_form(given: str, stored: str) -> None:
    assert validation.email(given) == stored
    assert validation.email(stored) == stored


@pytest.mark.parametrize(
    "value",
    [
        "",
        "ada",
        "ada@",
        "@example.com",
        "ada@example",
        "ada lovelace@example.com",
        "ada@exa mple.com",
        "ada@@example.com",
        "ada@example.com\nbob@example.com",
    ],
)
def test_invalid_emails(value: str) -> None:
    message = invalid("email", validation.email, value)
    assert "not an email address" in message
    assert f"'{value}'" in message


def test_email_length_limit() -> None:
    local = "a" * 64
    at_limit = f"{local}@{'b' * (validation.MAX_EMAIL - 64 - 1 - 4)}.com"
    assert len(at_limit) == validation.MAX_EMAIL
    assert validation.email(at_limit) == at_limit
    over = "b" + at_limit
    message = invalid("email", validation.email, over)
    assert "not an email address" in message


# --- validation.password ------------------------------------------------------------------


@pytest.mark.parametrize(
    "length", [validation.MIN_PASSWORD, validation.MIN_PASSWORD + 1, validation.MAX_PASSWORD]
)
def test_password_lengths_in_range(length: int) -> None:
    assert validation.password("p" * length) == "p" * length


@pytest.mark.parametrize("length", [0, 1, validation.MIN_PASSWORD - 1, validation.MAX_PASSWORD + 1])
def test_password_lengths_out_of_range(length: int) -> None:
    message = invalid("password", validation.password, "p" * length)
    assert str(validation.MIN_PASSWORD) in message
    assert str(validation.MAX_PASSWORD) in message


def test_password_is_not_altered() -> None:
    assert validation.password("  secret pass  ") == "  secret pass  "


def test_password_limits_are_sane() -> None:
    assert 8 <= validation.MIN_PASSWORD < validation.MAX_PASSWORD


# --- validation.details -------------------------------------------------------------------


def test_details_none_is_an_empty_object() -> None:
    first = validation.details(None)
    assert first == {}
    first["x"] = 1
    assert validation.details(None) == {}


def test_details_object_is_kept() -> None:
    value = {"paper": "A3", "copies": 500, "nested": {"finish": ["matte", "gloss"]}}
    assert validation.details(value) == value


def test_details_json_string_is_parsed() -> None:
    assert validation.details('{"paper": "A3", "copies": 500}') == {"paper": "A3", "copies": 500}


@pytest.mark.parametrize("value", ["", "{", "{'a': 1}", '{"a": }', "not json", '{"a": 1} x'])
def test_details_invalid_json_string(value: str) -> None:
    message = invalid("details", validation.details, value)
    assert "not valid JSON" in message


@pytest.mark.parametrize("value", ["[]", "[1, 2]", '"text"', "1", "true", "null"])
def test_details_json_that_is_not_an_object(value: str) -> None:
    message = invalid("details", validation.details, value)
    assert "must be a JSON object" in message


@pytest.mark.parametrize("value", [[], [1], 1, 1.5, True, "[]"])
def test_details_values_that_are_not_objects(value: Any) -> None:
    message = invalid("details", validation.details, value)
    assert "JSON object" in message


def test_details_size_limit() -> None:
    limit = validation.MAX_DETAILS_BYTES
    small = {"remarks": "x" * (limit // 2)}
    assert validation.details(small) == small
    big = {"notes": "x" * limit}
    message = invalid("details", validation.details, big)
    assert message == f"Shorten the job details to at most {limit} bytes."
    assert invalid("details", validation.details, json.dumps(big)) == message


def test_details_size_is_measured_in_bytes() -> None:
    value = {"notes": "é" * 3000}
    assert len(json.dumps(value, ensure_ascii=False).encode()) < validation.MAX_DETAILS_BYTES
    assert validation.details(value) == value


@pytest.mark.parametrize("value", ['{"copies": NaN}', '{"copies": Infinity}'])
def test_details_non_standard_json_numbers_are_refused(value: str) -> None:
    invalid("details", validation.details, value)


def test_details_deep_nesting_is_invalid_input_not_a_crash() -> None:
    value = '{"a":' * 2000 + "1" + "}" * 2000
    assert len(value) < validation.MAX_DETAILS_BYTES
    invalid("details", validation.details, value)


# --- validation.codes ---------------------------------------------------------------------


def test_codes_dedup_in_the_order_given() -> None:
    assert validation.codes(["print", "bind", "print", "cut", "bind"]) == ["print", "bind", "cut"]


def test_codes_empty() -> None:
    assert validation.codes([]) == []


def test_codes_keep_distinct_codes_in_order() -> None:
    assert validation.codes(["z", "a", "m"]) == ["z", "a", "m"]


@pytest.mark.parametrize("bad", ["Print", "", "print press", "-cut"])
def test_codes_refuse_an_invalid_code(bad: str) -> None:
    message = invalid("departmentCodes", validation.codes, ["print", bad, "cut"])
    assert f"'{bad}'" in message
    assert message.startswith("A department code is ")


def test_codes_names_the_callers_field() -> None:
    invalid("--department", validation.codes, ["OK"], "--department")
