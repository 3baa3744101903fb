"""Batched and paginated reads for the API's dataloaders and connections.

Each function is one statement whatever the number of ids, so a page's cost
does not grow with its size.
"""

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy import Row
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from db import tables
from db.engine import one_snapshot
from db.events import Snapshot, StoredEvent
from db.queries import Q, fetch_native
from domain.enums import DepartmentKind


async def _by_ids(conn: AsyncConnection, name: str, ids: Sequence[int]) -> list[Row[Any]]:
    return list((await conn.execute(Q[name], {"ids": list(ids)})).all())


async def departments(conn: AsyncConnection, ids: Sequence[int]) -> list[Row[Any]]:
    return await _by_ids(conn, "departments_by_id", ids)


async def users(conn: AsyncConnection, ids: Sequence[int]) -> list[Row[Any]]:
    return await _by_ids(conn, "users_by_id", ids)


async def customers(conn: AsyncConnection, ids: Sequence[int]) -> list[Row[Any]]:
    return await _by_ids(conn, "customers_by_id", ids)


async def work_orders(conn: AsyncConnection, ids: Sequence[int]) -> list[Row[Any]]:
    return await _by_ids(conn, "work_orders_by_id", ids)


async def tasks(conn: AsyncConnection, ids: Sequence[int]) -> list[Row[Any]]:
    return await _by_ids(conn, "tasks_by_id", ids)


async def tasks_of_work_orders(conn: AsyncConnection, ids: Sequence[int]) -> list[Row[Any]]:
    return await _by_ids(conn, "tasks_by_work_order", ids)


async def task_history(conn: AsyncConnection, ids: Sequence[int]) -> list[Row[Any]]:
    return await _by_ids(conn, "task_history", ids)


async def work_order_history(conn: AsyncConnection, ids: Sequence[int]) -> list[Row[Any]]:
    return await _by_ids(conn, "work_order_history", ids)


async def memberships(conn: AsyncConnection, ids: Sequence[int]) -> list[Row[Any]]:
    return await _by_ids(conn, "memberships_by_user", ids)


async def tokens(conn: AsyncConnection, ids: Sequence[int]) -> list[Row[Any]]:
    return await _by_ids(conn, "tokens_by_id", ids)


async def tokens_page(
    conn: AsyncConnection, *, user_id: int | None, limit: int, after_id: int | None
) -> list[Row[Any]]:
    params = {"user_id": user_id, "limit": limit, "after_id": after_id}
    return list((await conn.execute(Q["tokens_page"], params)).all())


async def ledger_entries(conn: AsyncConnection, ids: Sequence[int]) -> list[Row[Any]]:
    return await _by_ids(conn, "ledger_entries_by_id", ids)


async def ledger_of_work_orders(conn: AsyncConnection, ids: Sequence[int]) -> list[Row[Any]]:
    return await _by_ids(conn, "ledger_of_work_orders", ids)


async def customer_balances(conn: AsyncConnection, ids: Sequence[int]) -> list[Row[Any]]:
    return await _by_ids(conn, "customer_balances", ids)


async def customer_ledger_page(
    conn: AsyncConnection, *, customer_id: int, limit: int, after_id: int | None
) -> list[Row[Any]]:
    params = {"customer_id": customer_id, "limit": limit, "after_id": after_id}
    return list((await conn.execute(Q["customer_ledger_page"], params)).all())


async def all_departments(conn: AsyncConnection) -> list[Row[Any]]:
    return list((await conn.execute(Q["departments_all"])).all())


@dataclass(frozen=True)
class PageParts:
    """What to read along with a page of work orders (what its selection shows)."""

    customers: bool = False
    creators: bool = False
    history: bool = False
    tasks: bool = False
    pickers: bool = False
    picker_departments: bool = False
    task_history: bool = False

    def any(self) -> bool:
        return any(vars(self).values())


class TableRow(SimpleNamespace):
    """A table's row that came as a JSON object, read by attribute like the rows of the
    per-relation statements, with the same Python values."""


@dataclass(frozen=True)
class PageRelations:
    customers: list[TableRow]
    users: list[TableRow]
    departments: list[TableRow]
    tasks_of: dict[int, list[TableRow]]  # by work order, in the order tasks_by_work_order has
    history_of: dict[int, list[TableRow]]  # by work order
    moves_of: dict[int, list[TableRow]]  # task history, by task
    memberships_of: dict[int, list[TableRow]]  # by user


# Column types that come out of JSON as asyncpg reads them (numbers here are 64-bit).
_AS_IN_JSON = (sa.Integer, sa.Text, sa.Boolean)


@functools.cache
def _timestamps(table: sa.Table) -> tuple[str, ...]:
    """The table's timestamp columns. Any other kind of column (a numeric, bytes, JSON)
    would come back changed, and is refused rather than read wrong."""
    for column in table.columns:
        if not isinstance(column.type, (*_AS_IN_JSON, sa.DateTime)):
            raise TypeError(f"{table.name}.{column.name} cannot be read back from JSON as is")
    return tuple(c.name for c in table.columns if isinstance(c.type, sa.DateTime))


def _rows(table: sa.Table, objects: list[dict[str, Any]] | None) -> list[TableRow]:
    """Rows of `table` from their JSON objects. Only timestamps differ from what asyncpg
    reads: JSON has them as text, in the session's time zone."""
    stamps = _timestamps(table)
    rows = []
    for values in objects or ():
        for name in stamps:
            text = values[name]
            if text is not None:
                moment = datetime.fromisoformat(text)
                values[name] = moment if moment.tzinfo is UTC else moment.astimezone(UTC)
        rows.append(TableRow(**values))
    return rows


def _grouped(rows: list[TableRow], key: str) -> dict[int, list[TableRow]]:
    groups: dict[int, list[TableRow]] = {}
    for row in rows:
        groups.setdefault(getattr(row, key), []).append(row)
    return groups


async def work_order_page_relations(
    conn: AsyncConnection, ids: Sequence[int], parts: PageParts
) -> PageRelations:
    """One statement for what a page of work orders shows besides the orders themselves."""
    [row] = await fetch_native(conn, "work_order_page_relations", ids=list(ids), **vars(parts))
    found = orjson.loads(row.relations)
    departments = _rows(tables.departments, found["departments"])
    kinds = {d.id: d.kind for d in departments}
    tasks = _rows(tables.department_tasks, found["tasks"])
    for task in tasks:
        task.department_kind = kinds[task.department_id]
    tasks.sort(key=lambda t: (t.work_order_id, t.department_kind == DepartmentKind.DELIVERY, t.id))
    return PageRelations(
        customers=_rows(tables.customers, found["customers"]),
        users=_rows(tables.users, found["users"]),
        departments=departments,
        tasks_of=_grouped(tasks, "work_order_id"),
        history_of=_grouped(
            _rows(tables.work_order_transitions, found["history"]), "work_order_id"
        ),
        moves_of=_grouped(_rows(tables.task_transitions, found["task_history"]), "task_id"),
        memberships_of=_grouped(
            [TableRow(user_id=u, department_id=d) for u, d in found["memberships"] or ()],
            "user_id",
        ),
    )


async def work_orders_page(
    conn: AsyncConnection,
    *,
    limit: int,
    after_id: int | None,
    status: str | None,
    customer_id: int | None,
    search: str | None,
) -> list[Row[Any]]:
    params = {
        "limit": limit,
        "after_id": after_id,
        "status": status,
        "customer_id": customer_id,
        "search": search,
    }
    return list((await conn.execute(Q["work_orders_page"], params)).all())


async def customers_page(
    conn: AsyncConnection, *, limit: int, after_id: int | None, search: str | None
) -> list[Row[Any]]:
    params = {"limit": limit, "after_id": after_id, "search": search}
    return list((await conn.execute(Q["customers_page"], params)).all())


async def users_page(conn: AsyncConnection, *, limit: int, after_id: int | None) -> list[Row[Any]]:
    return list((await conn.execute(Q["users_page"], {"limit": limit, "after_id": after_id})).all())


async def queue_page(
    engine: AsyncEngine,
    *,
    department_id: int,
    limit: int,
    after: tuple[int, datetime, int] | None,
) -> tuple[Snapshot, list[Row[Any]]]:
    """A page of a department's queue and the snapshot it was read in, so that the page
    and its event cursor agree exactly."""
    lane, since, after_id = after if after else (None, None, None)
    params = {
        "department_id": department_id,
        "limit": limit,
        "after_lane": lane,
        "after_since": since,
        "after_id": after_id,
    }
    async with one_snapshot(engine) as conn:
        snapshot = Snapshot.parse(await conn.scalar(Q["current_snapshot"]))
        rows = list((await conn.execute(Q["queue_page"], params)).all())
    return snapshot, rows


@dataclass(frozen=True)
class Related:
    """Rows that a batch of events refers to, read once and shared by every subscriber."""

    tasks: dict[int, Row[Any]] = field(default_factory=dict)
    work_orders: dict[int, Row[Any]] = field(default_factory=dict)
    departments: dict[int, Row[Any]] = field(default_factory=dict)
    users: dict[int, Row[Any]] = field(default_factory=dict)
    customers: dict[int, Row[Any]] = field(default_factory=dict)


async def related(conn: AsyncConnection, batch: Sequence[StoredEvent]) -> Related:
    snapshots = [e.task for e in batch if e.task is not None]
    task_ids = {t.id for t in snapshots}
    order_ids = {e.work_order_id for e in batch if e.work_order_id is not None}
    tasks_ = {r.id: r for r in await tasks(conn, sorted(task_ids))} if task_ids else {}
    orders = {r.id: r for r in await work_orders(conn, sorted(order_ids))} if order_ids else {}
    pickers = [t.picked_up_by for t in snapshots]
    pickers += [r.picked_up_by for r in tasks_.values()]
    user_ids: set[int] = {p for p in pickers if p is not None}
    department_ids = {e.department_id for e in batch if e.department_id is not None}
    customer_ids = {r.customer_id for r in orders.values()}
    return Related(
        tasks=tasks_,
        work_orders=orders,
        departments={r.id: r for r in await departments(conn, sorted(department_ids))}
        if department_ids
        else {},
        users={r.id: r for r in await users(conn, sorted(user_ids))} if user_ids else {},
        customers={r.id: r for r in await customers(conn, sorted(customer_ids))}
        if customer_ids
        else {},
    )
