"""Idempotency keys in the domain: what a key may be, a create's fingerprint, and the rule a
repeated key follows (the ledger's and the creates')."""

from datetime import UTC, datetime, timedelta, timezone

import pytest

from domain import idempotency
from domain.contacts import Address, Contact
from domain.errors import DomainError, ErrorCode
from domain.money import Money


@pytest.mark.parametrize(
    ("key", "says"),
    [
        ("", "Fill in the idempotency key."),
        ("  ", "Fill in the idempotency key."),
        ("k" * 201, "at most 200 characters"),
        ("a\x00b", "NUL"),
        ("a\ud800b", "lone surrogate"),
    ],
)
def test_bad_keys_are_refused_in_words(key: str, says: str) -> None:
    with pytest.raises(DomainError) as info:
        idempotency.key(key)
    assert (info.value.code, info.value.field) == (ErrorCode.INVALID_INPUT, "idempotencyKey")
    assert says in info.value.message


def test_a_key_is_kept_as_sent() -> None:
    assert idempotency.key(" k" * 100) == " k" * 100
    assert idempotency.optional_key(None) is None


def _asked(**over: object) -> dict[str, object]:
    base: dict[str, object] = {
        "details": {"product": "Flyers", "quantity": 500},
        "quote": Money(12_000, "EUR"),
        "due_at": datetime(2031, 3, 1, 12, tzinfo=UTC),
        "contact": Contact(address=Address(("1 Mill Lane",))),
    }
    return {**base, **over}


def test_one_request_spelled_otherwise_has_one_fingerprint() -> None:
    plus_one = timezone(timedelta(hours=1))
    respelled = _asked(
        details={"quantity": 500, "product": "Flyers"},
        due_at=datetime(2031, 3, 1, 13, tzinfo=plus_one),
    )
    assert idempotency.fingerprint(respelled) == idempotency.fingerprint(_asked())
    assert len(idempotency.fingerprint(_asked())) == 64


@pytest.mark.parametrize(
    "change",
    [
        {"details": {"product": "Flyers", "quantity": 501}},
        {"quote": Money(12_000, "USD")},
        {"quote": None},
        {"due_at": datetime(2031, 3, 1, 12, 1, tzinfo=UTC)},
        {"contact": Contact(address=Address(("2 Mill Lane",)))},
    ],
)
def test_other_content_has_another_fingerprint(change: dict[str, object]) -> None:
    assert idempotency.fingerprint(_asked(**change)) != idempotency.fingerprint(_asked())


def test_a_repeated_key_is_a_retry_only_with_the_same_content() -> None:
    idempotency.repeat("k-1", True, "work order")
    with pytest.raises(DomainError) as info:
        idempotency.repeat("k-1", False, "work order")
    assert (info.value.code, info.value.field) == (ErrorCode.DUPLICATE, "idempotencyKey")
    assert (
        info.value.message == "Idempotency key 'k-1' was already used for a different work order."
    )
