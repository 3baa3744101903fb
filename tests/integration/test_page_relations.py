"""A page's relations, read in one statement as JSON, are the rows the per-relation
statements read, value for value and type for type, whatever the session's time zone
(JSON carries timestamps as text in that zone; asyncpg reads them as UTC datetimes)."""

import dataclasses
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import text

from db import reads, rows
from db.engine import unit_of_work
from db.tasks import Actor, transition_task
from domain.enums import TaskAction
from tests.support.database import task_ids
from tests.support.shop import Shop

EVERYTHING = reads.PageParts(
    customers=True,
    creators=True,
    history=True,
    tasks=True,
    pickers=True,
    picker_departments=True,
    task_history=True,
)


def values(row: Any) -> dict[str, Any]:
    return {f.name: getattr(row, f.name) for f in dataclasses.fields(row)}


def by_id(rows: list[Any]) -> list[Any]:
    return sorted(rows, key=lambda row: row.id)


def same(page_rows: list[Any], alone: list[Any]) -> None:
    """The same row type, the same values (each of the same Python type)."""
    assert [type(r) for r in page_rows] == [type(r) for r in alone]
    assert [values(r) for r in page_rows] == [values(r) for r in alone]
    for row, other in zip(page_rows, alone, strict=True):
        assert [type(v) for v in values(row).values()] == [type(v) for v in values(other).values()]
    for row in page_rows:
        for value in values(row).values():
            if isinstance(value, datetime):
                assert value.tzinfo is UTC


@pytest.mark.parametrize("zone", ["UTC", "Asia/Kathmandu", "America/St_Johns"])
async def test_a_pages_relations_are_the_rows_read_one_relation_at_a_time(
    shop: Shop, zone: str
) -> None:
    orders = [await shop.order(["print", "finishing"]) for _ in range(3)]
    # Two orders through production: pickers, task history, and the delivery gate's
    # opening in the order's history.
    for order in orders[:2]:
        ids = await task_ids(shop.engine, order)
        for department, worker in (("print", "pat"), ("finishing", "fin")):
            for action in (TaskAction.START, TaskAction.FINISH):
                async with unit_of_work(shop.engine) as conn:
                    actor = Actor(shop.users[worker], False)
                    await transition_task(conn, ids[department], action, actor)
    async with shop.engine.connect() as conn:
        await conn.execute(text(f"SET TIME ZONE '{zone}'"))
        found = await reads.work_order_page_relations(conn, orders, EVERYTHING)
        tasks = await reads.tasks_of_work_orders(conn, orders)
        task_ids_ = [t.id for t in tasks]
        moves = await reads.task_history(conn, task_ids_)
        history = await reads.work_order_history(conn, orders)
        users = {m.actor_id for m in moves} | {h.actor_id for h in history} | {shop.users["sam"]}
        users |= {t.picked_up_by for t in tasks if t.picked_up_by is not None}
        departments = {t.department_id for t in tasks}
        same([t for o in orders for t in found.tasks_of.get(o, [])], tasks)
        same([m for t in sorted(task_ids_) for m in found.moves_of.get(t, [])], moves)
        same([h for o in orders for h in found.history_of.get(o, [])], history)
        same(by_id(found.users), by_id(await reads.users(conn, list(users))))
        same(by_id(found.departments), by_id(await reads.departments(conn, list(departments))))
        same(found.customers, await reads.customers(conn, [shop.customer_id]))
        for worker in ("pat", "fin"):
            memberships = await reads.memberships(conn, [shop.users[worker]])
            same(found.memberships_of[shop.users[worker]], memberships)
    assert moves and history, "the orders have history to compare"


def test_a_table_whose_columns_json_would_change_is_refused() -> None:
    # work_orders.details is JSONB: numbers past 64 bits would come back as floats.
    with pytest.raises(TypeError, match=r"work_orders\.details"):
        rows.WorkOrderRow.from_json([])
