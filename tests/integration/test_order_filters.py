"""The work orders list's time filters and its order by due date: every combination of
status, due date, priority and hold, each filter held to the orders' own fields (`isLate`
is the domain's rule; the filter is SQL's), and pages by due date without gaps."""

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from db.cancellation import cancel_work_order
from db.engine import unit_of_work
from db.schedule import hold
from domain.enums import WorkOrderPriority
from tests.support.client import Client
from tests.support.shop import Shop

LIST = """query($late: Boolean, $held: Boolean, $priority: WorkOrderPriority,
  $dueBefore: DateTime, $orderBy: WorkOrderOrder! = CREATED_AT, $first: Int, $after: String) {
  workOrders(late: $late, held: $held, priority: $priority, dueBefore: $dueBefore,
             orderBy: $orderBy, first: $first, after: $after) {
    edges { node { id status dueAt priority isLate hold { reason } } }
    pageInfo { hasNextPage endCursor } } }"""

# Hours from now: past, soon, next week, none.
DUES: list[float | None] = [-30, 2, 24 * 7, None]
STATUSES = ["ACTIVE", "HELD", "COMPLETED", "CANCELLED"]


def at(hours: float | None) -> datetime | None:
    if hours is None:
        return None
    return (datetime.now(UTC) + timedelta(hours=hours)).replace(microsecond=0)


async def make(shop: Shop, due: float | None, priority: WorkOrderPriority, status: str) -> int:
    order = await shop.order(["print"], due_at=at(due), priority=priority)
    if status == "COMPLETED":
        await shop.complete(order)
    async with unit_of_work(shop.engine) as conn:
        if status == "HELD":
            await hold(conn, order, "Waiting for the proof.", shop.users["sam"])
        elif status == "CANCELLED":
            await cancel_work_order(conn, order, shop.users["sam"], "Not wanted.")
    return order


@pytest.fixture
async def orders(shop: Shop) -> int:
    combos = itertools.product(DUES, WorkOrderPriority, STATUSES)
    for due, priority, status in combos:
        await make(shop, due, priority, status)
    return len(DUES) * len(WorkOrderPriority) * len(STATUSES)


async def every(api: Client, token: str, first: int = 100, **filters: Any) -> list[Any]:
    """Every page of the list, in order."""
    nodes: list[Any] = []
    after = None
    while True:
        body = await api.as_(token)(LIST, {**filters, "first": first, "after": after})
        page = body["workOrders"]
        nodes += [edge["node"] for edge in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            return nodes
        after = page["pageInfo"]["endCursor"]


async def test_each_filter_keeps_exactly_the_orders_it_names(
    api: Client, shop: Shop, orders: int
) -> None:
    token = shop.tokens["sam"]
    everything = await every(api, token)
    assert len(everything) == orders
    ids = [n["id"] for n in everything]
    late = [n["id"] for n in everything if n["isLate"]]
    # Past due and ACTIVE (held or not), whatever the priority: 2 x 2.
    assert len(late) == 4
    assert [n["id"] for n in await every(api, token, late=True)] == late
    assert [n["id"] for n in await every(api, token, late=False)] == [
        i for i in ids if i not in late
    ]
    held = [n["id"] for n in everything if n["hold"]]
    assert len(held) == len(DUES) * len(WorkOrderPriority)
    assert [n["id"] for n in await every(api, token, held=True)] == held
    assert [n["id"] for n in await every(api, token, held=False)] == [
        i for i in ids if i not in held
    ]
    rush = [n["id"] for n in everything if n["priority"] == "RUSH"]
    assert len(rush) == orders // 2
    assert [n["id"] for n in await every(api, token, priority="RUSH")] == rush
    cut = at(24)
    assert cut is not None
    due_soon = [
        n["id"] for n in everything if n["dueAt"] and datetime.fromisoformat(n["dueAt"]) < cut
    ]
    assert len(due_soon) == 2 * len(WorkOrderPriority) * len(STATUSES)
    assert [n["id"] for n in await every(api, token, dueBefore=cut.isoformat())] == due_soon
    # Filters combine: late rush orders on hold.
    both = [n["id"] for n in everything if n["isLate"] and n["hold"] and n["priority"] == "RUSH"]
    assert len(both) == 1
    found = await every(api, token, late=True, held=True, priority="RUSH")
    assert [n["id"] for n in found] == both


async def test_by_due_date_the_earliest_first_none_last_in_pages_without_gaps(
    api: Client, shop: Shop, orders: int
) -> None:
    token = shop.tokens["sam"]
    newest_first = await every(api, token)
    by_due = await every(api, token, orderBy="DUE_AT", first=5)
    assert sorted(n["id"] for n in by_due) == sorted(n["id"] for n in newest_first)

    dues = [n["dueAt"] for n in by_due]
    assert dues[-8:] == [None] * 8 and None not in dues[:-8]
    assert [datetime.fromisoformat(d) for d in dues[:-8]] == sorted(
        datetime.fromisoformat(d) for d in dues[:-8]
    )
    # Filters and the order together: late ones by due date.
    assert [n["id"] for n in await every(api, token, orderBy="DUE_AT", late=True, first=1)] == [
        n["id"] for n in by_due if n["isLate"]
    ]
    # Equal due dates (none, here) keep the order they were made in.
    undated = [n["id"] for n in by_due if n["dueAt"] is None]
    assert undated == [n["id"] for n in reversed(newest_first) if n["dueAt"] is None]


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({"orderBy": "DUE_AT", "after": "WzFd"}, "'after' is not a cursor of this connection."),
        ({"after": "WyIyMDMwLTAxLTAxVDAwOjAwOjAwKzAwOjAwIiwgMV0="}, "'after' is not a cursor"),
        ({"dueBefore": "2030-01-01T00:00:00"}, "'dueBefore' needs a time zone"),
    ],
)
async def test_a_cursor_of_the_other_order_or_a_date_without_zone_is_refused(
    api: Client, shop: Shop, variables: dict[str, Any], message: str
) -> None:
    body = await api.as_(shop.tokens["sam"]).raw(LIST, {"first": 5, **variables})
    assert body["data"] is None
    assert message in body["errors"][0]["message"]
