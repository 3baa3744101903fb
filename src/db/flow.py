"""Flow figures read from the histories in SQL (queries.sql: department_flow, order_flow)."""

from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from db.engine import unit_of_work
from db.queries import Q
from domain.flow import DepartmentFlow, DurationStats, OrderFlow, Window


def _stats(row: Any, prefix: str) -> DurationStats:
    return DurationStats(
        count=getattr(row, f"{prefix}_count"),
        p50=getattr(row, f"{prefix}_p50"),
        p85=getattr(row, f"{prefix}_p85"),
        max=getattr(row, f"{prefix}_max"),
    )


async def department_flow(
    conn: AsyncConnection, window: Window, department_ids: list[int], zone: ZoneInfo
) -> list[DepartmentFlow]:
    """The departments' figures, in the order of `department_ids`; every day of the window
    in `zone` listed."""
    rows = await conn.execute(
        Q["department_flow"],
        {
            "from": window.start,
            "to": window.end,
            "department_ids": department_ids,
            "time_zone": zone.key,
        },
    )
    days = window.days(zone)
    place = {department: i for i, department in enumerate(department_ids)}
    return sorted(
        (
            DepartmentFlow(
                department_id=row.department_id,
                started=row.wait_count,
                completed=row.completed,
                wait=_stats(row, "wait"),
                work=_stats(row, "work"),
                wip=row.wip,
                waiting=row.waiting,
                per_day=[(day, row.per_day.get(day.isoformat(), 0)) for day in days],
            )
            for row in rows
        ),
        key=lambda figures: place[figures.department_id],
    )


async def order_flow(conn: AsyncConnection, window: Window) -> OrderFlow:
    row = (await conn.execute(Q["order_flow"], {"from": window.start, "to": window.end})).one()
    return OrderFlow(
        completed_with_due=row.with_due,
        on_time=row.on_time,
        late_now=row.late_now,
        lead=_stats(row, "lead"),
        customer_wait=_stats(row, "customer"),
    )


async def rebuild(conn: AsyncConnection, work_order_ids: list[int]) -> int:
    """Derive the flow projection of these orders and their tasks from history again; no
    events. Returns how many tasks it wrote."""
    params = {"work_order_ids": work_order_ids}
    return int((await conn.execute(Q["rebuild_flow"], params)).scalar_one())


async def rebuild_all(engine: AsyncEngine, batch: int = 1000) -> int:
    """Every order's, `batch` orders a transaction: each holds its orders' rows for a
    moment, so the floor keeps moving while a year is rebuilt. Returns the tasks written."""
    written, after = 0, 0
    while True:
        async with unit_of_work(engine) as conn:
            params = {"after_id": after, "limit": batch}
            ids = list((await conn.execute(Q["work_order_ids_after"], params)).scalars())
            if not ids:
                return written
            written += await rebuild(conn, ids)
        after = ids[-1]
