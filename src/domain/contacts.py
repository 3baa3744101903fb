"""A customer's contact and address: whom to call, where to deliver. Each part is
optional; given, it is checked (an email's form, a phone's characters, lengths) and
trimmed, and an empty text clears it."""

import re
from dataclasses import dataclass, field

from domain.validation import MAX_EMAIL, MAX_NAME, every_problem, invalid, label, storable

MAX_LINES = 4
MAX_LINE = 120
MAX_SHORT = 20  # a postcode
MAX_PLACE = 100  # a city, a country
MAX_PHONE = 40
MAX_NOTES = 2000
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_PHONE = re.compile(r"[0-9+()./ -]+")


@dataclass(frozen=True)
class Address:
    lines: tuple[str, ...] = ()
    postcode: str | None = None
    city: str | None = None
    country: str | None = None


@dataclass(frozen=True)
class Contact:
    contact_name: str | None = None
    email: str | None = None
    phone: str | None = None
    address: Address = field(default_factory=Address)
    notes: str | None = None
    # Whether the shop emails them about their orders (proofs, pickup, due dates).
    receives_email: bool = True


def _part(value: str | None, field: str, max_len: int) -> str | None:
    """A trimmed text, None for an empty one; its length checked."""
    if value is None:
        return None
    storable(value, field)
    cleaned = value.strip()
    if len(cleaned) > max_len:
        raise invalid(f"Shorten the {label(field)} to at most {max_len} characters.", field)
    return cleaned or None


def email(value: str | None) -> str | None:
    cleaned = _part(value, "email", MAX_EMAIL)
    if cleaned is not None and not _EMAIL.fullmatch(cleaned):
        raise invalid(f"'{cleaned}' is not an email address (name@example.com).", "email")
    return cleaned


def phone(value: str | None) -> str | None:
    cleaned = _part(value, "phone", MAX_PHONE)
    if cleaned is not None and (
        not _PHONE.fullmatch(cleaned) or sum(c.isdigit() for c in cleaned) < 3
    ):
        raise invalid(
            "A phone number has digits, spaces and + ( ) - . / only, e.g. +44 20 7946 0018.",
            "phone",
        )
    return cleaned


def address(
    lines: list[str], postcode: str | None, city: str | None, country: str | None
) -> Address:
    with every_problem() as check:
        kept = check(_lines, lines)
        cleaned = [
            check(_part, postcode, "address.postcode", MAX_SHORT),
            check(_part, city, "address.city", MAX_PLACE),
            check(_part, country, "address.country", MAX_PLACE),
        ]
    return Address(kept, *cleaned)


def _lines(lines: list[str]) -> tuple[str, ...]:
    if len(lines) > MAX_LINES:
        raise invalid(f"An address has at most {MAX_LINES} lines.", "address.lines")
    return tuple(
        line for line in (_part(v, "address.lines", MAX_LINE) for v in lines) if line is not None
    )


def contact_name(value: str | None) -> str | None:
    return _part(value, "contactName", MAX_NAME)


def notes(value: str | None) -> str | None:
    return _part(value, "notes", MAX_NOTES)
