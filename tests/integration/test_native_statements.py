"""Statements run through asyncpg itself (`fetch_native`, a task's move) belong to the unit
of work they run in, even as its first statement: SQLAlchemy's asyncpg adapter only
sends BEGIN with a statement of its own, so without care such a statement would commit
alone."""

import pytest
from sqlalchemy import text

from db.engine import reading, unit_of_work
from db.queries import fetch_native
from db.tasks import Actor, transition_task
from domain.enums import TaskAction
from tests.support import Shop, print_tasks


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


async def test_a_move_is_rolled_back_with_its_unit_of_work(shop: Shop) -> None:
    [task] = await print_tasks(shop, 1)
    before = await status_and_events(shop, task)
    with pytest.raises(Abandon):
        async with unit_of_work(shop.engine) as conn:
            move = await transition_task(
                conn, task, TaskAction.START, Actor(shop.users["pat"], False)
            )
            assert move.task.status == "STARTED"
            # Not visible outside the transaction before it commits.
            assert await status_and_events(shop, task) == before
            raise Abandon
    assert await status_and_events(shop, task) == before


async def test_a_move_commits_with_its_unit_of_work(shop: Shop) -> None:
    [task] = await print_tasks(shop, 1)
    _, events = await status_and_events(shop, task)
    async with unit_of_work(shop.engine) as conn:
        await transition_task(conn, task, TaskAction.START, Actor(shop.users["pat"], False))
    assert await status_and_events(shop, task) == ("STARTED", events + 1)


async def test_records_have_fields_by_name_and_by_attribute(shop: Shop) -> None:
    [task] = await print_tasks(shop, 1)
    async with reading(shop.engine) as conn:
        [row] = await fetch_native(conn, "tasks_by_id", ids=[task])
    assert row.id == row["id"] == task
    with pytest.raises(AttributeError):
        _ = row.no_such_field
