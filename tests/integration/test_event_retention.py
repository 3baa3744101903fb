"""Event-log retention (db/retention.py, migration 0015): events past the retention leave
the log from its start, a batch per transaction and one process at a time, up to the first
event to keep; where the log now starts is recorded; enabled webhooks hold the log back at
their cursors and pending deliveries, disabled ones do not."""

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from db import events, retention, webhooks
from db.engine import unit_of_work
from db.events import Position
from domain import webhooks as rules
from domain.enums import EventType
from tests.support.shop import Shop
from workers.retention import PruneLoop

KEEP = timedelta(days=90)


# No transaction of any database that began writing before this database's newest event
# is still running. Until then the log's readers (the pruner, a webhook following) may
# rightly stop short of it: a transaction of this database could still write below it,
# and one of another (the other tests') that ends while their statement runs looks, for
# that statement, like one of this database's (events_horizon in src/db/schema.sql).
SETTLED = """SELECT coalesce(pg_snapshot_xmin(pg_current_snapshot()) > max(xid), true)
FROM events"""
SETTLE_SECONDS = 60


async def order(shop: Shop, days_ago: float) -> int:
    """A print order whose events happened `days_ago`, once every reader of the log can
    read them: the counts below are exact."""
    made = await shop.order(["print"], at=datetime.now(UTC) - timedelta(days=days_ago))
    async with asyncio.timeout(SETTLE_SECONDS), shop.engine.connect() as conn:
        while not await conn.scalar(text(SETTLED)):  # noqa: ASYNC110 - no event says it
            await asyncio.sleep(0.01)
    return made


async def log(engine: AsyncEngine) -> list[tuple[Position, int | None]]:
    """The log in order: each event's position and work order."""
    async with engine.connect() as conn:
        rows = await conn.execute(
            text("SELECT CAST(xid AS text) AS xid, id, work_order_id FROM events ORDER BY xid, id")
        )
        return [(Position(int(r.xid), r.id), r.work_order_id) for r in rows]


async def prune(engine: AsyncEngine, keep: timedelta = KEEP, batch: int = 2000) -> int | None:
    async with unit_of_work(engine, transaction=False) as conn:
        return await retention.prune(conn, keep, batch)


async def start_of_log(engine: AsyncEngine) -> Position:
    async with engine.connect() as conn:
        return await events.pruned_through(conn)


@pytest.mark.parametrize("batch", [1, 3, 2000])
async def test_the_old_events_go_from_the_start_in_batches(
    lone_shop: tuple[str, Shop], batch: int
) -> None:
    _, shop = lone_shop
    engine = shop.engine
    assert await log(engine) == []
    old = [await order(shop, 100) for _ in range(3)]
    young = await order(shop, 89)
    # Old, but after a young one: the log is pruned from its start, never with a hole.
    later = await order(shop, 120)
    before = await log(engine)
    gone = [e for e in before if e[1] in old]
    assert before[: len(gone)] == gone
    full, rest = divmod(len(gone), batch)
    rounds = []
    while not rounds or rounds[-1] == batch:
        pruned = await prune(engine, batch=batch)
        assert pruned is not None
        rounds.append(pruned)
    assert rounds == [batch] * full + [rest]
    left = await log(engine)
    assert left == before[len(gone) :]
    assert {e[1] for e in left} == {young, later}
    assert await start_of_log(engine) == gone[-1][0]
    assert await prune(engine, batch=batch) == 0
    assert await log(engine) == left


async def test_one_process_prunes_at_a_time(lone_shop: tuple[str, Shop]) -> None:
    _, shop = lone_shop
    engine = shop.engine
    for _ in range(3):
        await order(shop, 100)
    logged = len(await log(engine))
    loop = PruneLoop(engine, KEEP)
    async with unit_of_work(engine) as first:
        # The first pruner's transaction is open: the other gives way at once.
        assert await retention.prune(first, KEEP, 2) == 2
        assert await prune(engine) is None
        assert await loop.prune_all() is None
        assert len(await log(engine)) == logged
    assert len(await log(engine)) == logged - 2
    assert await loop.prune_all() == logged - 2
    assert loop.pruned == logged - 2
    assert await log(engine) == []


async def test_a_day_is_kept_whatever_the_caller_asks(lone_shop: tuple[str, Shop]) -> None:
    _, shop = lone_shop
    await order(shop, 0.5)
    logged = await log(shop.engine)
    with pytest.raises(DBAPIError, match="events are kept at least a day"):
        await prune(shop.engine, keep=timedelta(hours=23))
    assert await prune(shop.engine, keep=timedelta(days=1)) == 0
    assert await log(shop.engine) == logged


async def deliveries(engine: AsyncEngine) -> list[tuple[int, str, str | None]]:
    async with engine.connect() as conn:
        rows = await conn.execute(
            text("SELECT event_id, status, error FROM webhook_deliveries ORDER BY event_id")
        )
        return [(r.event_id, r.status, r.error) for r in rows]


async def test_enabled_webhooks_hold_the_log_and_disabled_ones_do_not(
    lone_shop: tuple[str, Shop],
) -> None:
    _, shop = lone_shop
    engine = shop.engine
    first = [await order(shop, 100) for _ in range(2)]
    async with unit_of_work(engine) as conn:
        hook = await webhooks.create(
            conn,
            webhooks.NewWebhook(
                url="http://127.0.0.1:9/in",
                description=None,
                event_kinds=[EventType.WORK_ORDER_CREATED],
                department_ids=None,
                secret=rules.new_secret(),
                created_by=shop.users["ada"],
            ),
        )
    followed = [await order(shop, 100) for _ in range(2)]
    # Nothing after the webhook's cursor goes: it has not read those events yet.
    before = await log(engine)
    assert await prune(engine) == len([e for e in before if e[1] in first])
    unread = await log(engine)
    assert {e[1] for e in unread} == set(followed)

    async with unit_of_work(engine) as conn:
        [claimed] = await webhooks.claim(conn, "test", 60, 1)
        assert await webhooks.follow(conn, claimed, "test", 1000) == len(unread)
        await webhooks.release(conn, hook.id, "test")
    pending = await deliveries(engine)
    assert [status for _, status, _ in pending] == ["PENDING", "PENDING"]
    # Read now, but the first order's delivery is pending: its event and what follows stay.
    assert await prune(engine) == len([e for e in unread if e[0].id < pending[0][0]])
    assert await log(engine) == [e for e in unread if e[0].id >= pending[0][0]]

    async with unit_of_work(engine) as conn:
        await webhooks.update(conn, hook.id, webhooks.Changes(enabled=False))
    left = await log(engine)
    assert await prune(engine) == len(left)
    assert await log(engine) == []
    died = "Its event was pruned from the log (older than the retention) while the webhook was off."
    assert await deliveries(engine) == [(event, "DEAD", died) for event, _, _ in pending]
    async with unit_of_work(engine) as conn:
        [delivery] = await webhooks.deliveries_page(
            conn, hook.id, status=None, after_id=None, limit=1
        )
        # Its event left the log: there is nothing to send again.
        assert await webhooks.redeliver(conn, delivery.id) is False
        assert await webhooks.redeliver(conn, delivery.id + 1000) is None
    assert [status for _, status, _ in await deliveries(engine)] == ["DEAD", "DEAD"]
