"""A worker's queue filtered by the server (queue(search:)): a task matches by its order's
number, its customer's name or any detail (whence its job line), in any case, with `%`
and `_` taken literally; a filtered queue pages like the whole one, and a search too long
is refused in words."""

from typing import Any

import pytest
from sqlalchemy import text

from db import customers
from db.engine import unit_of_work
from tests.support.client import Client
from tests.support.shop import Shop

QUEUE = """query($search: String, $first: Int, $after: String) {
  queue(department: "print", search: $search, first: $first, after: $after) {
    edges { node { workOrder { orderNumber } } } pageInfo { hasNextPage endCursor } } }"""


async def a_queue(shop: Shop) -> None:
    """WO-000001 Flyers and WO-000003 invitations for ACME, WO-000002 a banner for
    Harbour Books; WO-000004 is in Finishing's queue only."""
    await shop.order(["print"], details={"product": "Flyers", "quantity": 500})
    banner = await shop.order(["print"], details={"product": "Banner 100%_off"})
    await shop.order(["print"], details={"title": "Wedding invitations", "notes": "Gold foil"})
    await shop.order(["finishing"], details={"product": "Flyers"})
    async with unit_of_work(shop.engine) as conn:
        other = (await customers.create_customer(conn, "Harbour Books", shop.users["sam"])).customer
        await conn.execute(
            text("UPDATE work_orders SET customer_id = :c WHERE id = :o"),
            {"c": other.id, "o": banner},
        )


async def numbers(api: Client, shop: Shop, **variables: Any) -> list[str]:
    answer = await api.as_(shop.tokens["pat"])(QUEUE, variables)
    return [e["node"]["workOrder"]["orderNumber"] for e in answer["queue"]["edges"]]


@pytest.mark.parametrize(
    ("search", "expected"),
    [
        (None, ["WO-000001", "WO-000002", "WO-000003"]),
        ("  ", ["WO-000001", "WO-000002", "WO-000003"]),
        ("wo-00000", ["WO-000001", "WO-000002", "WO-000003"]),
        ("000003", ["WO-000003"]),
        ("harbour", ["WO-000002"]),
        ("acme", ["WO-000001", "WO-000003"]),
        ("FLYERS", ["WO-000001"]),
        ("invitations", ["WO-000003"]),
        ("gold", ["WO-000003"]),
        ("500", ["WO-000001"]),
        ("100%_", ["WO-000002"]),
        ("100%x", []),
        ("_", ["WO-000002"]),
        ("nothing like it", []),
    ],
)
async def test_a_queue_filters_by_number_customer_and_job(
    api: Client, shop: Shop, search: str | None, expected: list[str]
) -> None:
    await a_queue(shop)
    assert await numbers(api, shop, search=search) == expected


async def test_a_filtered_queue_pages_like_the_whole_one(api: Client, shop: Shop) -> None:
    await a_queue(shop)
    seen: list[str] = []
    after = None
    for _ in range(5):
        answer = await api.as_(shop.tokens["pat"])(
            QUEUE, {"search": "acme", "first": 1, "after": after}
        )
        page = answer["queue"]
        seen += [e["node"]["workOrder"]["orderNumber"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == ["WO-000001", "WO-000003"]


async def test_a_search_too_long_is_refused_in_words(api: Client, shop: Shop) -> None:
    body = await api.as_(shop.tokens["pat"]).raw(QUEUE, {"search": "x" * 101})
    assert [e["extensions"]["code"] for e in body["errors"]] == ["BAD_REQUEST"]
    assert "Shorten the search to at most 100 characters" in body["errors"][0]["message"]
