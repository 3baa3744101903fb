"""A work order's time: its due date and priority, and its hold (a gate on its pending
tasks, not a status). Each change is one guarded statement under the order's row lock,
with its history row and its events."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from db import reads, timers
from db.queries import Q
from db.rows import WorkOrderRow
from domain.enums import WorkOrderPriority, WorkOrderStatus
from domain.errors import DomainError, ErrorCode
from domain.transitions import schedule_refusal, schedule_text


@dataclass(frozen=True)
class OrderChange:
    order: WorkOrderRow
    changed: bool


async def _locked(conn: AsyncConnection, work_order_id: int) -> Any:
    """The order under its row lock, if nothing forbids changing its time."""
    locked = (await conn.execute(Q["lock_work_order"], {"work_order_id": work_order_id})).first()
    if locked is None:
        raise DomainError(ErrorCode.NOT_FOUND, "No such work order.", "workOrderId")
    refusal = schedule_refusal(WorkOrderStatus(locked.status), locked.imported_closed)
    if refusal is not None:
        raise refusal
    return locked


async def _outcome(conn: AsyncConnection, work_order_id: int, moved: Any) -> OrderChange:
    """Changed (the statement's row), or a quiet success (the order as it stands)."""
    if moved is not None:
        return OrderChange(WorkOrderRow.pick(moved), changed=True)
    [order] = await reads.work_orders(conn, [work_order_id])
    return OrderChange(order, changed=False)


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
    locked = await _locked(conn, work_order_id)
    if expected_version is not None and locked.version != expected_version:
        raise DomainError(
            ErrorCode.STALE_OBJECT,
            f"The work order is at version {locked.version}, not {expected_version}; "
            "reload it and try again.",
            "expectedVersion",
        )
    params = {
        "work_order_id": work_order_id,
        "due_at": due_at,
        "priority": priority.value,
        "from_schedule": schedule_text(locked.due_at, WorkOrderPriority(locked.priority)),
        "to_schedule": schedule_text(due_at, priority),
        "actor_id": actor_id,
    }
    moved = (await conn.execute(Q["reschedule_work_order"], params)).first()
    if moved is not None:
        await timers.arm_order(conn, work_order_id, due_at, due_soon)
    return await _outcome(conn, work_order_id, moved)


async def hold(
    conn: AsyncConnection, work_order_id: int, reason: str, actor_id: int
) -> OrderChange:
    """Hold an ACTIVE order: its pending tasks leave the queues. Held already: quiet."""
    await _locked(conn, work_order_id)
    params = {"work_order_id": work_order_id, "reason": reason, "actor_id": actor_id}
    moved = (await conn.execute(Q["hold_work_order"], params)).first()
    return await _outcome(conn, work_order_id, moved)


async def resume(conn: AsyncConnection, work_order_id: int, actor_id: int) -> OrderChange:
    """Resume a held order: its pending tasks return to their places. Not held: quiet."""
    await _locked(conn, work_order_id)
    params = {"work_order_id": work_order_id, "actor_id": actor_id}
    moved = (await conn.execute(Q["resume_work_order"], params)).first()
    return await _outcome(conn, work_order_id, moved)
