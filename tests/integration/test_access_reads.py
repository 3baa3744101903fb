"""Reads by role, through the real HTTP API: workers see their own queue, admins any;
`users` is for admins, `customers` for sales, accounts and admins; the field-level rules
(`WorkOrder.quote`, `User.email`) null only what the caller may not see; a display token reads
only its queues.
"""

import pytest

from tests.support.access import codes, display_token, post, sql
from tests.support.client import Client, gid
from tests.support.database import table_snapshot, task_ids
from tests.support.shop import Shop


async def test_workers_see_their_own_queue_only(api: Client, shop: Shop) -> None:
    order = await shop.order(["print", "finishing"])
    tasks = await task_ids(shop.engine, order)
    q = "query($d: String!) { queue(department: $d) { edges { node { id } } } }"

    own = await post(api, shop.tokens["pat"], q, {"d": "print"})
    assert "errors" not in own
    assert [e["node"]["id"] for e in own["data"]["queue"]["edges"]] == [
        gid("DepartmentTask", tasks["print"])
    ]
    for who, dept in [("pat", "finishing"), ("fin", "print"), ("sam", "print"), ("dan", "print")]:
        other = await post(api, shop.tokens[who], q, {"d": dept})
        assert codes(other) == ["FORBIDDEN"], (who, dept)
        assert other["data"] is None
        assert "queue" in other["errors"][0]["message"]


@pytest.mark.parametrize("dept", ["print", "finishing", "design", "delivery", "sales"])
async def test_admin_reads_any_queue(api: Client, shop: Shop, dept: str) -> None:
    order = await shop.order(["print", "finishing", "design"])
    tasks = await task_ids(shop.engine, order)
    body = await post(
        api,
        shop.tokens["ada"],
        "query($d: String!) { queue(department: $d) { edges { node { id } } } }",
        {"d": dept},
    )
    assert "errors" not in body, body
    expected = (
        [gid("DepartmentTask", tasks[dept])]
        if dept in ("print", "finishing", "design")
        else []  # delivery: gate closed; sales: no tasks
    )
    assert [e["node"]["id"] for e in body["data"]["queue"]["edges"]] == expected


@pytest.mark.parametrize(
    ("who", "allowed"),
    [("ada", True), ("sam", False), ("abe", False), ("pat", False), ("dan", False)],
)
async def test_users_is_admin_only(api: Client, shop: Shop, who: str, allowed: bool) -> None:
    body = await post(api, shop.tokens[who], "{ users(first: 100) { edges { node { email } } } }")
    if allowed:
        emails = {e["node"]["email"] for e in body["data"]["users"]["edges"]}
        assert emails == {f"{k}@shop.test" for k in shop.users}
    else:
        assert codes(body) == ["FORBIDDEN"]
        assert body["data"] is None
        assert "@shop.test" not in str(body)


@pytest.mark.parametrize(
    ("who", "allowed"),
    [("sam", True), ("abe", True), ("ada", True), ("pat", False), ("dee", False), ("dan", False)],
)
async def test_customers_is_sales_accounts_or_admin(
    api: Client, shop: Shop, who: str, allowed: bool
) -> None:
    body = await post(api, shop.tokens[who], "{ customers { edges { node { name } } } }")
    if allowed:
        assert body == {"data": {"customers": {"edges": [{"node": {"name": "ACME"}}]}}}
    else:
        assert codes(body) == ["FORBIDDEN"]
        assert body["data"] is None
        assert "ACME" not in str(body)


@pytest.mark.parametrize(
    ("who", "allowed"),
    [("sam", True), ("abe", True), ("ada", True), ("pat", False), ("fin", False), ("dan", False)],
)
async def test_quote_is_for_sales_accounts_and_admins(
    api: Client, shop: Shop, who: str, allowed: bool
) -> None:
    order = await shop.order(["print"])
    await sql(
        shop.engine,
        "UPDATE work_orders SET quote_minor = 123456, quote_currency = 'EUR' WHERE id = :o",
        o=order,
    )
    body = await post(
        api,
        shop.tokens[who],
        "query($id: ID!) { workOrder(id: $id) { orderNumber quote { amount currency } } }",
        {"id": gid("WorkOrder", order)},
    )
    work_order = body["data"]["workOrder"]
    assert work_order["orderNumber"] == "WO-000001"
    if allowed:
        assert "errors" not in body
        assert work_order["quote"] == {"amount": "1234.56", "currency": "EUR"}
    else:
        assert codes(body) == ["FORBIDDEN"]
        assert body["errors"][0]["path"] == ["workOrder", "quote"]
        assert work_order["quote"] is None
        assert "1234" not in str(body)


async def test_quote_in_a_list_is_nulled_per_row_for_workers(api: Client, shop: Shop) -> None:
    for _ in range(2):
        await shop.order(["print"])
    await sql(shop.engine, "UPDATE work_orders SET quote_minor = 999, quote_currency = 'EUR'")
    body = await post(
        api,
        shop.tokens["pat"],
        "{ workOrders { edges { node { orderNumber quote { amount } } } } }",
    )
    assert [e["node"] for e in body["data"]["workOrders"]["edges"]] == [
        {"orderNumber": "WO-000002", "quote": None},
        {"orderNumber": "WO-000001", "quote": None},
    ]
    assert codes(body) == ["FORBIDDEN", "FORBIDDEN"]
    assert sorted(e["path"][2] for e in body["errors"]) == [0, 1]


async def test_email_is_visible_to_self_and_admins_only(api: Client, shop: Shop) -> None:
    query = "query($id: ID!) { node(id: $id) { ... on User { name email } } }"
    sam = {"id": gid("User", shop.users["sam"])}

    self_view = await post(api, shop.tokens["sam"], query, sam)
    assert self_view == {"data": {"node": {"name": "Sam", "email": "sam@shop.test"}}}
    admin_view = await post(api, shop.tokens["ada"], query, sam)
    assert admin_view == {"data": {"node": {"name": "Sam", "email": "sam@shop.test"}}}
    me = await post(api, shop.tokens["pat"], "{ me { email } }")
    assert me == {"data": {"me": {"email": "pat@shop.test"}}}

    # Colleagues find each other by id (tests/integration/test_smaller_holes.py), but not
    # each other's email.
    for who, whom in (("pat", "pia"), ("dot", "dan")):
        other = await post(api, shop.tokens[who], query, {"id": gid("User", shop.users[whom])})
        assert codes(other) == ["FORBIDDEN"]
        assert other["errors"][0]["path"] == ["node", "email"]
        assert f"{whom}@shop.test" not in str(other)


async def test_forbidden_email_withholds_only_the_email(api: Client, shop: Shop) -> None:
    body = await post(
        api,
        shop.tokens["pat"],
        "query($id: ID!) { node(id: $id) { ... on User { name email } } }",
        {"id": gid("User", shop.users["pia"])},
    )
    assert codes(body) == ["FORBIDDEN"]
    assert body["data"]["node"] == {"name": "Pia", "email": None}


async def test_display_token_reads_only_its_queues(api: Client, shop: Shop) -> None:
    order = await shop.order(["print", "finishing"])
    tasks = await task_ids(shop.engine, order)
    wall = await display_token(shop, "print")
    q = "query($d: String!) { queue(department: $d) { edges { node { id status } } } }"

    own = await post(api, wall, q, {"d": "print"})
    assert own == {
        "data": {
            "queue": {
                "edges": [
                    {"node": {"id": gid("DepartmentTask", tasks["print"]), "status": "PENDING"}}
                ]
            }
        }
    }
    assert codes(await post(api, wall, q, {"d": "finishing"})) == ["FORBIDDEN"]
    for query in ("{ workOrders { edges { node { id } } } }", "{ departments { code } }"):
        assert codes(await post(api, wall, query)) == ["FORBIDDEN"], query
    assert (await post(api, wall, "{ me { id } }"))["data"]["me"] is None
    quote = await post(
        api,
        wall,
        '{ queue(department: "print") { edges { node { workOrder { quote { amount } } } } } }',
    )
    assert codes(quote) == ["FORBIDDEN"]

    before = await table_snapshot(shop.engine)
    start = await post(
        api,
        wall,
        "mutation($t: ID!) { startTask(input: {taskId: $t}) { changed } }",
        {"t": gid("DepartmentTask", tasks["print"])},
    )
    assert codes(start) == ["FORBIDDEN"]
    assert await table_snapshot(shop.engine) == before
