"""Accounts at a glance: receivablesAgeing (each customer's balance per currency, aged by
its oldest unpaid charge when payments and credits pay the oldest first, in four buckets,
with totals), and chargeWorkOrderQuote (a CHARGE of the current quote, once per quote,
under races too)."""

import asyncio
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from db import clock, customers
from db.engine import unit_of_work
from db.ledger import NewEntry, post_entry
from domain import ledger
from domain.contacts import Contact
from domain.enums import LedgerEntryKind
from domain.ledger import EntryContent
from domain.money import parse_money
from tests.support.client import Client, gid
from tests.support.database import table_snapshot
from tests.support.shop import Shop

AGEING = """{ receivablesAgeing {
  totals { currency owed { amount } current { amount } days31To60 { amount }
           days61To90 { amount } over90 { amount } }
  customers { customer { name } balance { amount currency } days bucket } } }"""
CHARGE = """mutation C($i: ChargeWorkOrderQuoteInput!) { chargeWorkOrderQuote(input: $i) {
  changed entry { id kind amount { amount currency } idempotencyKey memo }
  userErrors { code message } } }"""
QUOTE = """mutation Q($i: UpdateWorkOrderQuoteInput!) {
  updateWorkOrderQuote(input: $i) { userErrors { code } } }"""
CANCEL = """mutation($i: CancelWorkOrderInput!) {
  cancelWorkOrder(input: $i) { userErrors { code } } }"""
HOLD = (
    """mutation H($i: HoldWorkOrderInput!) { holdWorkOrder(input: $i) { userErrors { code } } }"""
)


async def customer(shop: Shop, name: str) -> int:
    async with unit_of_work(shop.engine) as conn:
        made = await customers.create_customer(conn, name, shop.users["sam"], Contact())
    return int(made.customer.id)


async def post(
    shop: Shop, who: int, kind: LedgerEntryKind, amount: str, days_ago: int, currency: str = "EUR"
) -> None:
    async with unit_of_work(shop.engine) as conn:
        await clock.stamp_as_of(conn, datetime.now(UTC) - timedelta(days=days_ago, hours=1))
        money = ledger.signed(kind, parse_money(Decimal(amount), currency, None))
        content = EntryContent(who, None, kind, money, None)
        await post_entry(conn, NewEntry(content, f"{who}-{kind}-{days_ago}", shop.users["abe"]))


async def test_customers_are_aged_by_their_oldest_unpaid_charge(shop: Shop, api: Client) -> None:
    acme = shop.customer_id
    # ACME: 100 charged 100 days ago and 50 charged 45 days ago, 120 paid 10 days ago:
    # the payment pays the first charge whole, so the oldest unpaid is the second.
    await post(shop, acme, LedgerEntryKind.CHARGE, "100", 100)
    await post(shop, acme, LedgerEntryKind.CHARGE, "50", 45)
    await post(shop, acme, LedgerEntryKind.PAYMENT, "120", 10)
    bravo, crow, dune, echo = [await customer(shop, n) for n in ("Bravo", "Crow", "Dune", "Echo")]
    await post(shop, bravo, LedgerEntryKind.CHARGE, "200", 5)
    await post(shop, crow, LedgerEntryKind.CHARGE, "80", 95)
    await post(shop, dune, LedgerEntryKind.CHARGE, "60", 70)
    await post(shop, dune, LedgerEntryKind.CREDIT, "60", 1)  # owes nothing: not listed
    await post(shop, echo, LedgerEntryKind.CHARGE, "10", 40, "USD")
    body = (await api.as_(shop.tokens["abe"])(AGEING))["receivablesAgeing"]
    assert [
        (
            c["customer"]["name"],
            c["balance"]["amount"],
            c["balance"]["currency"],
            c["days"],
            c["bucket"],
        )
        for c in body["customers"]
    ] == [
        ("Bravo", "200.00", "EUR", 5, "CURRENT"),
        ("Crow", "80.00", "EUR", 95, "OVER_90"),
        ("ACME", "30.00", "EUR", 45, "DAYS_31_60"),
        ("Echo", "10.00", "USD", 40, "DAYS_31_60"),
    ]
    amounts = [
        (
            t["currency"],
            *(t[k]["amount"] for k in ("owed", "current", "days31To60", "days61To90", "over90")),
        )
        for t in body["totals"]
    ]
    assert amounts == [
        ("EUR", "310.00", "200.00", "30.00", "0.00", "80.00"),
        ("USD", "10.00", "0.00", "10.00", "0.00", "0.00"),
    ]


@pytest.mark.parametrize(("who", "allowed"), [("abe", True), ("ada", True), ("sam", False)])
async def test_only_accounts_see_the_ageing(
    shop: Shop, api: Client, who: str, allowed: bool
) -> None:
    body = await api.as_(shop.tokens[who]).raw(AGEING)
    assert ("errors" not in body) is allowed


async def charge(api: Client, shop: Shop, order: int, who: str = "abe") -> dict[str, Any]:
    body = await api.as_(shop.tokens[who])(CHARGE, {"i": {"workOrderId": gid("WorkOrder", order)}})
    payload: dict[str, Any] = body["chargeWorkOrderQuote"]
    return payload


async def test_the_quote_is_charged_once_until_it_changes(shop: Shop, api: Client) -> None:
    order = await shop.order(["print"], quote=parse_money(Decimal("480.50"), "EUR", "quote"))
    first = await charge(api, shop, order)
    assert first["changed"] is True and first["userErrors"] == []
    assert first["entry"]["kind"] == "CHARGE"
    assert first["entry"]["amount"] == {"amount": "480.50", "currency": "EUR"}
    assert first["entry"]["idempotencyKey"] == "quote-charge:WO-000001:1"
    assert first["entry"]["memo"] == "Quote of WO-000001"
    # Again, and again after the order moved on (a hold: a new version, the same quote).
    await api.as_(shop.tokens["sam"])(
        HOLD, {"i": {"workOrderId": gid("WorkOrder", order), "reason": "Proof."}}
    )
    for _ in range(2):
        again = await charge(api, shop, order)
        assert (again["changed"], again["entry"]["id"]) == (False, first["entry"]["id"])
    # A new quote is charged anew, under the order's new version.
    await api.as_(shop.tokens["sam"])(
        QUOTE,
        {
            "i": {
                "workOrderId": gid("WorkOrder", order),
                "quote": {"amount": "500", "currency": "EUR"},
            }
        },
    )
    renewed = await charge(api, shop, order)
    assert renewed["changed"] is True
    assert renewed["entry"]["amount"]["amount"] == "500.00"
    assert renewed["entry"]["idempotencyKey"] == "quote-charge:WO-000001:3"


async def test_racing_clicks_post_one_charge(shop: Shop, api: Client) -> None:
    order = await shop.order(["print"], quote=parse_money(Decimal("99.00"), "EUR", "quote"))
    answers = await asyncio.gather(*(charge(api, shop, order) for _ in range(8)))
    assert sorted(a["changed"] for a in answers) == [False] * 7 + [True]
    assert len({a["entry"]["id"] for a in answers}) == 1


@pytest.mark.parametrize(
    ("case", "code", "message"),
    [
        ("no quote", "INVALID_INPUT", "The work order has no quote to charge: set one first."),
        ("cancelled", "WORK_ORDER_CLOSED", "The work order is cancelled: it cannot be charged."),
    ],
)
async def test_a_quote_that_cannot_be_charged_is_refused_in_words(
    shop: Shop, api: Client, case: str, code: str, message: str
) -> None:
    quote = parse_money(Decimal("10"), "EUR", "quote") if case == "cancelled" else None
    order = await shop.order(["print"], quote=quote)
    if case == "cancelled":
        await api.as_(shop.tokens["sam"])(
            CANCEL, {"i": {"workOrderId": gid("WorkOrder", order), "reason": "No."}}
        )
    before = await table_snapshot(shop.engine)
    answer = await charge(api, shop, order)
    assert answer["entry"] is None
    assert [(e["code"], e["message"]) for e in answer["userErrors"]] == [(code, message)]
    assert await table_snapshot(shop.engine) == before
