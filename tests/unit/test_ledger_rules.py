"""The ledger's rules in the domain: the sign table, what content a retry repeats, the totals."""

import pytest

from domain import ledger
from domain.enums import LedgerEntryKind as K
from domain.errors import DomainError, ErrorCode
from domain.ledger import EntryContent
from domain.money import Money

EUR = "EUR"


@pytest.mark.parametrize(
    ("kind", "sent", "stored"),
    [
        (K.CHARGE, 500, 500),
        (K.REFUND, 500, 500),
        (K.PAYMENT, 500, -500),
        (K.CREDIT, 500, -500),
        (K.ADJUSTMENT, 500, 500),
        (K.ADJUSTMENT, -500, -500),
    ],
)
def test_signed_follows_the_kind(kind: K, sent: int, stored: int) -> None:
    assert ledger.signed(kind, Money(sent, EUR)) == Money(stored, EUR)
    assert ledger.sign_allowed(kind, stored)


@pytest.mark.parametrize(
    ("kind", "sent", "says"),
    [
        (K.CHARGE, 0, "must be positive"),
        (K.PAYMENT, -1, "must be positive"),
        (K.CREDIT, 0, "must be positive"),
        (K.REFUND, -100, "must be positive"),
        (K.ADJUSTMENT, 0, "must not be zero"),
    ],
)
def test_signed_refuses_amounts_the_kind_cannot_take(kind: K, sent: int, says: str) -> None:
    with pytest.raises(DomainError) as info:
        ledger.signed(kind, Money(sent, EUR))
    assert (info.value.code, info.value.field) == (ErrorCode.INVALID_INPUT, "amount")
    assert says in info.value.message


def test_every_kind_has_a_sign() -> None:
    assert set(ledger.SIGNS) == set(K)
    assert set(ledger.CHARGED_KINDS) | set(ledger.PAID_KINDS) == set(K) - {K.ADJUSTMENT}


def test_totals_per_currency_shown_positive() -> None:
    entries = [
        (K.CHARGE, Money(10_000, EUR)),
        (K.CREDIT, Money(-1_000, EUR)),
        (K.PAYMENT, Money(-5_000, EUR)),
        (K.REFUND, Money(500, EUR)),
        (K.ADJUSTMENT, Money(7, EUR)),
        (K.CHARGE, Money(300, "JPY")),
    ]
    assert ledger.total(entries, ledger.CHARGED_KINDS) == [Money(9_000, EUR), Money(300, "JPY")]
    assert ledger.total(entries, ledger.PAID_KINDS) == [Money(4_500, EUR)]
    assert ledger.total([], ledger.PAID_KINDS) == []


def _content(**over: object) -> EntryContent:
    base: dict[str, object] = {
        "customer_id": 1,
        "work_order_id": None,
        "kind": K.PAYMENT,
        "amount": Money(-100, EUR),
        "memo": None,
    }
    return EntryContent(**{**base, **over})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "change",
    [{"amount": Money(-101, EUR)}, {"memo": "x"}, {"work_order_id": 2}, {"kind": K.CREDIT}],
)
def test_an_entry_of_other_content_is_another_post(change: dict[str, object]) -> None:
    assert _content() == _content()
    assert _content() != _content(**change)


def test_a_charge_needs_an_order_that_is_not_cancelled() -> None:
    assert ledger.charge_refusal(K.CHARGE, order_cancelled=False) is None
    assert ledger.charge_refusal(K.PAYMENT, order_cancelled=True) is None
    refusal = ledger.charge_refusal(K.CHARGE, order_cancelled=True)
    assert refusal is not None and refusal.code is ErrorCode.WORK_ORDER_CLOSED
