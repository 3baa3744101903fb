"""A work order's time: its due date and priority, and its hold (a gate on its pending
tasks, not a status). Each change is one guarded statement under the order's row lock,
with its history row and its events."""

from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncConnection

from db import timers
from db.orders import OrderChange, lock_open_order, order_change
from db.queries import Q
from domain.enums import WorkOrderPriority
from domain.transitions import schedule_text


async def reschedule(
    conn: AsyncConnection,
    work_order_id: int,
    due_at: datetime | None,
    priority: WorkOrderPriority,
    expected_version: int | None,
    actor_id: int,
    due_soon: timedelta = timers.DUE_SOON,
) -> OrderChange:
    """Set the due date and priority, re-arming the due date's timers; the same schedule
    again is a quiet success."""
    locked = await lock_open_order(conn, work_order_id, expected_version)
    params = {
        "work_order_id": work_order_id,
        "due_at": due_at,
        "priority": priority.value,
        "previous_due_at": locked.due_at,
        "from_schedule": schedule_text(locked.due_at, WorkOrderPriority(locked.priority)),
        "to_schedule": schedule_text(due_at, priority),
        "actor_id": actor_id,
    }
    moved = (await conn.execute(Q["reschedule_work_order"], params)).first()
    if moved is not None:
        await timers.arm_order(conn, work_order_id, due_at, due_soon)
    return await order_change(conn, work_order_id, moved)


async def hold(
    conn: AsyncConnection, work_order_id: int, reason: str, actor_id: int
) -> OrderChange:
    """Hold an ACTIVE order: its pending tasks leave the queues. Held already: quiet."""
    await lock_open_order(conn, work_order_id)
    params = {"work_order_id": work_order_id, "reason": reason, "actor_id": actor_id}
    moved = (await conn.execute(Q["hold_work_order"], params)).first()
    return await order_change(conn, work_order_id, moved)


async def resume(conn: AsyncConnection, work_order_id: int, actor_id: int) -> OrderChange:
    """Resume a held order: its pending tasks return to their places. Not held: quiet."""
    await lock_open_order(conn, work_order_id)
    params = {"work_order_id": work_order_id, "actor_id": actor_id}
    moved = (await conn.execute(Q["resume_work_order"], params)).first()
    return await order_change(conn, work_order_id, moved)
