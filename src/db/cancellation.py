"""Cancelling a work order."""

from sqlalchemy.ext.asyncio import AsyncConnection

from db.orders import transition_work_order
from db.queries import Q
from db.rows import WorkOrderRow
from db.tasks import Actor, transition_task
from domain.enums import TaskAction, WorkOrderAction, WorkOrderStatus
from domain.errors import DomainError, ErrorCode
from domain.transitions import cancel_refusal


async def cancel_work_order(
    conn: AsyncConnection, work_order_id: int, actor_id: int, reason: str
) -> WorkOrderRow:
    """Cancel: started tasks are released, pending ones leave every queue, the order is terminal.

    The order's row lock is taken first, so a START racing this either committed
    before (and its task is released here) or waits and then finds the order
    CANCELLED. A cancelled order therefore never has a STARTED task.
    """
    locked = (await conn.execute(Q["lock_work_order"], {"work_order_id": work_order_id})).first()
    if locked is None:
        raise DomainError(ErrorCode.NOT_FOUND, "No such work order.", "workOrderId")
    refusal = cancel_refusal(WorkOrderStatus(locked.status), locked.imported_closed)
    if refusal is not None:
        raise refusal
    started = (await conn.execute(Q["started_task_ids"], {"work_order_id": work_order_id})).all()
    for row in started:
        await transition_task(
            conn,
            row.id,
            TaskAction.RELEASE,
            Actor(actor_id, is_admin=True),
            reason=f"Work order cancelled: {reason}",
        )
    await conn.execute(Q["withdraw_pending_tasks"], {"work_order_id": work_order_id})
    return await transition_work_order(
        conn, work_order_id, WorkOrderAction.CANCEL, actor_id, reason
    )
