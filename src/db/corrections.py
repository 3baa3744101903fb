"""Correcting an open work order: its details, flags and customer; a department's task
added or removed. Each under the order's row lock, with its history row and event; adding
or removing a task settles the order's gates again (domain.routing)."""

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from db import reads
from db.orders import OrderChange, lock_open_order, order_change, settle_work_order
from db.queries import Q
from db.rows import DepartmentRow
from db.tasks import Actor, transition_task
from domain import validation
from domain.corrections import FLAGS, OrderText, changes, texts
from domain.enums import DepartmentKind, TaskAction, WorkOrderAction
from domain.errors import DomainError, ErrorCode
from domain.workflow import chosen_per_order


@dataclass(frozen=True)
class Correction:
    """What a correction sets; None leaves that part as it is."""

    details: dict[str, Any] | None = None
    # The job's checked fields, laid over the details (those given, or the order's).
    job: dict[str, Any] | None = None
    needs_installation: bool | None = None
    needs_transport: bool | None = None
    needs_repair: bool | None = None
    customer_id: int | None = None
    proof_required: bool | None = None


async def _customer_name(conn: AsyncConnection, customer_id: int) -> str:
    found = await reads.customers(conn, [customer_id])
    if not found:
        raise DomainError(ErrorCode.NOT_FOUND, "No such customer.", "customerId")
    return found[0].name


async def update_details(
    conn: AsyncConnection,
    work_order_id: int,
    correction: Correction,
    expected_version: int,
    actor_id: int,
) -> OrderChange:
    """Apply a correction at the version expected; the same values again are a quiet
    success (no history, no event). The gates are settled after: requiring a proof (or no
    longer) closes (or opens) the gates of the tasks that wait for one."""
    locked = await lock_open_order(conn, work_order_id, expected_version)
    current = locked._mapping
    customer_id = correction.customer_id or locked.customer_id
    asked = {flag: getattr(correction, flag) for flag in FLAGS}
    flags = {flag: current[flag] if value is None else value for flag, value in asked.items()}
    details = correction.details if correction.details is not None else locked.details
    if correction.job is not None:
        details = validation.details(validation.with_job(details, correction.job))
    named = await _customer_name(conn, locked.customer_id)
    before = OrderText(
        locked.details, {flag: current[flag] for flag in FLAGS}, named, locked.proof_required
    )
    if customer_id != locked.customer_id:
        named = await _customer_name(conn, customer_id)
    proof_required = (
        locked.proof_required if correction.proof_required is None else correction.proof_required
    )
    after = OrderText(details, flags, named, proof_required)
    changed = changes(before, after)
    if not changed:
        return await order_change(conn, work_order_id, None)
    from_state, to_state = texts(changed)
    params = {
        "work_order_id": work_order_id,
        "details": json.dumps(details),
        **flags,
        "customer_id": customer_id,
        "proof_required": proof_required,
        "from_state": from_state,
        "to_state": to_state,
        "changes": json.dumps([c.stored() for c in changed]),
        "actor_id": actor_id,
    }
    moved = (await conn.execute(Q["update_work_order_details"], params)).one()
    await settle_work_order(conn, work_order_id)
    return await order_change(conn, work_order_id, moved)


async def _department(conn: AsyncConnection, code: str) -> DepartmentRow:
    """A department that is chosen per order (production), by code."""
    department = next((d for d in await reads.all_departments(conn) if d.code == code), None)
    if department is None:
        raise DomainError(
            ErrorCode.NOT_FOUND, f"No department has the code '{code}'.", "departmentCode"
        )
    if not chosen_per_order(DepartmentKind(department.kind)):
        raise DomainError(
            ErrorCode.INVALID_INPUT,
            f"{department.name} is not chosen per order: only production departments are "
            "(the delivery task is on every order).",
            "departmentCode",
        )
    return department


async def _record(
    conn: AsyncConnection,
    work_order_id: int,
    action: WorkOrderAction,
    department: DepartmentRow,
    actor_id: int,
    reason: str | None = None,
) -> Any:
    """The order's history row and event for a department added or removed."""
    states = {
        WorkOrderAction.DEPARTMENT_ADDED: ("ABSENT", "PENDING"),
        WorkOrderAction.DEPARTMENT_REMOVED: ("PENDING", "REMOVED"),
    }
    params = {
        "work_order_id": work_order_id,
        "action": action.value,
        "from_state": states[action][0],
        "to_state": states[action][1],
        "actor_id": actor_id,
        "reason": reason,
        "department_id": department.id,
    }
    return (await conn.execute(Q["change_work_order_departments"], params)).one()


async def add_department(
    conn: AsyncConnection,
    work_order_id: int,
    code: str,
    expected_version: int | None,
    actor_id: int,
) -> OrderChange:
    """Give an open order a task of the production department `code`. Its gates are
    settled again: the new task waits for what it follows, and tasks downstream of it that
    have not started wait for it."""
    await lock_open_order(conn, work_order_id, expected_version)
    department = await _department(conn, code)
    params = {"work_order_id": work_order_id, "department_ids": [department.id], "open_ids": []}
    if not (await conn.execute(Q["insert_tasks"], params)).all():
        raise DomainError(
            ErrorCode.DUPLICATE,
            f"{department.name} already has a task on this work order.",
            "departmentCode",
        )
    moved = await _record(
        conn, work_order_id, WorkOrderAction.DEPARTMENT_ADDED, department, actor_id
    )
    await settle_work_order(conn, work_order_id, [department.id])
    return await order_change(conn, work_order_id, moved)


async def remove_department(
    conn: AsyncConnection,
    work_order_id: int,
    code: str,
    reason: str,
    expected_version: int | None,
    actor: Actor,
) -> OrderChange:
    """Take the order's task of `code` off it: the order's DEPARTMENT_REMOVED row, then the
    task's REMOVE move (PENDING only; its own history keeps it), which settles the gates
    (what waited for it may open): the person's entry comes before the system's."""
    await lock_open_order(conn, work_order_id, expected_version)
    department = await _department(conn, code)
    params = {"work_order_id": work_order_id, "department_id": department.id}
    task = (await conn.execute(Q["task_of_department"], params)).first()
    if task is None:
        raise DomainError(
            ErrorCode.NOT_FOUND,
            f"{department.name} has no task on this work order.",
            "departmentCode",
        )
    await _record(
        conn, work_order_id, WorkOrderAction.DEPARTMENT_REMOVED, department, actor.user_id, reason
    )
    await transition_task(conn, task.id, TaskAction.REMOVE, actor, reason)
    # Read again: the settling may have completed the order.
    [order] = await reads.work_orders(conn, [work_order_id])
    return OrderChange(order, changed=True)
