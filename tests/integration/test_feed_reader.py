"""The feed's reader outlives its own failures, and batches what a stream of commits wrote."""

import asyncio
from typing import Any

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection

from db import events, reads
from db.engine import reading, unit_of_work
from db.events import START, Filter, Resume, Snapshot, StoredEvent
from db.fanout import (
    ACCESS_CHANNEL,
    OVERFLOWED,
    RECHECK,
    FanOut,
    Item,
    Owner,
    department_channel,
)
from db.feed import TASK_PREFIX, EventFeed
from db.tasks import Actor, transition_task
from domain.enums import TaskAction
from tests.support.shop import Shop
from tests.support.subscriptions import print_tasks


async def moves(live: "asyncio.Queue[Any]", count: int) -> list[StoredEvent]:
    """The next `count` task moves; creation events are skipped (an old transaction
    elsewhere on the server can hold them back until after the feed started)."""
    got: list[StoredEvent] = []
    async with asyncio.timeout(10):
        while len(got) < count:
            event = (await live.get()).message.event
            if event.type == "TASK_CHANGED":
                got.append(event)
    return got


async def start(shop: Shop, task: int) -> None:
    async with unit_of_work(shop.engine) as conn:
        await transition_task(conn, task, TaskAction.START, Actor(shop.users["pat"], False))


async def start_all(shop: Shop, feed: EventFeed, tasks: list[int]) -> list[StoredEvent]:
    """Starts each task, waking the feed after each commit; the moves it delivered."""
    async with feed.subscribe(department_channel(shop.departments["print"])) as live:
        for task in tasks:
            await start(shop, task)
            feed.poke()
        return await moves(live, len(tasks))


async def test_an_unexpected_error_in_the_reader_loses_nothing(
    database_url: str, shop: Shop
) -> None:
    failures = 1

    async def enrich(conn: AsyncConnection, batch: list[StoredEvent]) -> Any:
        nonlocal failures
        if failures:
            failures -= 1
            raise RuntimeError("a bug while reading related rows")
        return await reads.related(conn, batch)

    tasks = await print_tasks(shop, 2)
    feed = EventFeed(shop.engine, database_url, enrich=enrich, poll_interval=0.05)
    await feed.start()
    try:
        got = await start_all(shop, feed, tasks)
    finally:
        await feed.stop()
    assert feed.stats.read_errors == 1
    assert [e.payload["taskId"] for e in got] == tasks


async def test_a_stream_of_commits_is_read_in_batches(database_url: str, shop: Shop) -> None:
    """Commits that arrive faster than the batch window are read together, not one by one."""
    tasks = await print_tasks(shop, 40)
    feed = EventFeed(shop.engine, database_url, poll_interval=60, batch_window=0.5)
    await feed.start()
    try:
        async with feed.subscribe(department_channel(shop.departments["print"])) as live:
            reads_before = feed.stats.reads
            for task in tasks:
                await start(shop, task)
                feed.poke()
            got = await moves(live, len(tasks))
            reads = feed.stats.reads - reads_before
    finally:
        await feed.stop()
    assert [e.payload["taskId"] for e in got] == tasks
    # One read per commit would be 40 or more; each read that finds events is followed
    # by one that finds none.
    assert reads < len(tasks) // 2


async def test_a_feed_stops_cleanly_after_a_forced_exit_cancelled_its_tasks(
    database_url: str, shop: Shop
) -> None:
    """A second SIGINT makes uvicorn exit at once, and asyncio cancels every task on the
    way out, the feed's own among them, before the app's lifespan stops the feed."""
    feed = EventFeed(shop.engine, database_url, poll_interval=60)
    before = asyncio.all_tasks()
    await feed.start()
    started = [t for t in asyncio.all_tasks() - before if t.get_name().startswith(TASK_PREFIX)]
    assert len(started) == 3
    for task in started:
        task.cancel()
    for task in started:
        with pytest.raises(asyncio.CancelledError):
            await task
    await feed.stop()
    left = asyncio.all_tasks() - before
    assert [t for t in left if t.get_name().startswith(TASK_PREFIX)] == []


async def test_a_recheck_never_takes_the_overflow_marks_slot() -> None:
    """A subscriber whose buffer is full when its token changes still gets the overflow
    mark at the next event; the fan-out does not fail on a full buffer."""
    fanout = FanOut(buffer=2)
    async with fanout.subscribe("c", owner=Owner(user_id=1, token_id=7)) as queue:
        for n in range(2):
            fanout.dispatch(Item("c", n))
        fanout.recheck_token(7)
        fanout.dispatch(Item("c", 2))
        got = [(await queue.get()).message for _ in range(queue.qsize())]
    assert got == [0, 1, OVERFLOWED]
    assert RECHECK not in got


async def test_a_transaction_open_in_another_database_does_not_hold_the_feed_back(
    database_url: str, server_url: str, shop: Shop
) -> None:
    """Transaction ids are shared by every database of a server, but only this database's
    transactions can write its events: a neighbour's long transaction delays nothing."""
    tasks = await print_tasks(shop, 2)
    neighbour = await asyncpg.connect(
        make_url(server_url)
        .set(database="postgres", drivername="postgresql")
        .render_as_string(hide_password=False)
    )
    feed = EventFeed(shop.engine, database_url, poll_interval=0.05)
    try:
        await neighbour.execute("BEGIN")
        await neighbour.fetchval("SELECT pg_current_xact_id()")
        await feed.start()
        got = await start_all(shop, feed, tasks)
    finally:
        await feed.stop()
        await neighbour.close()
    assert [e.payload["taskId"] for e in got] == tasks


async def test_a_subscriber_the_fan_out_fails_to_serve_is_told_to_resume(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The fan-out serves every subscription of the process: a failure for one subscriber
    (here its filter raises) drops that one with the overflow mark, and the others still
    get every message."""
    fanout = FanOut(buffer=3)

    def broken(message: Any) -> bool:
        raise RuntimeError("a bug in a filter")

    async with (
        fanout.subscribe("c") as healthy,
        fanout.subscribe("c", accepts=broken) as failing,
        fanout.subscribe("c") as later,
    ):
        fanout.dispatch(Item("c", 0))
        fanout._filters[later] = broken
        fanout.dispatch(Item("c", 1))
        fanout.dispatch(Item("c", 2))
        got = {
            name: [(await queue.get()).message for _ in range(queue.qsize())]
            for name, queue in (("healthy", healthy), ("failing", failing), ("later", later))
        }
        assert fanout.subscriber_count("c") == 1
    assert got == {"healthy": [0, 1, 2], "failing": [OVERFLOWED], "later": [0, OVERFLOWED]}
    assert fanout.failures == 2
    assert caplog.text.count("fan-out to a subscriber failed") == 2


async def test_a_failed_access_recheck_makes_every_owned_subscription_resume() -> None:
    fanout = FanOut(buffer=5)
    async with (
        fanout.subscribe("c", owner=Owner(user_id=1, token_id=7)) as owned,
        fanout.subscribe("c") as anonymous,
    ):
        fanout.dispatch(Item(ACCESS_CHANNEL, "not a delivered event"))
        fanout.dispatch(Item("c", 0))
        got = [(await q.get()).message for q in (owned, anonymous)]
        assert got == [OVERFLOWED, 0]
    assert fanout.failures == 1


async def test_positions_are_read_in_number_order_across_digit_boundaries(shop: Shop) -> None:
    """Every read of the log orders by transaction id as a number. The statements return it
    as text, and an ORDER BY on that name sorted "10000" before "9999": when the server's
    transaction ids crossed a power of ten, the feed handed events out of order and its
    subscribers skipped the ones that came late."""
    xids = [1000, 9, 99, 10, 999, 100, 98]
    department = shop.departments["print"]
    async with unit_of_work(shop.engine) as conn:
        for xid in xids:
            await conn.execute(
                text(
                    "INSERT INTO events (xid, type, department_id, payload) "
                    "VALUES (CAST(CAST(:xid AS text) AS xid8), 'TASK_CHANGED', :department, '{}')"
                ),
                {"xid": str(xid), "department": department},
            )
    where = Filter(department_id=department)
    nothing_seen = Snapshot(1, 1, frozenset())
    async with reading(shop.engine) as conn:
        for resume in (Resume(START), Resume(START, nothing_seen)):
            page = await events.read_page(conn, resume, START, where)
            assert [e.position.xid for e in page] == sorted(xids)
            assert [e.position for e in page] == sorted(e.position for e in page)
        assert (await events.head(conn)).xid == max(xids)
