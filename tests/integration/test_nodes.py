"""Relay's `nodes(ids:)`, a department's queue on the node, and `totalCount`: `nodes`
answers in the order asked, null for an id that names nothing or what the caller may not
see, reads one batch per type whatever the number of ids, and refuses more than 100;
`Department.queue` is the root `queue`, under the same rule; a queue counts its tasks and
a customer's orders are counted, other lists are not."""

from decimal import Decimal
from typing import Any

import pytest

from api.auth import load_viewer
from db import people
from db.engine import unit_of_work
from db.ledger import NewEntry, post_entry
from domain import ledger
from domain.enums import LedgerEntryKind, TokenKind
from domain.ledger import EntryContent
from domain.money import parse_money
from graph.context import Context
from graph.schema import schema
from graph.services import SchemaServices
from tests.support.client import Client, GraphQLError, gid
from tests.support.database import counting
from tests.support.shop import Shop

NODES = """query($ids: [ID!]!) { nodes(ids: $ids) {
  __typename id
  ... on WorkOrder { orderNumber customer { name } }
  ... on Customer { name }
  ... on LedgerEntry { amount { amount } }
  ... on Token { name }
  ... on Department { code }
} }"""


async def an_entry(shop: Shop) -> int:
    async with unit_of_work(shop.engine) as conn:
        money = ledger.signed(LedgerEntryKind.PAYMENT, parse_money(Decimal(5), "EUR", None))
        content = EntryContent(shop.customer_id, None, LedgerEntryKind.PAYMENT, money, None)
        posted = await post_entry(conn, NewEntry(content, "nodes-1", shop.users["abe"]))
    return int(posted.entry.id)


async def a_token_of(shop: Shop, who: str) -> int:
    async with unit_of_work(shop.engine) as conn:
        issued = await people.issue_token(
            conn,
            kind=TokenKind.DISPLAY,
            name="wall",
            user_id=shop.users[who],
            ttl_seconds=None,
            department_ids=[shop.departments["print"]],
        )
    return int(issued.row.id)


async def test_nodes_answer_in_order_with_null_for_the_unknown_and_the_unseen(
    shop: Shop, api: Client
) -> None:
    first = await shop.order(["print"])
    second = await shop.order(["design"])
    entry = await an_entry(shop)
    adas = await a_token_of(shop, "ada")
    ids = [
        gid("WorkOrder", second),
        gid("WorkOrder", 999_999),
        gid("LedgerEntry", entry),
        gid("Customer", shop.customer_id),
        gid("Token", adas),
        gid("Webhook", 1),
        gid("WorkOrder", first),
        gid("WorkOrder", second),
        gid("Department", shop.departments["print"]),
    ]
    # Sales may not read the ledger, nor someone else's token: null, as for nothing.
    seen = (await api.as_(shop.tokens["sam"])(NODES, {"ids": ids}))["nodes"]
    assert [n and n["id"] for n in seen] == [
        ids[0],
        None,
        None,
        ids[3],
        None,
        None,
        ids[6],
        ids[0],
        ids[8],
    ]
    assert seen[0]["orderNumber"] == "WO-000002" and seen[6]["orderNumber"] == "WO-000001"
    assert seen[3]["name"] == "ACME" and seen[8]["code"] == "print"
    # Accounts reads the entry; the admin the token.
    abe = (await api.as_(shop.tokens["abe"])(NODES, {"ids": ids}))["nodes"]
    assert abe[2] == {"__typename": "LedgerEntry", "id": ids[2], "amount": {"amount": "-5.00"}}
    ada = (await api.as_(shop.tokens["ada"])(NODES, {"ids": ids}))["nodes"]
    assert ada[4] == {"__typename": "Token", "id": ids[4], "name": "wall"}
    # `node` still says FORBIDDEN for the one type whose rule the caller fails.
    with pytest.raises(GraphQLError) as refused:
        await api.as_(shop.tokens["sam"])(
            "query($id: ID!) { node(id: $id) { id } }", {"id": ids[2]}
        )
    assert refused.value.args[0][0]["extensions"]["code"] == "FORBIDDEN"


async def test_more_than_100_ids_are_refused(shop: Shop, api: Client) -> None:
    ids = [gid("WorkOrder", n + 1) for n in range(101)]
    body = await api.as_(shop.tokens["sam"]).raw(NODES, {"ids": ids})
    [error] = body["errors"]
    assert error["extensions"]["code"] == "BAD_REQUEST"
    assert error["message"] == "'ids' holds 101 ids; at most 100 at once."
    assert (await api.as_(shop.tokens["sam"])(NODES, {"ids": ids[:100]}))["nodes"] == [None] * 100


async def statements_for(shop: Shop, ids: list[str]) -> list[str]:
    services = SchemaServices(shop.engine, 3600)
    viewer = await load_viewer(services, shop.tokens["sam"])
    with counting(shop.engine) as statements:
        result = await schema.execute(
            NODES, variable_values={"ids": ids}, context_value=Context(services, viewer)
        )
    assert result.errors is None, result.errors
    assert result.data is not None
    assert None not in result.data["nodes"]
    return statements


async def test_nodes_read_one_batch_per_type_whatever_their_number(shop: Shop) -> None:
    orders = [await shop.order(["print"]) for _ in range(20)]
    departments = list(shop.departments.values())

    def ids(n: int) -> list[str]:
        # Interleaved types, so that a batch is one per type, not one per run of a type.
        mixed = []
        for k in range(n):
            mixed += [gid("WorkOrder", orders[k]), gid("Department", departments[k % 6])]
        return [*mixed, gid("Customer", shop.customer_id)]

    await statements_for(shop, ids(2))
    few = await statements_for(shop, ids(2))
    many = await statements_for(shop, ids(20))
    assert len(few) == len(many), (few, many)
    # Orders, their customers, departments (one read of them all), the customer at most.
    assert len(many) <= 4, many


QUEUES = """query($id: ID!, $first: Int, $search: String) {
  queue(department: "print", first: $first, search: $search) {
    totalCount edges { cursor node { id } } }
  node(id: $id) { ... on Department {
    queue(first: $first, search: $search) { totalCount edges { cursor node { id } } } } } }"""


async def test_a_department_queue_is_the_root_queue_with_its_count(shop: Shop, api: Client) -> None:
    for n in range(5):
        await shop.order(["print"], details={"product": "Banner" if n % 2 else "Flyers"})
    await shop.order(["finishing"])
    print_ = gid("Department", shop.departments["print"])
    for variables, count, shown in [
        ({"first": 2}, 5, 2),
        ({"first": 0}, 5, 0),
        ({"first": 10, "search": "banner"}, 2, 2),
        ({"first": 10, "search": "nothing like it"}, 0, 0),
    ]:
        got = await api.as_(shop.tokens["pat"])(QUEUES, {"id": print_, **variables})
        root, on_node = got["queue"], got["node"]["queue"]
        assert root == on_node
        assert root["totalCount"] == count
        assert len(root["edges"]) == shown


async def test_a_department_queue_keeps_the_queue_rule(shop: Shop, api: Client) -> None:
    await shop.order(["finishing"])
    query = """query($id: ID!) { node(id: $id) { ... on Department { code
      queue { totalCount } } } }"""
    finishing = gid("Department", shop.departments["finishing"])
    # A member of another department: the department, but not its queue.
    body = await api.as_(shop.tokens["pat"]).raw(query, {"id": finishing})
    assert body["data"]["node"] is None or body["data"]["node"]["queue"] is None
    [error] = body["errors"]
    assert error["extensions"]["code"] == "FORBIDDEN"
    assert error["path"] == ["node", "queue"]
    for who in ("fin", "ada"):
        got = await api.as_(shop.tokens[who])(query, {"id": finishing})
        assert got["node"] == {"code": "finishing", "queue": {"totalCount": 1}}


ORDERS = """query($customer: ID, $status: WorkOrderStatus) {
  workOrders(customerId: $customer, status: $status, first: 1) { totalCount } }"""


async def test_a_customers_orders_are_counted_and_other_lists_not(shop: Shop, api: Client) -> None:
    for _ in range(3):
        await shop.order(["print"])
    done = await shop.order(["print"])
    await shop.complete(done)
    sam = api.as_(shop.tokens["sam"])

    async def total(**variables: Any) -> int | None:
        found: int | None = (await sam(ORDERS, variables))["workOrders"]["totalCount"]
        return found

    acme = gid("Customer", shop.customer_id)
    assert await total(customer=acme) == 4
    assert await total(customer=acme, status="ACTIVE") == 3
    assert await total(customer=acme, status="CANCELLED") == 0
    assert await total() is None
    assert await total(status="ACTIVE") is None
