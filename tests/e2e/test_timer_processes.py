"""Durable timers across real `pressroom serve` processes, on a database of their own (no
session server's loop there to fire for them): a due time fires once within seconds
with two processes claiming, and a due time that passed while no server ran fires once
when one starts."""

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import pytest
from sqlalchemy import text

from db import migrate
from db.engine import create_engine
from tests.support import Shop, gid, open_shop, scratch_database, serving, subscriber, take

T = TypeVar("T")

LATE_EVENTS = """subscription($id: ID!) {
  workOrderEvents(workOrderId: $id) { kind occurredAt task { id } } }"""


@pytest.fixture
async def own_shop(server_url: str) -> AsyncIterator[tuple[str, Shop]]:
    async with scratch_database(server_url, "pressroom_timers") as url:
        await asyncio.to_thread(migrate.upgrade_sync, url)
        engine = create_engine(url, pool_size=3, max_overflow=0)
        try:
            yield url, await open_shop(engine)
        finally:
            await engine.dispose()


async def eventually(probe: Callable[[], Awaitable[T]], within: float) -> T:
    """`probe`'s first truthy answer, asked until `within` seconds have passed."""
    async with asyncio.timeout(within):
        while not (found := await probe()):
            await asyncio.sleep(0.05)
    return found


async def timer_rows(shop: Shop, purpose: str) -> list[Any]:
    async with shop.engine.connect() as conn:
        rows = await conn.execute(
            text("SELECT work_order_id, due_at, fired_at FROM timers WHERE purpose = :p"),
            {"p": purpose},
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
    own_shop: tuple[str, Shop],
) -> None:
    url, shop = own_shop
    with ExitStack() as stack:
        bases = [stack.enter_context(serving(None, database_url=url))[0] for _ in range(2)]
        due = datetime.now(UTC) + timedelta(seconds=2)
        # Enough orders due in the same instant that both processes claim at once.
        orders = [await shop.order(["print"], due_at=due) for _ in range(40)]
        watched = {"id": gid("WorkOrder", orders[0])}
        async with subscriber(
            f"{bases[1]}/graphql", shop.tokens["sam"], "graphql-transport-ws", watched, LATE_EVENTS
        ) as live:
            seen: list[Any] = []
            async with asyncio.timeout(10):
                while sum(e["workOrderEvents"]["kind"] == "WORK_ORDER_LATE" for e in seen) < 2:
                    seen += await take(live, 1)
        assert datetime.now(UTC) - due < timedelta(seconds=5)

        async def all_fired() -> list[Any]:
            rows = await timer_rows(shop, "WORK_ORDER_LATE")
            return rows if all(r.fired_at is not None for r in rows) else []

        rows = await eventually(all_fired, within=5)
    # Every server stopped: nothing can fire after this count.
    assert len(rows) == len(orders)
    assert max(r.fired_at - r.due_at for r in rows) < timedelta(seconds=5)
    # Exactly once each: the order itself and its print task in the queue.
    assert await late_events(shop) == {order: 2 for order in orders}
    late = [e["workOrderEvents"] for e in seen if e["workOrderEvents"]["kind"] == "WORK_ORDER_LATE"]
    assert sorted(e["task"] is None for e in late) == [False, True]


async def test_a_due_time_passed_while_no_server_ran_fires_once_on_start(
    own_shop: tuple[str, Shop],
) -> None:
    url, shop = own_shop
    with serving(None, database_url=url):
        due = datetime.now(UTC) + timedelta(seconds=4)
        order = await shop.order(["print"], due_at=due)
    [armed] = await timer_rows(shop, "WORK_ORDER_LATE")
    assert armed.fired_at is None, "the server fired before it stopped: too slow a stop"
    await asyncio.sleep((due - datetime.now(UTC)).total_seconds() + 0.2)
    # Past due with no server running: still armed, nothing written.
    [waiting] = await timer_rows(shop, "WORK_ORDER_LATE")
    assert waiting.fired_at is None
    assert await late_events(shop) == {}
    with serving(None, database_url=url):

        async def fired() -> list[Any]:
            return [r for r in await timer_rows(shop, "WORK_ORDER_LATE") if r.fired_at]

        [row] = await eventually(fired, within=10)
    assert row.fired_at > due
    assert await late_events(shop) == {order: 2}
