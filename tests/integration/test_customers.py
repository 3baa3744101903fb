"""Customers you can deliver to: a contact and an address at creation and by
updateCustomer (what is given replaces, an empty text clears, the same again changes
nothing), each part checked in words; staff read the contact, a delivery wall the address
alone, with the order's needs in words; the Customers screen's reads, per role."""

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.client import Client, gid
from tests.support.database import table_snapshot
from tests.support.shop import Shop
from tests.support.subscriptions import display_token

ROOT = Path(__file__).resolve().parents[2]
POST = """mutation($i: PostLedgerEntryInput!) { postLedgerEntry(input: $i) {
  userErrors { message } } }"""
FIELDS = "name contactName email phone notes address { lines postcode city country given }"
CREATE = f"""mutation($i: CreateCustomerInput!) {{ createCustomer(input: $i) {{
  customer {{ id {FIELDS} }} userErrors {{ code field message }} }} }}"""
UPDATE = f"""mutation($i: UpdateCustomerInput!) {{ updateCustomer(input: $i) {{
  changed customer {{ {FIELDS} }} userErrors {{ code field message }} }} }}"""
HARBOUR = {
    "name": "Harbour Books",
    "contactName": " Ann Lee ",
    "email": "ann@harbour.example",
    "phone": "+44 20 7946 0018",
    "address": {"lines": ["12 Quay Street", " "], "postcode": "BS1 4DJ", "city": "Bristol",
                "country": "United Kingdom"},
    "notes": "Deliveries at the back door before 10.",
}  # fmt: skip


async def create(api: Client, shop: Shop, fields: dict[str, Any]) -> Any:
    return (await api.as_(shop.tokens["sam"])(CREATE, {"i": fields}))["createCustomer"]


async def test_a_customer_carries_a_contact_and_an_address(api: Client, shop: Shop) -> None:
    done = await create(api, shop, HARBOUR)
    assert done["userErrors"] == []
    customer = done["customer"]
    assert customer["contactName"] == "Ann Lee"
    assert customer["address"] == {
        "lines": ["12 Quay Street"],
        "postcode": "BS1 4DJ",
        "city": "Bristol",
        "country": "United Kingdom",
        "given": True,
    }
    sam = api.as_(shop.tokens["sam"])
    changed = await sam(
        UPDATE,
        {"i": {"customerId": customer["id"], "phone": "", "address": {"lines": ["1 Mill Lane"]}}},
    )
    updated = changed["updateCustomer"]
    assert updated["changed"] is True
    assert updated["customer"]["phone"] is None
    assert updated["customer"]["address"]["lines"] == ["1 Mill Lane"]
    assert updated["customer"]["address"]["city"] is None  # replaced whole
    assert updated["customer"]["email"] == "ann@harbour.example"  # not given: kept
    before = await table_snapshot(shop.engine)
    again = await sam(UPDATE, {"i": {"customerId": customer["id"], "email": "ann@harbour.example"}})
    assert (again["updateCustomer"]["changed"], again["updateCustomer"]["userErrors"]) == (
        False,
        [],
    )
    assert await table_snapshot(shop.engine) == before


@pytest.mark.parametrize(
    ("fields", "field", "says"),
    [
        ({"email": "ann at harbour"}, "email", "is not an email address"),
        ({"phone": "call Ann"}, "phone", "digits, spaces and + ( ) - . / only"),
        ({"phone": "12"}, "phone", "digits"),
        ({"address": {"lines": ["a", "b", "c", "d", "e"]}}, "address.lines", "at most 4 lines"),
        ({"address": {"postcode": "P" * 21}}, "address.postcode", "at most 20 characters"),
        ({"notes": "x" * 2001}, "notes", "at most 2000 characters"),
        ({"contactName": "Ann\x00"}, "contactName", "NUL"),
        ({"name": "  "}, "name", "Fill in the name."),
    ],
)
async def test_a_bad_part_is_refused_in_words_and_changes_nothing(
    api: Client, shop: Shop, fields: dict[str, Any], field: str, says: str
) -> None:
    before = await table_snapshot(shop.engine)
    for mutation, base, name in (
        (CREATE, {"name": "Bad Ltd"}, "createCustomer"),
        (UPDATE, {"customerId": gid("Customer", shop.customer_id)}, "updateCustomer"),
    ):
        body = await api.as_(shop.tokens["sam"])(mutation, {"i": {**base, **fields}})
        [error] = body[name]["userErrors"]
        assert (error["code"], error["field"]) == ("INVALID_INPUT", field), name
        assert says in error["message"]
    assert await table_snapshot(shop.engine) == before


ORDER = """mutation($i: CreateWorkOrderInput!) { createWorkOrder(input: $i) {
  userErrors { code } } }"""
QUEUE = """{ queue(department: "delivery") { edges { node {
  delivery { address { lines city } needs }
  workOrder { customer { address { city } phone } } } } } }"""


async def test_a_delivery_wall_reads_the_address_not_the_contact(api: Client, shop: Shop) -> None:
    customer = (await create(api, shop, HARBOUR))["customer"]["id"]
    made = await api.as_(shop.tokens["sam"])(
        ORDER,
        {
            "i": {
                "customerId": customer,
                "departmentCodes": [],
                "deliveryOnly": True,
                "needsTransport": True,
                "needsInstallation": True,
            }
        },
    )
    assert made["createWorkOrder"]["userErrors"] == []
    secret = (await display_token(api, shop, ["delivery"]))["secret"]
    body = await api.as_(secret).raw(QUEUE)
    [edge] = body["data"]["queue"]["edges"]
    assert edge["node"]["workOrder"]["customer"] == {"address": {"city": "Bristol"}, "phone": None}
    assert edge["node"]["delivery"] == {
        "address": {"lines": ["12 Quay Street"], "city": "Bristol"},
        "needs": ["Installation", "Transport"],
    }
    assert [e["extensions"]["code"] for e in body["errors"]] == ["FORBIDDEN"]


async def test_only_the_delivery_task_says_where_to_deliver(api: Client, shop: Shop) -> None:
    order = await shop.order(["print"])
    query = """query($id: ID!) { node(id: $id) { ... on WorkOrder {
      tasks { department { code } delivery { needs } } } } }"""
    body = await api.as_(shop.tokens["ada"])(query, {"id": gid("WorkOrder", order)})
    found = {t["department"]["code"]: t["delivery"] for t in body["node"]["tasks"]}
    assert found == {"print": None, "delivery": {"needs": []}}


def web_document(name: str) -> str:
    """The app's own operation `name`, as it sends it (its trusted document)."""
    documents = json.loads((ROOT / "src/web/documents.json").read_text())
    (found,) = [text for text in documents.values() if f" {name}(" in text]
    return str(found)


async def test_the_customers_screen_reads_what_each_role_may(api: Client, shop: Shop) -> None:
    """What the Customers screen sends, per role: Sales and Accounts list customers (the
    rule `me.access` names as SEES_QUOTES, which the screen's navigation follows), everyone
    signed in reads a customer's orders, only Accounts and admins their balance, and only
    Sales and admins are offered EDIT."""
    acme = gid("Customer", shop.customer_id)
    await shop.order(["print"])
    posted = await api.as_(shop.tokens["abe"])(
        POST,
        {"i": {"customerId": acme, "kind": "CHARGE", "amount": "12.50", "idempotencyKey": "k"}},
    )
    assert posted["postLedgerEntry"]["userErrors"] == []
    listing, page, orders = (
        web_document(name) for name in ("CustomerList", "CustomerPage", "CustomerWorkOrders")
    )
    for who, lists, reads_balance, edits in [
        ("sam", True, False, True),
        ("abe", True, True, False),
        ("ada", True, True, True),
        ("pat", False, False, False),
    ]:
        caller = api.as_(shop.tokens[who])
        access = (await caller("{ me { access } }"))["me"]["access"]
        assert ("SEES_QUOTES" in access) is lists, who
        assert ("READS_LEDGER" in access) is reads_balance, who
        body = await caller.raw(listing, {"seesLedger": reads_balance})
        if lists:
            (node,) = [e["node"] for e in body["data"]["customers"]["edges"]]
            assert (
                node.get("balance") == [{"amount": "12.50", "currency": "EUR"}]
            ) is reads_balance
        else:
            assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN", who
        found = (await caller(page, {"id": acme, "seesLedger": reads_balance}))["customer"]
        assert (found["allowedActions"] == ["EDIT"]) is edits, who
        asked = await caller.raw(page, {"id": acme, "seesLedger": True})
        if not reads_balance:
            assert asked["errors"][0]["path"] == ["customer", "balance"], who
            assert asked["errors"][0]["extensions"]["code"] == "FORBIDDEN", who
        mine = (await caller(orders, {"customerId": acme}))["workOrders"]["edges"]
        assert [e["node"]["orderNumber"] for e in mine] == ["WO-000001"], who
