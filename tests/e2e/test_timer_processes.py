"""Durable timers across real `pressroom serve` processes, on a database of their own (no
session server's loop there to fire for them): a due time fires once within seconds
with two processes claiming (woken by the arming's NOTIFY, their poll being far off),
and a due time that passed while no server ran fires once when one starts."""

import asyncio
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import text

from tests.support.client import Client, gid
from tests.support.servers import serving
from tests.support.shop import Shop
from tests.support.subscriptions import cursor_now, subscriber, take

QUEUE_LATE = """subscription($after: String) {
  queueEvents(department: "print", after: $after) { kind task { workOrder { id } } } }"""


async def until_late(live: "asyncio.Queue[Any]", orders: int) -> set[str]:
    """The work orders of the next `orders` WORK_ORDER_LATE events on a print queue."""
    late: set[str] = set()
    async with asyncio.timeout(10):
        while len(late) < orders:
            [event] = await take(live, 1)
            if event["queueEvents"]["kind"] == "WORK_ORDER_LATE":
                late.add(event["queueEvents"]["task"]["workOrder"]["id"])
    return late


async def late_timers(shop: Shop) -> list[Any]:
    async with shop.engine.connect() as conn:
        rows = await conn.execute(
            text("SELECT due_at, fired_at FROM timers WHERE purpose = 'WORK_ORDER_LATE'")
        )
        return list(rows)


async def late_events(shop: Shop) -> dict[int, int]:
    """WORK_ORDER_LATE events written, by work order."""
    async with shop.engine.connect() as conn:
        rows = await conn.execute(
            text(
                "SELECT work_order_id, count(*) FROM events WHERE type = 'WORK_ORDER_LATE' "
                "GROUP BY work_order_id"
            )
        )
        return {r[0]: r[1] for r in rows}


async def test_two_processes_fire_a_due_time_once_within_seconds(
    lone_shop: tuple[str, Shop], http: httpx.AsyncClient
) -> None:
    url, shop = lone_shop
    with ExitStack() as stack:
        # Their poll is 30 s: the arming's NOTIFY must wake them for a due time 2 s ahead.
        slow = {"PRESSROOM_TIMER_POLL_SECONDS": "30"}
        bases = [
            stack.enter_context(serving(None, database_url=url, settings=slow))[0] for _ in range(2)
        ]
        api = Client(http, f"{bases[0]}/graphql")
        after = {"after": await cursor_now(api, shop.tokens["pat"])}
        async with subscriber(
            f"{bases[1]}/graphql", shop.tokens["pat"], "graphql-transport-ws", after, QUEUE_LATE
        ) as live:
            due = datetime.now(UTC) + timedelta(seconds=2)
            # Enough orders due in the same instant that both processes claim at once.
            orders = [await shop.order(["print"], due_at=due) for _ in range(40)]
            late = await until_late(live, len(orders))
        assert datetime.now(UTC) - due < timedelta(seconds=5)
    assert late == {gid("WorkOrder", order) for order in orders}
    rows = await late_timers(shop)
    assert len(rows) == len(orders)
    assert max(r.fired_at - r.due_at for r in rows) < timedelta(seconds=5)
    # Every server stopped: exactly once each, the order itself and its print task.
    assert await late_events(shop) == {order: 2 for order in orders}


async def test_a_due_time_passed_while_no_server_ran_fires_once_on_start(
    lone_shop: tuple[str, Shop], http: httpx.AsyncClient
) -> None:
    url, shop = lone_shop
    with serving(None, database_url=url) as (base, _):
        after = {"after": await cursor_now(Client(http, f"{base}/graphql"), shop.tokens["pat"])}
        due = datetime.now(UTC) + timedelta(seconds=4)
        order = await shop.order(["print"], due_at=due)
    [armed] = await late_timers(shop)
    assert armed.fired_at is None, "the server fired before it stopped: too slow a stop"
    # Waiting for the due time to pass, with no server running.
    await asyncio.sleep((due - datetime.now(UTC)).total_seconds() + 0.2)
    [waiting] = await late_timers(shop)
    assert waiting.fired_at is None
    assert await late_events(shop) == {}
    with serving(None, database_url=url) as (base, _):
        async with subscriber(
            f"{base}/graphql", shop.tokens["pat"], "graphql-ws", after, QUEUE_LATE
        ) as live:
            assert await until_late(live, 1) == {gid("WorkOrder", order)}
    [row] = await late_timers(shop)
    assert row.fired_at > due
    assert await late_events(shop) == {order: 2}
