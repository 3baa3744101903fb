"""The customer ledger through the real HTTP API and the real database.

Posting each kind (the kind gives the sign), idempotency keys (a retry returns the
original, other content is DUPLICATE, 20 concurrent posts make one entry), balances
per currency and the running balance, exact amounts, work order totals, who may see
and post what (subscriptions included), the database's own guards (sign CHECK,
append-only trigger), and quote changes in the work order's history.
"""

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from decimal import Decimal
from typing import Any

import pytest
import websockets
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from db.engine import unit_of_work
from db.fanout import LEDGER_CHANNEL
from domain.enums import LedgerEntryKind
from domain.ledger import SIGNS, sign_allowed
from tests.support.client import Client, gid
from tests.support.database import table_snapshot
from tests.support.shop import Shop

POST = """mutation Post($i: PostLedgerEntryInput!) { postLedgerEntry(input: $i) {
  changed entry { id kind amount { amount currency } balanceAfter { amount currency }
                  memo idempotencyKey customer { name } workOrder { orderNumber }
                  postedBy { name } }
  userErrors { code field message } } }"""
CUSTOMER = """query Customer($c: ID!, $first: Int, $after: String) { customer(id: $c) {
  balance { amount currency }
  ledger(first: $first, after: $after) {
    edges { cursor node { kind amount { amount currency } balanceAfter { amount currency } } }
    pageInfo { hasNextPage endCursor } } } }"""
ORDER_MONEY = """query Order($w: ID!) { workOrder(id: $w) {
  charged { amount currency } paid { amount currency }
  ledger { kind amount { amount } } } }"""


def entry(shop: Shop, kind: str, amount: str, key: str, **extra: Any) -> dict[str, Any]:
    return {
        "i": {
            "customerId": gid("Customer", shop.customer_id),
            "kind": kind,
            "amount": amount,
            "idempotencyKey": key,
            **extra,
        }
    }


async def post(api: Client, shop: Shop, *args: Any, who: str = "abe", **extra: Any) -> Any:
    result = await api.as_(shop.tokens[who])(POST, entry(shop, *args, **extra))
    return result["postLedgerEntry"]


async def count(engine: AsyncEngine, sql: str) -> int:
    async with engine.connect() as conn:
        return int(await conn.scalar(text(sql)) or 0)


def money(amount: str, currency: str = "EUR") -> dict[str, str]:
    return {"amount": amount, "currency": currency}


# ---------------------------------------------------------------------------------------------
# Posting: the kind gives the sign.


@pytest.mark.parametrize(
    ("kind", "sent", "stored"),
    [
        ("CHARGE", "120.50", "120.50"),
        ("REFUND", "20.00", "20.00"),
        ("PAYMENT", "100.00", "-100.00"),
        ("CREDIT", "5.25", "-5.25"),
        ("ADJUSTMENT", "-3.10", "-3.10"),
        ("ADJUSTMENT", "7.00", "7.00"),
    ],
)
async def test_the_kind_gives_the_sign(
    api: Client, shop: Shop, kind: str, sent: str, stored: str
) -> None:
    posted = await post(api, shop, kind, sent, f"k-{kind}-{sent}", memo="  Invoice 42  ")
    assert posted["userErrors"] == []
    assert posted["changed"] is True
    e = posted["entry"]
    assert e["kind"] == kind
    assert e["amount"] == money(stored)
    assert e["balanceAfter"] == money(stored)
    assert e["memo"] == "Invoice 42"
    assert e["customer"]["name"] == "ACME"
    assert e["postedBy"]["name"] == "Abe"
    assert await count(shop.engine, "SELECT count(*) FROM customer_ledger_entries") == 1
    # The entry and its event were written together.
    assert (
        await count(shop.engine, "SELECT count(*) FROM events WHERE type = 'LEDGER_ENTRY_POSTED'")
        == 1
    )


async def test_balance_is_one_sum_per_currency(api: Client, shop: Shop) -> None:
    for key, (kind, amount, currency) in enumerate(
        [
            ("CHARGE", "100.00", "EUR"),
            ("PAYMENT", "30.00", "EUR"),
            ("CHARGE", "50", "USD"),
            ("CHARGE", "1000", "JPY"),
            ("CREDIT", "1", "JPY"),
        ]
    ):
        posted = await post(api, shop, kind, amount, f"k{key}", currency=currency)
        assert posted["userErrors"] == []
    result = await api.as_(shop.tokens["abe"])(CUSTOMER, {"c": gid("Customer", shop.customer_id)})
    assert result["customer"]["balance"] == [
        money("70.00", "EUR"),
        money("999", "JPY"),
        money("50.00", "USD"),
    ]


async def test_the_shops_currency_is_the_default(api: Client, shop: Shop) -> None:
    posted = await post(api, shop, "CHARGE", "1.00", "k1")
    assert posted["entry"]["amount"]["currency"] == "EUR"


async def test_amounts_are_exact(api: Client, shop: Shop) -> None:
    """No float anywhere: 0.10 + 0.20 is 0.30, and the largest amounts add up exactly."""
    await post(api, shop, "CHARGE", "0.10", "a")
    second = await post(api, shop, "CHARGE", "0.20", "b")
    assert second["entry"]["balanceAfter"] == money("0.30")
    big = "99999999.99"
    for key in ("c", "d", "e"):
        last = await post(api, shop, "CHARGE", big, key)
    assert Decimal(last["entry"]["amount"]["amount"]) == Decimal(big)
    # 0.30 + 3 x 99,999,999.99
    assert last["entry"]["balanceAfter"] == money("300000000.27")
    async with shop.engine.connect() as conn:
        minor = await conn.scalar(text("SELECT sum(amount_minor) FROM customer_ledger_entries"))
    assert minor == 30_000_000_027


# ---------------------------------------------------------------------------------------------
# Idempotency.


async def test_a_retry_returns_the_original_entry(api: Client, shop: Shop) -> None:
    first = await post(api, shop, "PAYMENT", "40.00", "pay-1", memo="cash")
    again = await post(api, shop, "PAYMENT", "40.00", "pay-1", memo="cash")
    assert (first["changed"], again["changed"]) == (True, False)
    assert again["entry"] == first["entry"]
    assert again["userErrors"] == []
    assert await count(shop.engine, "SELECT count(*) FROM customer_ledger_entries") == 1
    assert await count(shop.engine, "SELECT count(*) FROM events") > 0
    assert (
        await count(shop.engine, "SELECT count(*) FROM events WHERE type = 'LEDGER_ENTRY_POSTED'")
        == 1
    )


@pytest.mark.parametrize(
    "change",
    [
        {"amount": "40.01"},
        {"kind": "CREDIT"},
        {"memo": "cheque"},
        {"currency": "USD"},
    ],
)
async def test_the_same_key_with_other_content_is_duplicate(
    api: Client, shop: Shop, change: dict[str, str]
) -> None:
    await post(api, shop, "PAYMENT", "40.00", "pay-1", memo="cash")
    before = await table_snapshot(shop.engine)
    variables = entry(shop, "PAYMENT", "40.00", "pay-1", memo="cash")
    variables["i"].update(change)
    result = await api.as_(shop.tokens["abe"])(POST, variables)
    errors = result["postLedgerEntry"]["userErrors"]
    assert [(e["code"], e["field"]) for e in errors] == [("DUPLICATE", "idempotencyKey")]
    assert "'pay-1'" in errors[0]["message"]
    assert result["postLedgerEntry"]["entry"] is None
    assert await table_snapshot(shop.engine) == before


async def test_twenty_concurrent_posts_with_one_key_make_one_entry(api: Client, shop: Shop) -> None:
    results = await asyncio.gather(
        *(post(api, shop, "PAYMENT", "12.34", "same-key") for _ in range(20))
    )
    assert all(r["userErrors"] == [] for r in results)
    assert sorted(r["changed"] for r in results) == [False] * 19 + [True]
    assert len({r["entry"]["id"] for r in results}) == 1
    assert await count(shop.engine, "SELECT count(*) FROM customer_ledger_entries") == 1
    assert (
        await count(shop.engine, "SELECT count(*) FROM events WHERE type = 'LEDGER_ENTRY_POSTED'")
        == 1
    )


# ---------------------------------------------------------------------------------------------
# Reading: the running balance, pages, work order totals.


async def test_ledger_is_newest_first_with_a_running_balance_page_by_page(
    api: Client, shop: Shop
) -> None:
    moves = [
        ("CHARGE", "100.00", "EUR"),
        ("CHARGE", "10", "USD"),
        ("PAYMENT", "30.00", "EUR"),
        ("ADJUSTMENT", "-0.50", "EUR"),
        ("REFUND", "5.00", "EUR"),
        ("PAYMENT", "10", "USD"),
        ("CREDIT", "4.50", "EUR"),
    ]
    for n, (kind, amount, currency) in enumerate(moves):
        await post(api, shop, kind, amount, f"m{n}", currency=currency)
    seen: list[tuple[str, dict[str, str], dict[str, str]]] = []
    after = None
    pages = 0
    while True:
        result = await api.as_(shop.tokens["abe"])(
            CUSTOMER, {"c": gid("Customer", shop.customer_id), "first": 3, "after": after}
        )
        ledger = result["customer"]["ledger"]
        pages += 1
        seen += [
            (e["node"]["kind"], e["node"]["amount"], e["node"]["balanceAfter"])
            for e in ledger["edges"]
        ]
        if not ledger["pageInfo"]["hasNextPage"]:
            break
        after = ledger["pageInfo"]["endCursor"]
    assert pages == 3
    assert seen == [
        ("CREDIT", money("-4.50"), money("70.00")),
        ("PAYMENT", money("-10.00", "USD"), money("0.00", "USD")),
        ("REFUND", money("5.00"), money("74.50")),
        ("ADJUSTMENT", money("-0.50"), money("69.50")),
        ("PAYMENT", money("-30.00"), money("70.00")),
        ("CHARGE", money("10.00", "USD"), money("10.00", "USD")),
        ("CHARGE", money("100.00"), money("100.00")),
    ]


async def test_work_order_shows_what_was_charged_and_paid_against_it(
    api: Client, shop: Shop
) -> None:
    order = await shop.order(["print"])
    other = await shop.order(["print"])
    for n, (kind, amount, wo) in enumerate(
        [
            ("CHARGE", "100.00", order),
            ("CREDIT", "10.00", order),
            ("PAYMENT", "50.00", order),
            ("REFUND", "5.00", order),
            ("ADJUSTMENT", "1.00", order),
            ("CHARGE", "999.00", other),
            ("PAYMENT", "1.00", None),
        ]
    ):
        extra = {"workOrderId": gid("WorkOrder", wo)} if wo else {}
        posted = await post(api, shop, kind, amount, f"w{n}", **extra)
        assert posted["userErrors"] == []
    result = await api.as_(shop.tokens["abe"])(ORDER_MONEY, {"w": gid("WorkOrder", order)})
    wo_money = result["workOrder"]
    assert wo_money["charged"] == [money("90.00")]
    assert wo_money["paid"] == [money("45.00")]
    assert [(e["kind"], e["amount"]["amount"]) for e in wo_money["ledger"]] == [
        ("ADJUSTMENT", "1.00"),
        ("REFUND", "5.00"),
        ("PAYMENT", "-50.00"),
        ("CREDIT", "-10.00"),
        ("CHARGE", "100.00"),
    ]


async def test_a_payment_against_a_cancelled_order_is_accepted(api: Client, shop: Shop) -> None:
    order = await shop.order(["print"])
    await api.as_(shop.tokens["sam"])(
        "mutation($i: CancelWorkOrderInput!) { cancelWorkOrder(input: $i) { "
        "userErrors { code } } }",
        {"i": {"workOrderId": gid("WorkOrder", order), "reason": "Withdrawn"}},
    )
    paid = await post(api, shop, "PAYMENT", "10.00", "p", workOrderId=gid("WorkOrder", order))
    assert paid["userErrors"] == []
    charged = await post(api, shop, "CHARGE", "10.00", "c", workOrderId=gid("WorkOrder", order))
    assert [(e["code"], e["field"]) for e in charged["userErrors"]] == [
        ("WORK_ORDER_CLOSED", "workOrderId")
    ]


# ---------------------------------------------------------------------------------------------
# Access: Accounts and admins read and post; Sales edits quotes only; everyone else is refused.

READS = {
    "balance": "query($c: ID!) { customer(id: $c) { balance { amount } } }",
    "ledger": "query($c: ID!) { customer(id: $c) { ledger { edges { node { id } } } } }",
    "charged": "query($w: ID!) { workOrder(id: $w) { charged { amount } } }",
    "paid": "query($w: ID!) { workOrder(id: $w) { paid { amount } } }",
    "refundDue": "query($w: ID!) { workOrder(id: $w) { refundDue { amount } } }",
    "customerRefundDue": "query($c: ID!) { customer(id: $c) { refundDue { amount } } }",
    "orderLedger": "query($w: ID!) { workOrder(id: $w) { ledger { id } } }",
    "node": "query($e: ID!) { node(id: $e) { ... on LedgerEntry { amount { amount } } } }",
}
EXPECTED = {
    "abe": None,
    "ada": None,
    "sam": "FORBIDDEN",
    "pat": "FORBIDDEN",
    "dan": "FORBIDDEN",
    None: "UNAUTHENTICATED",
}


@pytest.mark.parametrize("who", list(EXPECTED), ids=str)
async def test_who_reads_and_posts_the_ledger(api: Client, shop: Shop, who: str | None) -> None:
    order = await shop.order(["print"])
    made = await post(api, shop, "CHARGE", "10.00", "seed", workOrderId=gid("WorkOrder", order))
    variables = {
        "c": gid("Customer", shop.customer_id),
        "w": gid("WorkOrder", order),
        "e": made["entry"]["id"],
    }
    client = api.as_(shop.tokens[who] if who else None)
    expected = EXPECTED[who]
    for name, query in READS.items():
        used = {k: v for k, v in variables.items() if f"${k}" in query}
        body = await client.raw(query, used)
        codes = [e["extensions"]["code"] for e in body.get("errors") or []]
        assert codes == ([expected] if expected else []), (name, body)
    before = await table_snapshot(shop.engine)
    body = await client.raw(POST, entry(shop, "PAYMENT", "1.00", f"by-{who}"))
    codes = [e["extensions"]["code"] for e in body.get("errors") or []]
    if expected:
        assert codes == [expected]
        assert await table_snapshot(shop.engine) == before
    else:
        assert codes == []
        assert body["data"]["postLedgerEntry"]["changed"] is True


@pytest.mark.parametrize("who", ["abe", "pat", "sam"])
async def test_ledger_events_are_for_accounts_only(
    api: Client,
    running_app: tuple[str, Any],
    shop: Shop,
    who: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Subscriptions are checked too: Accounts receive each posting, others are refused."""
    server, app = running_app
    feed = app.state.services.feed
    # Without `after` a subscription gets only what commits once it is in the feed, which
    # no message tells the client: the in-process feed says when it joins.
    joined = asyncio.Event()
    subscribe = feed.subscribe

    @contextlib.asynccontextmanager
    async def joining(channel: str, **options: Any) -> AsyncIterator[Any]:
        async with subscribe(channel, **options) as live:
            if channel == LEDGER_CHANNEL:
                joined.set()
            yield live

    monkeypatch.setattr(feed, "subscribe", joining)
    async with websockets.connect(
        server.replace("http://", "ws://"), subprotocols=["graphql-transport-ws"]
    ) as ws:
        init = {"authorization": f"Bearer {shop.tokens[who]}"}
        await ws.send(json.dumps({"type": "connection_init", "payload": init}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        query = "subscription { ledgerEvents { kind entry { amount { amount } memo } } }"
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": query}}))
        if who != "abe":
            reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert reply["type"] == "error"
            assert reply["payload"][0]["extensions"]["code"] == "FORBIDDEN"
            assert not joined.is_set()
            return
        async with asyncio.timeout(10):
            await joined.wait()
        await post(api, shop, "CHARGE", "2.50", "live", memo="live")
        reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
    assert reply["type"] == "next", reply
    event = reply["payload"]["data"]["ledgerEvents"]
    assert event["kind"] == "LEDGER_ENTRY_POSTED"
    assert event["entry"]["amount"] == {"amount": "2.50"}
    assert event["entry"]["memo"] == "live"


# ---------------------------------------------------------------------------------------------
# The database's own guards.


@pytest.mark.parametrize("kind", list(LedgerEntryKind))
@pytest.mark.parametrize("minor", [5, -5, 0])
async def test_the_database_enforces_the_sign_rule(
    shop: Shop, kind: LedgerEntryKind, minor: int
) -> None:
    """The CHECK constraint and domain.ledger.SIGNS say the same, for every kind and sign."""
    assert kind in SIGNS
    statement = text(
        "INSERT INTO customer_ledger_entries (customer_id, kind, amount_minor, currency, "
        "idempotency_key, posted_by) VALUES (:c, :k, :m, 'EUR', :key, :by)"
    )
    params = {
        "c": shop.customer_id,
        "k": kind.value,
        "m": minor,
        "key": "x",
        "by": shop.users["abe"],
    }
    if sign_allowed(kind, minor):
        async with unit_of_work(shop.engine) as conn:
            await conn.execute(statement, params)
    else:
        with pytest.raises(IntegrityError, match="sign_follows_kind"):
            async with unit_of_work(shop.engine) as conn:
                await conn.execute(statement, params)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE customer_ledger_entries SET amount_minor = 1",
        "UPDATE customer_ledger_entries SET memo = 'fixed'",
        "DELETE FROM customer_ledger_entries",
    ],
)
async def test_the_ledger_is_append_only_even_for_a_script(
    api: Client, shop: Shop, statement: str
) -> None:
    await post(api, shop, "CHARGE", "10.00", "k")
    before = await table_snapshot(shop.engine)
    with pytest.raises(DBAPIError, match="append-only"):
        async with unit_of_work(shop.engine) as conn:
            await conn.execute(text(statement))
    assert await table_snapshot(shop.engine) == before


# ---------------------------------------------------------------------------------------------
# Quotes never post; a change is history that Sales, Accounts and admins see.

QUOTE = """mutation($i: UpdateWorkOrderQuoteInput!) { updateWorkOrderQuote(input: $i) {
  workOrder { version } userErrors { code } } }"""
HISTORY = """query($w: ID!) { workOrder(id: $w) {
  history { action fromState toState actor { name } } } }"""


async def test_a_quote_change_is_history_not_a_posting(api: Client, shop: Shop) -> None:
    # Print done opens the delivery gate: history workers see too.
    order = await shop.order(["print"])
    await shop.complete(order, ["print"])
    w = gid("WorkOrder", order)
    for amount in ("120.00", "99.5"):
        result = await api.as_(shop.tokens["sam"])(
            QUOTE, {"i": {"workOrderId": w, "quote": money(amount)}}
        )
        assert result["updateWorkOrderQuote"]["userErrors"] == []
    assert await count(shop.engine, "SELECT count(*) FROM customer_ledger_entries") == 0
    changes = [
        ("QUOTE_CHANGED", "NONE", "120.00 EUR", "Sam"),
        ("QUOTE_CHANGED", "120.00 EUR", "99.50 EUR", "Sam"),
    ]
    for who in ("sam", "abe", "ada"):
        history = (await api.as_(shop.tokens[who])(HISTORY, {"w": w}))["workOrder"]["history"]
        quotes = [
            (h["action"], h["fromState"], h["toState"], h["actor"]["name"])
            for h in history
            if h["action"] == "QUOTE_CHANGED"
        ]
        assert quotes == changes, who
    for who in ("pat", "dan"):
        history = (await api.as_(shop.tokens[who])(HISTORY, {"w": w}))["workOrder"]["history"]
        assert history, "workers still see the order's other history"
        assert all(h["action"] != "QUOTE_CHANGED" for h in history), who
