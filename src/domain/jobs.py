"""The job line: one short line saying what a work order is, from its free-form details.

Wall displays and queues show it instead of the whole `details` object. The first of
these that is present wins: `title`; `product` (with `quantity`: "500 x Flyers A5"); the
first line item's `description` (with its `quantity`); the first line of `notes`.
"""

import json
import re
from typing import Any

from domain import validation
from domain.errors import DomainError
from domain.validation import JOB_FIELDS

MAX_JOB_LINE = 80


def job_line(details: dict[str, Any]) -> str | None:
    line = _text(details.get("title"))
    if line is None:
        job = read_job(details)
        line = _with_quantity(job["product"], job["quantity"])
    items = details.get("items")
    if line is None and isinstance(items, list) and items and isinstance(items[0], dict):
        line = _with_quantity(items[0].get("description"), items[0].get("quantity"))
    if line is None:
        notes = _text(details.get("notes"))
        line = notes.splitlines()[0] if notes else None
    if line is None:
        return None
    return line if len(line) <= MAX_JOB_LINE else line[: MAX_JOB_LINE - 1] + "…"


def _text(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def _with_quantity(what: Any, quantity: Any) -> str | None:
    name = _text(what)
    if name is None:
        return None
    count = read_field("quantity", quantity)
    return f"{count} x {name}" if count else name


def read_job(details: dict[str, Any]) -> dict[str, Any]:
    """The job's fields as stored in `details`, or None where one is missing or not of its
    kind: an order from before the rules may say "abc" for its quantity, and still reads
    (as no quantity). A text longer than its cap reads whole: the cap is for what is
    written, and screens wrap what they show."""
    return {key: read_field(key, details.get(key)) for key in JOB_FIELDS}


def read_field(key: str, value: Any) -> str | int | None:
    if key != "quantity":
        return _text(value)
    try:
        return validation.quantity(value)
    except DomainError:
        return None


def detail_lines(details: dict[str, Any]) -> list[tuple[str, str]]:
    """Every detail as a label and a value in words, in the order given: "paperType" and
    "paper_type" read "Paper type"; a list or an object is shown as JSON."""
    return [(detail_label(key), detail_value(value)) for key, value in details.items()]


def detail_label(key: str) -> str:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", key)
    words = [
        w if len(w) > 1 and w.isupper() else w.lower() for w in re.split(r"[\s_-]+", spaced) if w
    ]
    if not words:
        return key
    text = " ".join(words)
    return text[0].upper() + text[1:]


def detail_value(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))  # as a browser writes a JSON number: 2.0 is "2"
    return str(value)
