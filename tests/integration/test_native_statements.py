"""A unit of work's BEGIN and COMMIT go through asyncpg itself, and so do the statements of
a task's move (`fetch_native`): both kinds of statement, SQLAlchemy's and asyncpg's, belong
to the one transaction, which commits or rolls back whole."""

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from db.engine import create_engine, one_snapshot, reading, unit_of_work
from db.queries import fetch_native
from db.tasks import Actor, transition_task
from domain.enums import TaskAction
from tests.support.shop import Shop
from tests.support.subscriptions import print_tasks


class Abandon(Exception):
    pass


async def status_and_events(shop: Shop, task: int) -> tuple[str, int]:
    async with reading(shop.engine) as conn:
        status = await conn.scalar(
            text("SELECT status FROM department_tasks WHERE id = :id"), {"id": task}
        )
        events = await conn.scalar(
            text("SELECT count(*) FROM events WHERE payload->>'taskId' = :id"), {"id": str(task)}
        )
    return str(status), int(events or 0)


async def customers_named(shop: Shop, name: str) -> int:
    async with reading(shop.engine) as conn:
        found = await conn.scalar(
            text("SELECT count(*) FROM customers WHERE name = :name"), {"name": name}
        )
    return int(found or 0)


async def test_statements_through_sqlalchemy_and_asyncpg_roll_back_together(shop: Shop) -> None:
    [task] = await print_tasks(shop, 1)
    before = await status_and_events(shop, task)
    with pytest.raises(Abandon):
        async with unit_of_work(shop.engine) as conn:
            move = await transition_task(
                conn, task, TaskAction.START, Actor(shop.users["pat"], False)
            )
            await conn.execute(text("INSERT INTO customers (name) VALUES ('Rolled Back Ltd')"))
            assert move.task.status == "STARTED"
            # Not visible outside the transaction before it commits.
            assert await status_and_events(shop, task) == before
            raise Abandon
    assert await status_and_events(shop, task) == before
    assert await customers_named(shop, "Rolled Back Ltd") == 0


async def test_records_have_fields_by_name_and_by_attribute(shop: Shop) -> None:
    [task] = await print_tasks(shop, 1)
    async with reading(shop.engine) as conn:
        [row] = await fetch_native(conn, "tasks_by_id", ids=[task])
    assert row.id == row["id"] == task
    with pytest.raises(AttributeError):
        _ = row.no_such_field


async def test_statements_through_sqlalchemy_and_asyncpg_commit_together(shop: Shop) -> None:
    [task] = await print_tasks(shop, 1)
    _, events = await status_and_events(shop, task)
    async with unit_of_work(shop.engine) as conn:
        await transition_task(conn, task, TaskAction.START, Actor(shop.users["pat"], False))
        await conn.execute(text("INSERT INTO customers (name) VALUES ('Committed Ltd')"))
        # Not visible outside the transaction before it commits.
        assert await customers_named(shop, "Committed Ltd") == 0
    assert await customers_named(shop, "Committed Ltd") == 1
    assert await status_and_events(shop, task) == ("STARTED", events + 1)


async def test_a_commit_that_fails_raises_changes_nothing_and_leaves_the_pool_usable(
    shop: Shop,
) -> None:
    with pytest.raises(asyncpg.UniqueViolationError):
        async with unit_of_work(shop.engine) as conn:
            await conn.execute(text("INSERT INTO customers (name) VALUES ('Deferred Ltd')"))
            # Checked only at COMMIT, which then fails.
            await conn.execute(
                text(
                    "CREATE TEMPORARY TABLE once (n int UNIQUE DEFERRABLE INITIALLY DEFERRED)"
                    " ON COMMIT DROP"
                )
            )
            await conn.execute(text("INSERT INTO once VALUES (1), (1)"))
    assert await customers_named(shop, "Deferred Ltd") == 0
    # Every pooled connection still opens and commits units of work of its own.
    size = shop.engine.pool.size()  # type: ignore[attr-defined]
    for n in range(2 * size):
        async with unit_of_work(shop.engine) as conn:
            await conn.execute(text("INSERT INTO customers (name) VALUES (:n)"), {"n": f"A{n}"})
    assert sum([await customers_named(shop, f"A{n}") for n in range(2 * size)]) == 2 * size


async def begin_natively(conn: AsyncConnection) -> None:
    await fetch_native(conn, "ping")


async def begin_a_unit_of_work(engine: AsyncEngine) -> None:
    async with unit_of_work(engine) as conn:
        await conn.execute(text("SELECT 1"))


async def begin_in_sqlalchemy_then_natively(engine: AsyncEngine) -> None:
    async with engine.begin() as conn:
        await begin_natively(conn)


async def begin_in_sqlalchemy(engine: AsyncEngine) -> None:
    async with engine.begin() as conn:
        await conn.execute(text("SELECT 1"))


async def read_one_snapshot(engine: AsyncEngine) -> None:
    async with one_snapshot(engine) as conn:
        await conn.execute(text("SELECT 1"))


@pytest.mark.parametrize(
    "work",
    [
        begin_a_unit_of_work,
        begin_in_sqlalchemy_then_natively,
        begin_in_sqlalchemy,
        read_one_snapshot,
    ],
)
async def test_a_transaction_cancelled_as_it_begins_loses_no_later_work(
    database_url: str, shop: Shop, work: Callable[[AsyncEngine], Awaitable[None]]
) -> None:
    """A BEGIN cut short by a cancellation (a socket closed mid-mutation, a shutdown) must
    not leave its connection in the pool half in a transaction: the next unit of work on
    it would commit nothing, only release a savepoint. Each number of loop turns lands the
    cancellation at another step; one pooled connection, so the next unit of work gets
    the same one."""
    engine = create_engine(database_url, pool_size=1, max_overflow=0)
    try:
        for turns in range(40):
            started = asyncio.create_task(work(engine))
            for _ in range(turns):
                await asyncio.sleep(0)
            started.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await started
            async with unit_of_work(engine) as conn:
                name = f"After {turns}"
                await conn.execute(text("INSERT INTO customers (name) VALUES (:n)"), {"n": name})
            assert await customers_named(shop, name) == 1, f"lost, {turns} turns in"
    finally:
        await engine.dispose()
