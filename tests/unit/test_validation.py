"""The shared input rules (domain.validation): each failure is INVALID_INPUT on a named
field, with a message a person can act on."""

import json
from typing import Any

import pytest

from domain import validation
from tests.support.refusals import invalid

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
