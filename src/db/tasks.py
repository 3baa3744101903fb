"""The task aggregate's transition function: the only code that writes a task's status."""

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from db.orders import settle_work_order, waits_for_proof
from db.queries import fetch_native, in_transaction
from db.rows import TaskRow
from db.timers import STALE_AFTER
from domain.enums import TaskAction, TaskStatus, WorkOrderStatus
from domain.errors import DomainError, ErrorCode
from domain.transitions import TRANSITIONS, ActorFacts, TaskState, Verdict, Who, judge

# A refused write is re-read and judged; if the state moved in between so that the
# move is allowed after all, it is tried again, a bounded number of times.
MAX_ATTEMPTS = 3


@dataclass(frozen=True)
class Actor:
    user_id: int
    is_admin: bool
    # Of a Sales department (REMOVE is theirs and admins').
    is_sales: bool = False


@dataclass(frozen=True)
class TaskMove:
    task: TaskRow
    changed: bool


def transition_params(
    task_id: int,
    action: TaskAction,
    actor_id: int,
    reason: str | None = None,
    stale_after: timedelta = STALE_AFTER,
) -> dict[str, Any]:
    """The binds of the `transition_task` statement for one move of the table."""
    rule = TRANSITIONS[action]
    order_statuses = (
        [WorkOrderStatus.ACTIVE]
        if rule.requires_active_order
        else [WorkOrderStatus.ACTIVE, WorkOrderStatus.COMPLETED]
    )
    return {
        "task_id": task_id,
        "order_statuses": [s.value for s in order_statuses],
        "target": rule.target.value,
        "sources": sorted(s.value for s in rule.sources),
        "requires_available": rule.requires_available,
        "requires_unheld": rule.requires_unheld,
        "requires_member": rule.who is Who.DEPARTMENT_MEMBER,
        "requires_holder": rule.who is Who.TASK_HOLDER,
        "requires_production": rule.requires_production,
        "action": action.value,
        "actor_id": actor_id,
        "reason": reason,
        "stale_seconds": stale_after.total_seconds(),
    }


def needs_transaction(action: TaskAction) -> bool:
    """Whether a move must run in a transaction. A start writes with one statement; every
    other move then settles its work order with a second, under the first one's lock."""
    return TRANSITIONS[action].settles_order


async def transition_task(
    conn: AsyncConnection,
    task_id: int,
    action: TaskAction,
    actor: Actor,
    reason: str | None = None,
    stale_after: timedelta = STALE_AFTER,
) -> TaskMove:
    """Apply one move of the transition table as a single guarded statement.

    The statement writes the history and event rows with the change. Every move but a
    start then settles the work order (gate, status) under the lock the statement
    took. Must run inside a unit of work, with a transaction if `needs_transaction`;
    never commits. The statements of a move are read through asyncpg itself
    (`fetch_native`): it is the API's busiest write.
    """
    if needs_transaction(action) and not in_transaction(conn):
        raise RuntimeError(f"{action.value} settles its work order: it needs a transaction")
    rule = TRANSITIONS[action]
    params = transition_params(task_id, action, actor.user_id, reason, stale_after)
    for _ in range(MAX_ATTEMPTS):
        moved = await fetch_native(conn, "transition_task", **params)
        if moved:
            if rule.settles_order:
                await settle_work_order(conn, moved[0].work_order_id)
            return TaskMove(TaskRow.pick(moved[0]), changed=True)
        found = await fetch_native(conn, "task_state", task_id=task_id, actor_id=actor.user_id)
        if not found:
            raise DomainError(ErrorCode.NOT_FOUND, "No such task.", "taskId")
        state = found[0]
        verdict = judge(
            action,
            TaskState(
                status=TaskStatus(state.status),
                picked_up_by=state.picked_up_by,
                picked_up_by_name=state.picked_up_by_name,
                available=state.available,
                order_status=WorkOrderStatus(state.order_status),
                imported_closed=state.imported_closed,
                held=state.held,
                production=state.production,
                awaits_proof=waits_for_proof(state),
            ),
            ActorFacts(actor.user_id, actor.is_admin, state.is_member, actor.is_sales),
        )
        if verdict is Verdict.ALREADY_DONE:
            [task] = await fetch_native(conn, "tasks_by_id", ids=[task_id])
            return TaskMove(TaskRow.of(task), changed=False)
    raise DomainError(
        ErrorCode.INVALID_TRANSITION, "The task kept changing under this request; try again."
    )
