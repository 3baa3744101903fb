"""Idempotency keys: one per intended write, chosen by the client, so that a double click or
a retry after a lost answer makes nothing twice.

The ledger's rule, which the creates (work orders, customers, users) share: a key already
used with the same content is a retry, answered with what it made and `changed: false`; a
key already used with other content is `DUPLICATE`, naming the key. A ledger entry never
changes, so the ledger compares the entry itself; a created object may be edited later, so
a create keeps a fingerprint of what it was asked and compares that.
"""

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from domain.errors import DomainError, ErrorCode
from domain.validation import invalid, label, storable

MAX_KEY = 200
FIELD = "idempotencyKey"


def key(value: str) -> str:
    storable(value, FIELD)
    if not value.strip():
        raise invalid(f"Fill in the {label(FIELD)}.", FIELD)
    if len(value) > MAX_KEY:
        raise invalid(f"Shorten the {label(FIELD)} to at most {MAX_KEY} characters.", FIELD)
    return value


def optional_key(value: str | None) -> str | None:
    return None if value is None else key(value)


def fingerprint(asked: Mapping[str, Any]) -> str:
    """What a create was asked to make, as a SHA-256 of its canonical JSON (keys sorted,
    instants in UTC): two spellings of one request are one fingerprint. `asked` holds
    checked values (an email as stored, codes deduplicated), never a password."""
    text = json.dumps(
        asked, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_plain
    )
    return hashlib.sha256(text.encode()).hexdigest()


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    raise TypeError(f"{type(value).__name__} has no canonical form")


def repeat(used_key: str, same_content: bool, what: str) -> None:
    """A key already used is a retry only when it carries the same content."""
    if not same_content:
        raise DomainError(
            ErrorCode.DUPLICATE,
            f"Idempotency key '{used_key}' was already used for a different {what}.",
            FIELD,
        )
