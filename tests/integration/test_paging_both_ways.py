"""Every connection of the schema pages both ways: `first`/`after` forward and
`last`/`before` backward walk the same items in the same order, with pageInfo saying
what the Relay cursor connections spec says. The connections are found by introspecting
the schema, so a new one fails here until it is given a way in."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from graphql import GraphQLObjectType, get_named_type
from sqlalchemy import text

from db import customers, people
from db.engine import unit_of_work
from db.ledger import NewEntry, post_entry
from db.tasks import Actor, transition_task
from domain import ledger
from domain.enums import LedgerEntryKind, TaskAction, TokenKind
from domain.ledger import EntryContent
from domain.money import parse_money
from graph.schema import schema
from tests.support.client import Client, GraphQLError, gid
from tests.support.database import task_ids
from tests.support.shop import Shop

PAGE = "edges { cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }"
ARGS = "first: $first, after: $after, last: $last, before: $before"
VARS = "$first: Int, $after: String, $last: Int, $before: String"

# Each connection: who reads it, the query (its variables are the paging ones and `id`),
# and the path to it in the answer.
Way = tuple[str, str, tuple[str, ...]]


def root(field: str, who: str, extra: str = "", declared: str = "") -> Way:
    args = f"{extra}, {ARGS}" if extra else ARGS
    variables = f"{declared}, {VARS}" if declared else VARS
    return who, f"query({variables}) {{ {field}({args}) {{ {PAGE} }} }}", (field,)


def on_node(type_name: str, field: str, who: str) -> Way:
    query = (
        f"query($id: ID!, {VARS}) {{ node(id: $id) {{ ... on {type_name} {{ "
        f"{field}({ARGS}) {{ {PAGE} }} }} }} }}"
    )
    return who, query, ("node", field)


WAYS: dict[str, list[Way]] = {
    "Query.users": [root("users", "ada")],
    "Query.myTokens": [root("myTokens", "ada")],
    "Query.tokens": [root("tokens", "ada")],
    "Query.webhookDeliveries": [root("webhookDeliveries", "ada", "webhookId: $hook", "$hook: ID!")],
    "Query.mailMessages": [root("mailMessages", "ada")],
    "Query.workOrders": [
        root("workOrders", "sam"),
        root("workOrders", "sam", "orderBy: DUE_AT"),
        root("workOrders", "sam", "orderBy: DUE_AT, customerId: $customer", "$customer: ID"),
    ],
    "Query.queue": [
        root("queue", "pat", 'department: "print"'),
        root("queue", "pat", 'department: "print", search: "flyers"'),
    ],
    "Query.staleTasks": [root("staleTasks", "ada")],
    "Query.customers": [root("customers", "sam")],
    "Customer.ledger": [on_node("Customer", "ledger", "abe")],
    "Department.queue": [on_node("Department", "queue", "pat")],
}

ITEMS = 5


def connections() -> set[str]:
    """Every field of the schema whose type is a Relay connection."""
    found = set()
    for type_ in schema._schema.type_map.values():
        if not isinstance(type_, GraphQLObjectType) or type_.name.startswith("__"):
            continue
        for name, field in type_.fields.items():
            target = get_named_type(field.type)
            if isinstance(target, GraphQLObjectType) and {"edges", "pageInfo"} <= set(
                target.fields
            ):
                found.add(f"{type_.name}.{name}")
    return found


def test_every_connection_has_a_way_in() -> None:
    assert connections() == set(WAYS)


async def seed(shop: Shop) -> dict[str, Any]:
    """At least ITEMS items in every connection; the ids the queries name."""
    soon = datetime.now(UTC) + timedelta(days=3)
    orders = []
    for n in range(ITEMS + 3):
        # Due dates with ties and without one, so the order by due date has both.
        due = None if n % 3 == 0 else soon + timedelta(hours=n % 2)
        orders.append(await shop.order(["print"], due_at=due))
    printer = Actor(shop.users["pat"], False)
    async with unit_of_work(shop.engine) as conn:
        for n in range(ITEMS):
            await customers.create_customer(conn, f"Customer {n}", shop.users["sam"])
            await people.issue_token(
                conn,
                kind=TokenKind.DISPLAY,
                name=f"wall {n}",
                user_id=shop.users["ada"],
                ttl_seconds=None,
                department_ids=[shop.departments["print"]],
            )
            money = ledger.signed(LedgerEntryKind.PAYMENT, parse_money(Decimal(n + 1), "EUR", None))
            content = EntryContent(shop.customer_id, None, LedgerEntryKind.PAYMENT, money, None)
            await post_entry(conn, NewEntry(content, f"paging-{n}", shop.users["abe"]))
        # Most started (the queue's second lane), each stale: its timer fired.
        for order in orders[:ITEMS]:
            task = (await task_ids(shop.engine, order))["print"]
            await transition_task(conn, task, TaskAction.START, printer)
        await conn.execute(text("UPDATE timers SET fired_at = now() WHERE purpose = 'TASK_STALE'"))
        hook = await conn.scalar(
            text(
                "INSERT INTO webhooks (url, event_kinds, secret, enabled, created_by, cursor_xid)"
                " VALUES ('https://hooks.test/x', '{}', 'secret', false, :by,"
                " pg_current_xact_id()) RETURNING id"
            ),
            {"by": shop.users["ada"]},
        )
        # Dead ones, of the orders' events, that no outbox tries again.
        await conn.execute(
            text(
                "INSERT INTO webhook_deliveries (webhook_id, event_id, event_xid, event_type,"
                " status) SELECT :h, id, xid, type, 'DEAD' FROM events"
            ),
            {"h": hook},
        )
        await conn.execute(
            text(
                "INSERT INTO mail_messages (event_id, event_type, work_order_id, kind,"
                " recipient, payload, status) SELECT id, type, work_order_id, 'PROOF_READY',"
                " 'someone@customer.test', '{}', 'DEAD' FROM events"
                " WHERE work_order_id IS NOT NULL"
            )
        )
    return {"hook": gid("Webhook", hook), "customer": gid("Customer", shop.customer_id)}


def at(data: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        data = data[key]
    return data


async def page(api: Client, way: Way, ids: dict[str, Any], **paging: Any) -> Any:
    who, query, path = way
    return at(await api.as_(who)(query, {**ids, **paging}), path)


def cursors(connection: Any) -> list[str]:
    return [e["cursor"] for e in connection["edges"]]


@pytest.mark.parametrize(
    ("name", "n"), [(name, n) for name, ways in WAYS.items() for n in range(len(ways))]
)
async def test_a_connection_pages_forward_and_back_alike(
    shop: Shop, api: Client, name: str, n: int
) -> None:
    ids = await seed(shop)
    who, query, path = WAYS[name][n]
    if path[0] == "node":
        type_name = name.split(".")[0]
        key = shop.customer_id if type_name == "Customer" else shop.departments["print"]
        ids["id"] = gid(type_name, key)
    way = (shop.tokens[who], query, path)
    whole = cursors(await page(api, way, ids, first=100))
    assert len(whole) >= ITEMS, whole

    forward: list[str] = []
    after = None
    while True:
        got = await page(api, way, ids, first=2, after=after)
        forward += cursors(got)
        info = got["pageInfo"]
        assert info["hasPreviousPage"] is (after is not None)
        assert info["hasNextPage"] is (len(forward) < len(whole))
        if not info["hasNextPage"]:
            break
        after = info["endCursor"]

    backward: list[str] = []
    before = None
    while True:
        got = await page(api, way, ids, last=2, before=before)
        backward = cursors(got) + backward
        info = got["pageInfo"]
        # Paging backward, hasPreviousPage says whether items precede the page.
        assert info["hasPreviousPage"] is (len(backward) < len(whole))
        assert info["hasNextPage"] is (before is not None)
        assert info["startCursor"] == cursors(got)[0]
        if not info["hasPreviousPage"]:
            break
        before = info["startCursor"]

    assert forward == whole
    assert backward == whole
    # A page read forward, read back from the item after it: the same items, in order.
    middle = await page(api, way, ids, first=2, after=whole[0])
    again = await page(api, way, ids, last=2, before=whole[3])
    assert cursors(middle) == cursors(again) == whole[1:3]


@pytest.mark.parametrize(
    ("paging", "words"),
    [
        ({"first": 2, "last": 2}, "not both at once"),
        ({"after": "x", "before": "y"}, "not both at once"),
        ({"first": 2, "before": "y"}, "not both at once"),
        ({"last": 101}, "'last' must be between 0 and 100"),
        ({"last": -1}, "'last' must be between 0 and 100"),
        ({"before": "bm90IGEgY3Vyc29y"}, "'before' is not a cursor of this connection"),
        ({"before": "x" * 201}, "'before' is longer than any cursor"),
    ],
)
async def test_mixed_or_bad_paging_is_refused_in_words(
    shop: Shop, api: Client, paging: dict[str, Any], words: str
) -> None:
    for who, query, path in [WAYS["Query.customers"][0], WAYS["Query.queue"][0]]:
        with pytest.raises(GraphQLError) as refused:
            await page(api, (shop.tokens[who], query, path), {}, **paging)
        [error] = refused.value.args[0]
        assert error["extensions"]["code"] == "BAD_REQUEST"
        assert words in error["message"]
