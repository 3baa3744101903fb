"""Refunds due after a cancellation, through the real HTTP API and the real database.

Each case posts entries against one order (some before its cancellation, some after),
then reads `WorkOrder.refundDue`, `Customer.refundDue` and `customers(refundDue:)` and
compares all three with the amount worked out by hand for the case: what was paid
(PAYMENT less REFUND) less what was credited beyond what was charged, per currency, when
above zero, on a cancelled order only. Then: several orders of one customer, orders the
old system closed, and who may ask.
"""

from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy import text

from tests.support.client import Client, gid
from tests.support.shop import Shop

POST = """mutation($i: PostLedgerEntryInput!) { postLedgerEntry(input: $i) {
  userErrors { code message } } }"""
CANCEL = """mutation($i: CancelWorkOrderInput!) { cancelWorkOrder(input: $i) {
  userErrors { code } } }"""
ORDER = """query($w: ID!) { workOrder(id: $w) { status refundDue { amount currency } } }"""
CUSTOMER = """query($c: ID!) { customer(id: $c) { refundDue { amount currency } } }"""
CUSTOMERS = """query($due: Boolean) { customers(refundDue: $due, first: 100) {
  edges { node { name refundDue { amount currency } } } } }"""

Entry = tuple[str, str, str]  # kind, amount as sent, currency


@dataclass(frozen=True)
class Case:
    before: list[Entry]  # posted against the order while it is ACTIVE
    after: list[Entry] = field(default_factory=list)  # posted once it is cancelled
    due: list[tuple[str, str]] = field(default_factory=list)  # (amount, currency), by hand
    cancelled: bool = True


EUR, USD = "EUR", "USD"
CASES = {
    # Not cancelled: nothing is due, whatever was paid.
    "active-and-paid": Case(
        [("CHARGE", "240.00", EUR), ("PAYMENT", "100.00", EUR)], cancelled=False
    ),
    # Cancelled, nothing paid: nothing is due.
    "cancelled-unpaid": Case([("CHARGE", "240.00", EUR)]),
    # Paid 100 of a 240 charge: the 100 is due (the charge of a cancelled order is no debt).
    "paid-in-part": Case(
        [("CHARGE", "240.00", EUR), ("PAYMENT", "100.00", EUR)], due=[("100.00", EUR)]
    ),
    # Crediting the charge away (240) is not giving money back: 240 - 240 = 0 beyond it.
    "charge-credited-away": Case(
        [("CHARGE", "240.00", EUR), ("PAYMENT", "100.00", EUR)],
        [("CREDIT", "240.00", EUR)],
        due=[("100.00", EUR)],
    ),
    # Paid 240, refunded 90 so far: 150 still due.
    "partial-refund": Case(
        [("CHARGE", "240.00", EUR), ("PAYMENT", "240.00", EUR)],
        [("REFUND", "90.00", EUR)],
        due=[("150.00", EUR)],
    ),
    "refunded-in-full": Case(
        [("CHARGE", "240.00", EUR), ("PAYMENT", "240.00", EUR)], [("REFUND", "240.00", EUR)]
    ),
    # Credits of 240 + 60 against a 240 charge: 60 given back as credit, 100 - 60 = 40 due.
    "settled-in-part-by-credit": Case(
        [("CHARGE", "240.00", EUR), ("PAYMENT", "100.00", EUR)],
        [("CREDIT", "240.00", EUR), ("CREDIT", "60.00", EUR)],
        due=[("40.00", EUR)],
    ),
    "settled-by-credit": Case(
        [("CHARGE", "240.00", EUR), ("PAYMENT", "100.00", EUR)],
        [("CREDIT", "340.00", EUR)],
    ),
    # A discount credited before the cancellation lowered the charge, not what was paid.
    "discount-before-cancelling": Case(
        [("CHARGE", "240.00", EUR), ("CREDIT", "15.00", EUR), ("PAYMENT", "225.00", EUR)],
        due=[("225.00", EUR)],
    ),
    # A deposit with no charge: all of it is due, until a credit of as much settles it.
    "deposit-without-charge": Case([("PAYMENT", "50.00", EUR)], due=[("50.00", EUR)]),
    "deposit-credited": Case([("PAYMENT", "50.00", EUR)], [("CREDIT", "50.00", EUR)]),
    # Per currency, never across: the euros refunded, the dollars still due.
    "several-currencies": Case(
        [("CHARGE", "240.00", EUR), ("PAYMENT", "100.00", EUR), ("PAYMENT", "30", USD),
         ("CHARGE", "10", USD)],
        [("REFUND", "100.00", EUR)],
        due=[("30.00", USD)],
    ),
    # Money received after the cancellation is owed back too.
    "paid-after-cancelling": Case(
        [("CHARGE", "80.00", EUR)], [("PAYMENT", "20.00", EUR)], due=[("20.00", EUR)]
    ),
    # Refunded more than was paid: nothing is due, never a negative amount.
    "refunded-too-much": Case([("PAYMENT", "100.00", EUR)], [("REFUND", "120.00", EUR)]),
    # Adjustments count in the balance only.
    "adjustment-ignored": Case(
        [("CHARGE", "100.00", EUR), ("PAYMENT", "100.00", EUR)],
        [("ADJUSTMENT", "-100.00", EUR)],
        due=[("100.00", EUR)],
    ),
}  # fmt: skip


class Ledger:
    def __init__(self, api: Client, shop: Shop) -> None:
        self.abe = api.as_(shop.tokens["abe"])
        self.sam = api.as_(shop.tokens["sam"])
        self.shop = shop
        self.posted = 0

    async def post(self, order: int | None, kind: str, amount: str, currency: str) -> None:
        self.posted += 1
        entry: dict[str, Any] = {
            "customerId": gid("Customer", self.shop.customer_id),
            "kind": kind,
            "amount": amount,
            "currency": currency,
            "idempotencyKey": f"entry-{self.posted}",
        }
        if order is not None:
            entry["workOrderId"] = gid("WorkOrder", order)
        result = await self.abe(POST, {"i": entry})
        assert result["postLedgerEntry"]["userErrors"] == []

    async def cancel(self, order: int) -> None:
        result = await self.sam(
            CANCEL, {"i": {"workOrderId": gid("WorkOrder", order), "reason": "Withdrawn."}}
        )
        assert result["cancelWorkOrder"]["userErrors"] == []

    async def order_due(self, order: int) -> list[tuple[str, str]]:
        found = (await self.abe(ORDER, {"w": gid("WorkOrder", order)}))["workOrder"]
        return [(m["amount"], m["currency"]) for m in found["refundDue"]]

    async def customer_due(self) -> list[tuple[str, str]]:
        found = await self.abe(CUSTOMER, {"c": gid("Customer", self.shop.customer_id)})
        return [(m["amount"], m["currency"]) for m in found["customer"]["refundDue"]]

    async def listed(self, due: bool | None) -> list[str]:
        found = await self.abe(CUSTOMERS, {"due": due})
        return [e["node"]["name"] for e in found["customers"]["edges"]]


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
async def test_refund_due_agrees_with_the_hand_calculation_everywhere(
    api: Client, shop: Shop, case: Case
) -> None:
    ledger = Ledger(api, shop)
    order = await shop.order(["print"])
    for entry in case.before:
        await ledger.post(order, *entry)
    if case.cancelled:
        await ledger.cancel(order)
    for entry in case.after:
        await ledger.post(order, *entry)
    assert await ledger.order_due(order) == case.due
    assert await ledger.customer_due() == case.due
    owed = ["ACME"] if case.due else []
    assert await ledger.listed(True) == owed
    assert await ledger.listed(False) == ([] if case.due else ["ACME"])
    assert await ledger.listed(None) == ["ACME"]


async def test_a_customer_sums_its_orders_and_counts_nothing_posted_elsewhere(
    api: Client, shop: Shop
) -> None:
    ledger = Ledger(api, shop)
    first, second, active = [await shop.order(["print"]) for _ in range(3)]
    for order, paid in ((first, "100.00"), (second, "25.50"), (active, "70.00")):
        await ledger.post(order, "PAYMENT", paid, EUR)
    await ledger.post(second, "PAYMENT", "12", USD)
    # A payment on account (no order) is no order's: nothing of it is due back.
    await ledger.post(None, "PAYMENT", "500.00", EUR)
    for order in (first, second):
        await ledger.cancel(order)
    assert await ledger.order_due(first) == [("100.00", EUR)]
    assert await ledger.order_due(second) == [("25.50", EUR), ("12.00", USD)]
    assert await ledger.order_due(active) == []
    assert await ledger.customer_due() == [("125.50", EUR), ("12.00", USD)]
    await ledger.post(first, "REFUND", "100.00", EUR)
    assert await ledger.customer_due() == [("25.50", EUR), ("12.00", USD)]
    assert await ledger.listed(True) == ["ACME"]


async def test_orders_the_old_system_closed_are_its_history(api: Client, shop: Shop) -> None:
    """An imported cancelled order with payments (the import's immutable history) shows
    nothing due: its refunds, if any, were the old system's business."""
    ledger = Ledger(api, shop)
    order = await shop.order(["print"])
    await ledger.post(order, "PAYMENT", "40.00", EUR)
    await ledger.cancel(order)
    assert await ledger.order_due(order) == [("40.00", EUR)]
    async with shop.engine.begin() as conn:
        await conn.execute(
            text("UPDATE work_orders SET imported_closed = true WHERE id = :o"), {"o": order}
        )
    assert await ledger.order_due(order) == []
    assert await ledger.listed(True) == []


# ---------------------------------------------------------------------------------------------
# Who may ask: the ledger's readers, as for `charged` and `paid` (the fields are in
# test_ledger.py's table of ledger reads; here, the filter of a list Sales reads too).

READS = {
    "filter": "{ customers(refundDue: true) { edges { node { name } } } }",
    "filter-false": "{ customers(refundDue: false) { edges { node { name } } } }",
}
EXPECTED = {
    "abe": None,
    "ada": None,
    "sam": "FORBIDDEN",
    "pat": "FORBIDDEN",
    None: "UNAUTHENTICATED",
}


@pytest.mark.parametrize("who", list(EXPECTED), ids=str)
async def test_who_may_ask_for_customers_with_a_refund_due(
    api: Client, shop: Shop, who: str | None
) -> None:
    ledger = Ledger(api, shop)
    order = await shop.order(["print"])
    await ledger.post(order, "PAYMENT", "40.00", EUR)
    await ledger.cancel(order)
    client = api.as_(shop.tokens[who] if who else None)
    for name, query in READS.items():
        body = await client.raw(query)
        codes = [e["extensions"]["code"] for e in body.get("errors") or []]
        assert codes == ([EXPECTED[who]] if EXPECTED[who] else []), (name, body)
        if EXPECTED[who]:
            assert "ACME" not in str(body)
    if who == "sam":
        # Sales lists customers; only the filter is the ledger's.
        body = await client.raw(READS["filter"])
        assert "ask for refundDue" in body["errors"][0]["message"]
        listed = await client("{ customers { edges { node { name } } } }")
        assert listed["customers"]["edges"] == [{"node": {"name": "ACME"}}]
