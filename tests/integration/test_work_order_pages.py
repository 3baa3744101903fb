"""`workOrders` through the real HTTP API: keyset pagination, newest first, without gaps or
duplicates (also while new orders arrive), the default and zero page sizes, filters that
paginate, and search matching wildcard characters literally.
"""

from typing import Any

import pytest

from db import customers
from db.engine import unit_of_work
from tests.support.access import cancel, pk, post
from tests.support.client import Client, gid
from tests.support.shop import Shop

WORK_ORDERS = """
query($first: Int, $after: String, $status: WorkOrderStatus, $customerId: ID, $search: String) {
  workOrders(first: $first, after: $after, status: $status, customerId: $customerId,
             search: $search) {
    edges { cursor node { id orderNumber status customer { name } } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}
"""


async def all_pages(
    api: Client, token: str, first: int, **filters: Any
) -> tuple[list[dict[str, Any]], int]:
    """Every node of the connection, page by page; also the number of pages."""
    nodes: list[dict[str, Any]] = []
    after: str | None = None
    pages = 0
    while True:
        body = await post(api, token, WORK_ORDERS, {"first": first, "after": after, **filters})
        assert "errors" not in body, body
        conn = body["data"]["workOrders"]
        edges, info = conn["edges"], conn["pageInfo"]
        pages += 1
        assert len(edges) <= first
        assert info["hasPreviousPage"] is (after is not None)
        if edges:
            assert info["startCursor"] == edges[0]["cursor"]
            assert info["endCursor"] == edges[-1]["cursor"]
        nodes += [e["node"] for e in edges]
        if not info["hasNextPage"]:
            break
        assert len(edges) == first
        after = info["endCursor"]
        assert pages < 50
    return nodes, pages


@pytest.fixture
async def orders(shop: Shop, api: Client) -> dict[str, Any]:
    """Ten orders: seven of ACME (one cancelled), three of Globex Print Ltd."""
    async with unit_of_work(shop.engine) as conn:
        made = await customers.create_customer(conn, "Globex Print Ltd", shop.users["sam"])
        globex = made.customer.id
    acme_ids = [await shop.order(["print"]) for _ in range(4)]
    globex_ids = [await shop.order(["finishing"], customer_id=globex) for _ in range(3)]
    acme_ids += [await shop.order(["design"], order_number=f"SPECIAL-{i}") for i in range(3)]
    cancelled = acme_ids[1]
    await cancel(api, shop, cancelled, "No.")
    return {
        "acme": acme_ids,
        "globex": globex_ids,
        "globex_id": globex,
        "cancelled": cancelled,
        "all": sorted(acme_ids + globex_ids, reverse=True),
    }


@pytest.mark.parametrize("first", [1, 3, 4, 10, 100])
async def test_work_orders_pages_newest_first_without_gaps_or_duplicates(
    api: Client, shop: Shop, orders: dict[str, Any], first: int
) -> None:
    nodes, pages = await all_pages(api, shop.tokens["sam"], first)
    ids = [pk(n) for n in nodes]
    assert ids == orders["all"]  # newest first, each exactly once
    assert pages == -(-len(ids) // first)  # the page holding the last order says so


async def test_work_orders_default_page_and_page_size_zero(
    api: Client, shop: Shop, orders: dict[str, Any]
) -> None:
    body = await post(api, shop.tokens["sam"], WORK_ORDERS, {})
    conn = body["data"]["workOrders"]
    assert [pk(e["node"]) for e in conn["edges"]] == orders["all"]
    assert conn["pageInfo"]["hasNextPage"] is False
    empty = await post(api, shop.tokens["sam"], WORK_ORDERS, {"first": 0})
    assert empty["data"]["workOrders"]["edges"] == []
    assert empty["data"]["workOrders"]["pageInfo"]["hasNextPage"] is True


async def test_work_orders_page_is_stable_while_new_orders_arrive(
    api: Client, shop: Shop, orders: dict[str, Any]
) -> None:
    """Keyset, not offset: an order created between two pages neither shifts nor repeats rows."""
    first = await post(api, shop.tokens["sam"], WORK_ORDERS, {"first": 4})
    page1 = [pk(e["node"]) for e in first["data"]["workOrders"]["edges"]]
    await shop.order(["print"])
    after = first["data"]["workOrders"]["pageInfo"]["endCursor"]
    second = await post(api, shop.tokens["sam"], WORK_ORDERS, {"first": 4, "after": after})
    page2 = [pk(e["node"]) for e in second["data"]["workOrders"]["edges"]]
    assert page1 + page2 == orders["all"][:8]


@pytest.mark.parametrize(
    ("filters", "expect"),
    [
        pytest.param({"status": "CANCELLED"}, lambda o: [o["cancelled"]], id="status-cancelled"),
        pytest.param(
            {"status": "ACTIVE"},
            lambda o: [i for i in o["all"] if i != o["cancelled"]],
            id="status-active",
        ),
        pytest.param({"status": "COMPLETED"}, lambda o: [], id="status-completed"),
        pytest.param(
            {"customer": "globex"}, lambda o: sorted(o["globex"], reverse=True), id="customer"
        ),
        pytest.param(
            {"search": "special-"},
            lambda o: sorted(o["acme"][4:], reverse=True),
            id="search-order-number-case-insensitive",
        ),
        pytest.param(
            {"search": "WO-000003"}, lambda o: [o["acme"][2]], id="search-exact-order-number"
        ),
        pytest.param(
            {"search": "  globex print "},
            lambda o: sorted(o["globex"], reverse=True),
            id="search-customer-name-trimmed",
        ),
        pytest.param(
            {"search": "acme", "status": "ACTIVE"},
            lambda o: sorted([i for i in o["acme"] if i != o["cancelled"]], reverse=True),
            id="search-and-status",
        ),
        pytest.param(
            {"customer": "globex", "status": "CANCELLED"}, lambda o: [], id="customer-and-status"
        ),
        pytest.param({"search": "no such thing"}, lambda o: [], id="search-no-match"),
    ],
)
async def test_work_orders_filters_paginate(
    api: Client, shop: Shop, orders: dict[str, Any], filters: dict[str, Any], expect: Any
) -> None:
    variables = dict(filters)
    if variables.pop("customer", None):
        variables["customerId"] = gid("Customer", orders["globex_id"])
    nodes, _ = await all_pages(api, shop.tokens["sam"], 2, **variables)
    assert [pk(n) for n in nodes] == expect(orders)
    if "status" in filters:
        assert {n["status"] for n in nodes} <= {filters["status"]}


@pytest.mark.parametrize("search", ["%", "_", "WO_0"])
async def test_search_matches_wildcard_characters_literally(
    api: Client, shop: Shop, orders: dict[str, Any], search: str
) -> None:
    nodes, _ = await all_pages(api, shop.tokens["sam"], 100, search=search)
    assert nodes == []  # no order number or customer name contains '%' or '_'
