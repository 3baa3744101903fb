"""Batched and paginated reads for the API's dataloaders and connections.

Each function is one statement whatever the number of ids, so a page's cost
does not grow with its size.
"""

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row
from sqlalchemy.ext.asyncio import AsyncConnection

from db.queries import Q


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


async def all_departments(conn: AsyncConnection) -> list[Row[Any]]:
    return list((await conn.execute(Q["departments_all"])).all())


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
    conn: AsyncConnection,
    *,
    department_id: int,
    limit: int,
    after: tuple[int, datetime, int] | None,
) -> list[Row[Any]]:
    lane, since, after_id = after if after else (None, None, None)
    params = {
        "department_id": department_id,
        "limit": limit,
        "after_lane": lane,
        "after_since": since,
        "after_id": after_id,
    }
    return list((await conn.execute(Q["queue_page"], params)).all())
