"""Input rules shared by every use case: limits and formats, each with a specific message."""

import json
import re
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any, ParamSpec, TypeVar

from domain.errors import DomainError, ErrorCode, InputErrors, each
from domain.money import Money

MAX_NAME = 200
MAX_REASON = 1000
MAX_EMAIL = 254
MAX_DETAILS_BYTES = 16_384
MIN_PASSWORD = 8
MAX_PASSWORD = 256

# Matched with fullmatch: `$` would also accept a trailing newline.
_SLUG = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?")
_ORDER_NUMBER = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,39}")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def invalid(message: str, field: str) -> DomainError:
    return DomainError(ErrorCode.INVALID_INPUT, message, field)


P = ParamSpec("P")
T = TypeVar("T")


class Checks:
    """The checks of one input's fields, each run whatever the others found."""

    def __init__(self) -> None:
        self.errors: list[DomainError] = []

    def __call__(self, check: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return check(*args, **kwargs)
        except DomainError as error:
            self.errors.extend(each(error))
            # Never read: leaving the `every_problem` block raises first.
            return None  # type: ignore[return-value]


@contextmanager
def every_problem() -> Iterator[Checks]:
    """`with every_problem() as check: a = check(rule, value, ...)`: every field's rule
    runs, and leaving the block raises one InputErrors holding each problem found, so
    that an answer names them all at once. A rule's value is read only after the block."""
    checks = Checks()
    yield checks
    if checks.errors:
        raise InputErrors(checks.errors)


# What a person calls a field: a message names "the due date", never `dueAt` (the field
# path is in the error's `field`). A field not listed reads as its name's words.
_LABELS = {
    "code": "department code",
    "departmentCode": "department code",
    "departmentCodes": "department code",
    "followsCodes": "department code",
    "dueAt": "due date",
    "expiresAt": "expiry date",
    "details": "job details",
    "newPassword": "new password",
    "oldPassword": "current password",
    "lines": "address line",
    "url": "web address",
    "from": "start",
    "to": "end",
    "order_number": "order number",
    "posted_by": "name of who posted it",
}


def label(field: str) -> str:
    """`address.postcode` -> "postcode", `contactName` -> "contact name"."""
    last = field.rsplit(".", 1)[-1]
    return _LABELS.get(last) or re.sub(r"(?<=[a-z])(?=[A-Z])|_", " ", last).lower()


def text(value: str, field: str, *, max_len: int = MAX_NAME) -> str:
    storable(value, field)
    cleaned = value.strip()
    if not cleaned:
        raise invalid(f"Fill in the {label(field)}.", field)
    if len(cleaned) > max_len:
        raise invalid(f"Shorten the {label(field)} to at most {max_len} characters.", field)
    return cleaned


# Lone UTF-16 surrogates (JSON "\ud800") are not characters: no UTF-8 encodes them.
_SURROGATE = re.compile("[\ud800-\udfff]")


def holdable(value: str) -> bool:
    """Whether PostgreSQL text can hold `value`: storable's rule, as an answer."""
    return "\x00" not in value and not _SURROGATE.search(value)


def storable(value: str, field: str) -> None:
    """PostgreSQL text holds neither NUL characters nor lone surrogates."""
    if "\x00" in value:
        raise invalid(f"Remove the NUL characters from the {label(field)}.", field)
    if _SURROGATE.search(value):
        raise invalid(
            f"The {label(field)} holds a character that is not valid Unicode (a lone "
            "surrogate): remove it.",
            field,
        )


def reason(value: str) -> str:
    return text(value, "reason", max_len=MAX_REASON)


def slug(value: str, field: str = "code") -> str:
    if not _SLUG.fullmatch(value):
        raise invalid(
            f"A {label(field)} is 1 to 40 lowercase letters, digits and inner hyphens, "
            f"not '{value}'.",
            field,
        )
    return value


def order_number(value: str) -> str:
    cleaned = value.strip()
    if not _ORDER_NUMBER.fullmatch(cleaned):
        raise invalid(
            "An order number is 1 to 40 letters, digits, '.', '_', '/' or '-', "
            "beginning with a letter or digit.",
            "orderNumber",
        )
    return cleaned


def email(value: str) -> str:
    """An email address in the one form it is stored and looked up in: NFKC, case-folded,
    NFKC again (Unicode's NFKC_Casefold), so every spelling of one address (`PAT@`,
    fullwidth letters) is one account and one sign-in counter."""
    storable(value, "email")
    folded = unicodedata.normalize("NFKC", value.strip()).casefold()
    cleaned = unicodedata.normalize("NFKC", folded)
    if len(cleaned) > MAX_EMAIL or not _EMAIL.fullmatch(cleaned):
        raise invalid(f"'{value}' is not an email address (name@example.com).", "email")
    return cleaned


def password(value: str, field: str = "password") -> str:
    storable(value, field)
    if not MIN_PASSWORD <= len(value) <= MAX_PASSWORD:
        raise invalid(
            f"Choose a {label(field)} of {MIN_PASSWORD} to {MAX_PASSWORD} characters.", field
        )
    return value


def details(value: Any) -> dict[str, Any]:
    """`details` is a JSON object with a size cap: the job's fields under their keys
    (`JOB_FIELDS`, each checked as `job_field` does, at `details.<key>`), and whatever else
    a shop keeps of its own."""
    if value is None:
        return {}
    try:
        if isinstance(value, str):
            value = json.loads(value, parse_constant=_reject_constant)
        dumped = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except json.JSONDecodeError as exc:
        raise invalid(
            f"The job details are not valid JSON (line {exc.lineno}, column {exc.colno}).",
            "details",
        ) from None
    except ValueError:
        raise invalid(
            "The job details are not valid JSON: NaN and Infinity are not JSON numbers.",
            "details",
        ) from None
    except RecursionError:
        raise invalid("The job details are nested too deeply.", "details") from None
    if not isinstance(value, dict):
        raise invalid('The job details must be a JSON object ({"name": value, ...}).', "details")
    storable(dumped, "details")
    encoded = dumped.encode()
    if b"\\u0000" in encoded:
        raise invalid("Remove the NUL characters from the job details.", "details")
    if len(encoded) > MAX_DETAILS_BYTES:
        raise invalid(f"Shorten the job details to at most {MAX_DETAILS_BYTES} bytes.", "details")
    with every_problem() as check:
        job = {
            key: check(job_field, key, value[key], f"details.{key}")
            for key in JOB_FIELDS
            if key in value
        }
    return with_job(value, job)


# The job: what is made, in `details` under these keys beside a shop's own. Each but the
# quantity is text with a cap: short for what a queue card and a ticket show in a line,
# longer for the notes. Beyond these a text is a paste gone wrong, not a job.
JOB_TEXTS = {
    "product": 200,
    "size": 100,
    "stock": 200,
    "colours": 100,
    "finishing": 200,
    "notes": 4000,
}
JOB_FIELDS = ("product", "quantity", "size", "stock", "colours", "finishing", "notes")
MAX_QUANTITY = 10_000_000
_DIGITS = re.compile(r"[0-9]{1,12}")


def job_field(key: str, value: Any, field: str) -> str | int | None:
    """One of the job's fields checked, trimmed; None when blank (the field is left out)."""
    if value is None:
        return None
    if key == "quantity":
        return quantity(value, field)
    if not isinstance(value, str):
        raise invalid(f"Write the {label(field)} as text.", field)
    return text(value, field, max_len=JOB_TEXTS[key]) if value.strip() else None


def quantity(value: Any, field: str = "quantity") -> int | None:
    """A whole number from 1 to MAX_QUANTITY: a JSON number, or its digits as text (what a
    form's field holds); None when blank."""
    if isinstance(value, str):
        if not value.strip():
            return None
        if _DIGITS.fullmatch(value.strip()):
            value = int(value.strip())
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_QUANTITY:
        raise invalid(
            f"Give the {label(field)} as a whole number from 1 to {MAX_QUANTITY:,}.", field
        )
    return value


def with_job(details: dict[str, Any], job: dict[str, Any]) -> dict[str, Any]:
    """`details` with the job's checked fields laid over them, in place: the job wins, and a
    field it holds as None (blank, or not given) is removed."""
    merged = details | job
    return {k: v for k, v in merged.items() if not (k in job and v is None)}


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


def search(value: str | None, max_len: int = 100) -> str | None:
    """A search term as a LIKE pattern matching it literally (None when blank)."""
    if value is None or not value.strip():
        return None
    if len(value) > max_len:
        raise invalid(f"Shorten the search to at most {max_len} characters.", "search")
    storable(value, "search")
    escaped = value.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped


def quote(amount: Money) -> Money:
    if amount.minor < 0:
        raise invalid("A quote cannot be negative.", "quote.amount")
    return amount


def codes(values: list[str], field: str = "departmentCodes") -> list[str]:
    """Department codes, deduplicated in the order given."""
    seen: dict[str, None] = {}
    for value in values:
        seen[slug(value, field)] = None
    return list(seen)


def expiry(value: datetime | None, field: str, *, default_days: int, max_days: int) -> datetime:
    """When a token stops working: `value`, or `default_days` ahead when omitted; never
    more than `max_days` ahead."""
    now = datetime.now(UTC)
    if value is None:
        return now + timedelta(days=min(default_days, max_days))
    chosen = future(value, field)
    assert chosen is not None
    if chosen > now + timedelta(days=max_days):
        raise invalid(f"Choose an {label(field)} at most {max_days} days ahead.", field)
    return chosen


def expired(expires_at: datetime | None, now: datetime) -> bool:
    """Whether a token that stops working at `expires_at` (None: never) has by `now` (the
    server's clock, not the caller's)."""
    return expires_at is not None and expires_at <= now


def zoned(value: datetime, field: str) -> None:
    """A moment given with its time zone: without one, it is no moment at all."""
    if value.tzinfo is None:
        raise invalid(
            f"Give the {label(field)} with its time zone (e.g. 2027-01-31T18:00:00Z).", field
        )


def future(value: datetime | None, field: str) -> datetime | None:
    """An optional moment that must be ahead, with its time zone given."""
    if value is None:
        return None
    zoned(value, field)
    if value <= datetime.now(UTC):
        raise invalid(f"Choose an {label(field)} in the future.", field)
    return value


# A due date is a date in the shop's calendar: from 2000 on, and at most five years ahead
# (anything outside is a typo, not a plan). It may be in the past: an order taken late.
EARLIEST_DUE = datetime(2000, 1, 1, tzinfo=UTC)
DUE_YEARS_AHEAD = 5


def due_at(value: datetime | None, field: str = "dueAt") -> datetime | None:
    if value is None:
        return None
    zoned(value, field)
    if value < EARLIEST_DUE:
        raise invalid(f"Choose a {label(field)} from 2000 on.", field)
    if value > datetime.now(UTC) + timedelta(days=365 * DUE_YEARS_AHEAD + 1):
        raise invalid(f"Choose a {label(field)} at most {DUE_YEARS_AHEAD} years ahead.", field)
    return value
