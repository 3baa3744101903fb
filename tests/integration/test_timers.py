"""Durable timers (db/timers.py): armed with the change that arms them, fired exactly once
by whichever process claims them, and only while their subject is as it was armed for.

The test server's own timer loop may claim a timer before a test fires it: the tests
count the events written, which are the same whoever fired, and `settle` fires whatever
is due (and waits for a claim the server holds) before they look."""

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import text

from db import reads, schedule, timers
from db.engine import create_engine, unit_of_work
from db.feed import EventFeed
from db.tasks import Actor, transition_task
from domain.enums import TaskAction, WorkOrderPriority
from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop
from tests.support.subscriptions import cursor_now, subscriber, take
from workers.timers import TimerLoop

LATE_EVENTS = """subscription($id: ID!, $after: String) {
  workOrderEvents(workOrderId: $id, after: $after) { kind workOrder { isLate } task { id } } }"""


async def events(shop: Shop, type_: str, order: int | None = None) -> list[Any]:
    sql = "SELECT work_order_id, department_id FROM events WHERE type = :t"
    sql += " AND work_order_id = :o" if order is not None else ""
    async with shop.engine.connect() as conn:
        return [
            tuple(r)
            for r in await conn.execute(text(sql + " ORDER BY id"), {"t": type_, "o": order})
        ]


async def settle(shop: Shop) -> None:
    """Fire every due timer, and wait for any another claimer holds."""
    async with unit_of_work(shop.engine) as conn:
        await timers.fire_due(conn)
    async with shop.engine.connect() as conn:
        # A row another transaction claimed is locked until it commits its firing.
        await conn.execute(text("SELECT id FROM timers WHERE due_at <= now() FOR UPDATE"))
        await conn.rollback()


async def unfired_due(shop: Shop) -> int:
    async with shop.engine.connect() as conn:
        found = await conn.scalar(
            text("SELECT count(*) FROM timers WHERE fired_at IS NULL AND due_at <= now()")
        )
        return int(found)


def ago(seconds: float) -> datetime:
    return datetime.now(UTC) - timedelta(seconds=seconds)


async def test_a_due_order_is_late_once_on_the_order_and_its_queued_tasks(shop: Shop) -> None:
    """Armed with the order; a server that was down at the due time fires on start, once."""
    order = await shop.order(["print", "design"], due_at=ago(5))
    # Already past when made: no "due soon", only "late".
    await settle(shop)
    assert await unfired_due(shop) == 0
    late = await events(shop, "WORK_ORDER_LATE", order)
    # The order, then each of its tasks in a queue (print and design; delivery is gated).
    assert sorted(late, key=str) == sorted(
        [(order, None), (order, shop.departments["print"]), (order, shop.departments["design"])],
        key=str,
    )
    await settle(shop)
    assert len(await events(shop, "WORK_ORDER_LATE", order)) == 3
    assert await events(shop, "WORK_ORDER_DUE_SOON", order) == []


async def test_two_claimers_fire_each_timer_exactly_once(database_url: str, shop: Shop) -> None:
    orders = [await shop.order(["print"], due_at=ago(1)) for _ in range(60)]
    engines = [create_engine(database_url, pool_size=3, max_overflow=0) for _ in range(2)]
    try:

        async def claim(engine: Any) -> int:
            fired = 0
            while True:
                async with unit_of_work(engine) as conn:
                    batch = (await timers.fire_due(conn, limit=7)).fired
                if batch == 0:
                    return fired
                fired += batch

        counts = await asyncio.gather(*(claim(e) for e in engines for _ in range(3)))
    finally:
        for engine in engines:
            await engine.dispose()
    await settle(shop)
    assert sum(counts) <= len(orders)
    late = [o for o, d in await events(shop, "WORK_ORDER_LATE") if d is None]
    assert sorted(late) == sorted(orders)


async def test_a_reschedule_fires_only_the_new_date_and_completion_disarms(shop: Shop) -> None:
    # Due in two days: its due-soon timer is a day away, not due at once.
    moved = await shop.order(["print"], due_at=datetime.now(UTC) + timedelta(hours=48))
    async with unit_of_work(shop.engine) as conn:
        await schedule.reschedule(
            conn, moved, ago(1), WorkOrderPriority.NORMAL, None, shop.users["sam"]
        )
    done = await shop.order(["print"], due_at=datetime.now(UTC) + timedelta(hours=48))
    await shop.complete(done)
    async with unit_of_work(shop.engine) as conn:
        await conn.execute(
            text("UPDATE timers SET due_at = now() WHERE work_order_id = :o"), {"o": done}
        )
    await settle(shop)
    # The moved order's new date (late at once); the done order's two timers fire moot.
    assert await unfired_due(shop) == 0
    assert [d for _, d in await events(shop, "WORK_ORDER_LATE", moved) if d is None] == [None]
    assert await events(shop, "WORK_ORDER_DUE_SOON", moved) == []
    assert await events(shop, "WORK_ORDER_LATE", done) == []
    assert await events(shop, "WORK_ORDER_DUE_SOON", done) == []
    # Back to a date whose timers fired: once per due date, nothing again.
    async with unit_of_work(shop.engine) as conn:
        [row] = await reads.work_orders(conn, [moved])
        await schedule.reschedule(
            conn, moved, row.due_at, WorkOrderPriority.RUSH, None, shop.users["sam"]
        )
    await settle(shop)
    assert len(await events(shop, "WORK_ORDER_LATE", moved)) == 2  # the order and print


async def test_a_task_started_and_untouched_goes_stale_once(api: Client, shop: Shop) -> None:
    order = await shop.order(["print", "finishing"])
    tasks = await task_ids(shop.engine, order)
    async with unit_of_work(shop.engine) as conn:
        for code, who in (("print", "pat"), ("finishing", "fin")):
            await transition_task(
                conn,
                tasks[code],
                TaskAction.START,
                Actor(shop.users[who], False),
                stale_after=timedelta(0),
            )
        # Finishing moves on before its timer is fired: it is not stale.
        await transition_task(
            conn, tasks["finishing"], TaskAction.FINISH, Actor(shop.users["fin"], False)
        )
    await settle(shop)
    assert await events(shop, "TASK_STALE", order) == [(order, shop.departments["print"])]
    query = "{ staleTasks { edges { node { id status } } } }"
    listed = (await api.as_(shop.tokens["ada"])(query))["staleTasks"]["edges"]
    assert [e["node"]["id"] for e in listed] == [gid("DepartmentTask", tasks["print"])]
    await settle(shop)
    assert len(await events(shop, "TASK_STALE", order)) == 1


async def test_the_server_fires_a_due_time_live_within_seconds(
    api: Client, server: str, shop: Shop
) -> None:
    """The running server's timer loop: an order due 2 s ahead turns late on a live
    subscriber's screen within 5 s, without a request."""
    sam = api.as_(shop.tokens["sam"])
    order = await shop.order(["print"])
    after = await cursor_now(api, shop.tokens["pat"])
    due = datetime.now(UTC) + timedelta(seconds=2)
    variables = {"id": gid("WorkOrder", order), "after": after}
    async with subscriber(
        server, shop.tokens["sam"], "graphql-transport-ws", variables, LATE_EVENTS
    ) as live:
        reschedule = """mutation($i: RescheduleWorkOrderInput!) { rescheduleWorkOrder(input: $i) {
          changed } }"""
        asked = {
            "workOrderId": gid("WorkOrder", order),
            "dueAt": due.isoformat(),
            "priority": "NORMAL",
        }
        assert (await sam(reschedule, {"i": asked}))["rescheduleWorkOrder"]["changed"]
        seen: list[Any] = []
        async with asyncio.timeout(8):
            while not any(e["workOrderEvents"]["kind"] == "WORK_ORDER_LATE" for e in seen):
                seen += await take(live, 1, within=8)
    late = [e["workOrderEvents"] for e in seen if e["workOrderEvents"]["kind"] == "WORK_ORDER_LATE"]
    assert late[0]["workOrder"]["isLate"] is True
    assert datetime.now(UTC) - due < timedelta(seconds=5)
    # "Due soon" came first (the date was within the due-soon window when set).
    kinds = [e["workOrderEvents"]["kind"] for e in seen]
    assert kinds.index("WORK_ORDER_DUE_SOON") < kinds.index("WORK_ORDER_LATE")


GATE_EVENTS = """subscription($after: String) {
  deliveryGateEvents(after: $after) { kind task { id } } }"""


async def test_a_delivery_task_in_its_queue_falls_due_on_the_gate_stream(
    api: Client, server: str, shop: Shop
) -> None:
    """deliveryGateEvents carries an order's timer events for its delivery task (and not
    for its other tasks), live and on replay alike."""
    after = await cursor_now(api, shop.tokens["ada"])
    variables = {"after": after}

    async with subscriber(
        server, shop.tokens["dan"], "graphql-transport-ws", variables, GATE_EVENTS
    ) as live:
        # Design does not gate delivery: with print done, both are in their queues.
        due = datetime.now(UTC) + timedelta(hours=48)
        order = await shop.order(["print", "design"], due_at=due)
        tasks = await shop.complete(order, ["print"])
        async with unit_of_work(shop.engine) as conn:
            await conn.execute(
                text("UPDATE timers SET due_at = now() WHERE work_order_id = :o"), {"o": order}
            )
        await settle(shop)
        # A later gate event: anything wrongly on the stream would come before it.
        marker = await shop.complete(await shop.order(["print"]), ["print"])
        seen = [e["deliveryGateEvents"] for e in await take(live, 4, within=10)]
    async with subscriber(
        server, shop.tokens["ada"], "graphql-ws", variables, GATE_EVENTS
    ) as again:
        replayed = [e["deliveryGateEvents"] for e in await take(again, 4, within=10)]
    delivery = gid("DepartmentTask", tasks["delivery"])
    for got in (seen, replayed):
        assert got[0] == {"kind": "DELIVERY_GATE_OPENED", "task": {"id": delivery}}
        assert sorted(e["kind"] for e in got[1:3]) == ["WORK_ORDER_DUE_SOON", "WORK_ORDER_LATE"]
        assert {e["task"]["id"] for e in got[:3]} == {delivery}
        assert got[3]["task"]["id"] == gid("DepartmentTask", marker["delivery"])
    # Off the gate stream: the order's own pair, and design's.
    late = await events(shop, "WORK_ORDER_LATE", order)
    assert sorted(late, key=str) == sorted(
        [(order, None), (order, shop.departments["design"]), (order, shop.departments["delivery"])],
        key=str,
    )


async def test_the_loop_stops_even_when_stopped_as_activity_wakes_it(
    database_url: str, shop: Shop
) -> None:
    """A server's shutdown cancels the loop; a commit seen at that moment must not swallow
    the cancellation (asyncio.wait_for does on Python 3.11), or the shutdown hangs. Each
    number of loop turns between the wake and the stop lands the cancellation at another
    step of the wake."""
    feed = EventFeed(shop.engine, database_url)
    for turns in range(6):
        loop = TimerLoop(shop.engine, feed, poll=30)
        loop.start()
        await loop.idle.wait()
        feed.timer_armed.set()
        for _ in range(turns):
            await asyncio.sleep(0)
        stopping = asyncio.create_task(loop.stop())
        # Its poll is 30 s away: a loop that swallowed the cancellation is still waiting.
        done, _ = await asyncio.wait([stopping], timeout=10)
        assert done, f"stop() did not finish, {turns} turns after the wake"


async def test_the_loop_sleeps_through_commits_and_wakes_for_a_timer_due_soon(
    lone_shop: tuple[str, Shop],
) -> None:
    """With a poll of 30 s: commits that arm nothing due soon leave the loop asleep (one
    look, not one per commit); an order due 2 s ahead, armed in another connection, wakes
    it through the arming's NOTIFY, and it fires at the due time, not at the next poll.
    In a database of its own: the session server's loop would fire them too."""
    database_url, shop = lone_shop
    feed = EventFeed(shop.engine, database_url)
    await feed.start()
    loop = TimerLoop(shop.engine, feed, poll=30)
    try:
        while not feed.listening:
            await feed.listener_changed.wait()
            feed.listener_changed.clear()
        # Its connecting asks for a look (a NOTIFY may have been missed): had already.
        feed.timer_armed.clear()
        loop.start()
        await loop.idle.wait()
        for _ in range(20):
            await shop.order(["print"])  # commits, poked as the server pokes after each
            feed.poke()
        assert loop.rounds == 1
        due = datetime.now(UTC) + timedelta(seconds=2)
        order = await shop.order(["print"], due_at=due)
        async with asyncio.timeout(8):
            while loop.fired < 2:  # due soon (at once), then late
                await loop.idle.wait()
                loop.idle.clear()
        assert datetime.now(UTC) - due < timedelta(seconds=3)
        assert len(await events(shop, "WORK_ORDER_LATE", order)) == 2
    finally:
        await loop.stop()
        await feed.stop()
