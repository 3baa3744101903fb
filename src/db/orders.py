"""The work order aggregate: creation, the one status writer, settlement, cancellation."""

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from db import reads, timers
from db.idempotency import Once, made_before
from db.people import facts
from db.queries import Q, fetch_native
from db.rows import WorkOrderRow
from domain.enums import (
    DepartmentKind,
    ProofStatus,
    TaskStatus,
    WorkOrderAction,
    WorkOrderPriority,
    WorkOrderStatus,
)
from domain.errors import DomainError, ErrorCode
from domain.jobs import job_line
from domain.money import Money
from domain.routing import TaskFacts, awaits_proof
from domain.transitions import (
    ORDER_TRANSITIONS,
    open_refusal,
    quote_refusal,
    refuse_order_move,
    stale_refusal,
)
from domain.workflow import (
    chosen_per_order,
    new_order_refusal,
    opens_at_creation,
    settle,
    task_departments,
)

# Generated numbers may collide with numbers someone typed in; skip past those.
MAX_NUMBER_ATTEMPTS = 20
GATE_OPENED_REASON = "Every task it waits for is completed."
GATE_CLOSED_REASON = "A task it waits for is not completed any more."
PROOF_OPENED_REASON = "Every task it waits for is completed, and the customer approved the proof."
PROOF_CLOSED_REASON = "It waits for the customer to approve the latest proof."


@dataclass(frozen=True)
class NewWorkOrder:
    customer_id: int
    order_number: str | None
    details: dict[str, Any]
    department_codes: list[str]  # the PRODUCTION departments (domain.workflow.task_departments)
    needs_installation: bool
    needs_transport: bool
    needs_repair: bool
    quote: Money | None
    created_by: int
    due_at: datetime | None = None
    priority: WorkOrderPriority = WorkOrderPriority.NORMAL
    # An order that only delivers (stock goods): no production, no job line needed.
    delivery_only: bool = False
    # Its departments that need an approved proof wait for the customer's approval.
    proof_required: bool = False
    idempotency_key: str | None = None


@dataclass(frozen=True)
class OrderChange:
    order: WorkOrderRow
    changed: bool


def _asked(new: NewWorkOrder) -> dict[str, Any]:
    """What a retry with the same key must ask again: everything but who asks (as on the
    ledger) and the key; the departments as a set."""
    asked = dataclasses.asdict(new)
    del asked["created_by"], asked["idempotency_key"]
    asked["department_codes"] = sorted(new.department_codes)
    return asked


async def _made_before(conn: AsyncConnection, once: Once) -> OrderChange | None:
    made = await made_before(conn, "work_order_by_key", once, "work order")
    if made is None:
        return None
    [order] = await reads.work_orders(conn, [made])
    return OrderChange(order, changed=False)


async def create_work_order(
    conn: AsyncConnection, new: NewWorkOrder, due_soon: timedelta = timers.DUE_SOON
) -> OrderChange:
    """The order, a task per department domain.workflow.task_departments names, the gate.
    With a key already used for the same order: that order, unchanged."""
    once = Once.of(new.idempotency_key, _asked(new))
    repeated = await _made_before(conn, once)
    if repeated is not None:
        return repeated
    if (await conn.execute(Q["customer_exists"], {"customer_id": new.customer_id})).first() is None:
        raise DomainError(ErrorCode.NOT_FOUND, "No such customer.", "customerId")
    departments = await reads.all_departments(conn)
    every = [facts(d) for d in departments]
    by_code = {d.code: d for d in every}
    unknown = [c for c in new.department_codes if c not in by_code]
    if unknown:
        raise DomainError(
            ErrorCode.NOT_FOUND,
            f"Unknown department code(s): {', '.join(unknown)}.",
            "departmentCodes",
        )
    chosen = [by_code[c] for c in new.department_codes]
    department_ids = task_departments(chosen, every)
    refusal = new_order_refusal(
        any(chosen_per_order(d.kind) for d in chosen), job_line(new.details), new.delivery_only
    )
    if refusal is not None:
        raise refusal
    params = {
        "order_number": new.order_number,
        "customer_id": new.customer_id,
        "details": json.dumps(new.details),
        "needs_installation": new.needs_installation,
        "needs_transport": new.needs_transport,
        "needs_repair": new.needs_repair,
        "quote_minor": new.quote.minor if new.quote else None,
        "quote_currency": new.quote.currency if new.quote else None,
        "created_by": new.created_by,
        "due_at": new.due_at,
        "priority": new.priority.value,
        "proof_required": new.proof_required,
        **once.params(),
    }
    order = None
    for _ in range(MAX_NUMBER_ATTEMPTS):
        order = (await conn.execute(Q["insert_work_order"], params)).first()
        if order is not None:
            break
        # A create with this key committed meanwhile, or the number is taken.
        repeated = await _made_before(conn, once)
        if repeated is not None:
            return repeated
        if new.order_number is not None:
            break
    if order is None:
        raise DomainError(
            ErrorCode.DUPLICATE,
            f"Order number {new.order_number} is already taken.",
            "orderNumber",
        )
    rows = {d.id: d for d in departments}
    new_tasks = [
        TaskFacts(
            i,
            TaskStatus.PENDING,
            DepartmentKind(rows[i].kind),
            rows[i].gates_delivery,
            False,
            awaits_proof(new.proof_required, rows[i].needs_approved_proof, None),
        )
        for i in department_ids
    ]
    opens = opens_at_creation(new_tasks, reads.routing_of(departments))
    await conn.execute(
        Q["insert_tasks"],
        {"work_order_id": order.id, "department_ids": department_ids, "open_ids": opens},
    )
    # With no gating task the delivery gate is open from the start: settle opens it.
    await settle_work_order(conn, order.id, department_ids)
    if new.due_at is not None:
        await timers.arm_order(conn, order.id, new.due_at, due_soon)
    return OrderChange(WorkOrderRow.pick(order), changed=True)


async def lock_open_order(
    conn: AsyncConnection, work_order_id: int, expected_version: int | None = None
) -> Any:
    """The order under its row lock, if it is open to change (ACTIVE) at the version
    expected."""
    locked = (await conn.execute(Q["lock_work_order"], {"work_order_id": work_order_id})).first()
    if locked is None:
        raise DomainError(ErrorCode.NOT_FOUND, "No such work order.", "workOrderId")
    refusal = open_refusal(WorkOrderStatus(locked.status), locked.imported_closed) or stale_refusal(
        locked.version, expected_version
    )
    if refusal is not None:
        raise refusal
    return locked


async def order_change(conn: AsyncConnection, work_order_id: int, moved: Any) -> OrderChange:
    """Changed (the statement's row), or a quiet success (the order as it stands)."""
    if moved is not None:
        return OrderChange(WorkOrderRow.pick(moved), changed=True)
    [order] = await reads.work_orders(conn, [work_order_id])
    return OrderChange(order, changed=False)


def waits_for_proof(row: Any) -> bool:
    """domain.routing.awaits_proof of a row of settlement_facts or task_state."""
    latest = ProofStatus(row.latest_proof) if row.latest_proof is not None else None
    return awaits_proof(row.proof_required, row.needs_approved_proof, latest)


async def settle_work_order(
    conn: AsyncConnection, work_order_id: int, made: Sequence[int] = ()
) -> None:
    """Bring the order's gates and its status in line with its tasks: moves of the system,
    credited to no one. `made`: the departments whose tasks this transaction made (their
    gates open without history: those tasks waited for nothing).

    Callers hold the work order's row lock, and this reads in a statement of its own,
    so two workers finishing the last two tasks a gate waits for at once are serialised
    and the second one sees the first: the gate opens exactly once.
    """
    rows = await fetch_native(conn, "settlement_facts", work_order_id=work_order_id)
    first = rows[0]
    routing: dict[int, list[int]] = {}
    for follower, followed in zip(first.follows_from or (), first.follows_to or (), strict=True):
        routing.setdefault(follower, []).append(followed)
    tasks = [
        TaskFacts(
            department_id=r.department_id,
            status=TaskStatus(r.status),
            kind=DepartmentKind(r.kind),
            gates_delivery=r.gates_delivery,
            gate_open=r.gate_open,
            awaits_proof=waits_for_proof(r),
        )
        for r in rows
    ]
    outcome = settle(WorkOrderStatus(first.order_status), tasks, routing)
    # The history says why: a gate that waited for the proof (or waits for it now) says so.
    proofed = {r.department_id for r in rows if r.proof_required and r.needs_approved_proof}
    waiting = {t.department_id for t in tasks if t.awaits_proof}
    for open_, departments, reason in (
        (True, [d for d in outcome.opens if d not in proofed], GATE_OPENED_REASON),
        (True, [d for d in outcome.opens if d in proofed], PROOF_OPENED_REASON),
        (False, [d for d in outcome.closes if d not in waiting], GATE_CLOSED_REASON),
        (False, [d for d in outcome.closes if d in waiting], PROOF_CLOSED_REASON),
    ):
        if departments:
            params = {
                "work_order_id": work_order_id,
                "department_ids": departments,
                "open": open_,
                "reason": reason,
                "made_ids": list(made),
            }
            await conn.execute(Q["set_gates"], params)
    if outcome.new_status is WorkOrderStatus.COMPLETED:
        await transition_work_order(conn, work_order_id, WorkOrderAction.COMPLETE, None)
    elif outcome.new_status is WorkOrderStatus.ACTIVE:
        await transition_work_order(conn, work_order_id, WorkOrderAction.REACTIVATE, None)


async def transition_work_order(
    conn: AsyncConnection,
    work_order_id: int,
    action: WorkOrderAction,
    actor_id: int | None,
    reason: str | None = None,
) -> WorkOrderRow:
    """The only writer of a work order's status: one guarded statement, with history and event."""
    rule = ORDER_TRANSITIONS[action]
    moved = (
        await conn.execute(
            Q["transition_work_order"],
            {
                "work_order_id": work_order_id,
                "source": rule.source.value,
                "target": rule.target.value,
                "action": action.value,
                "actor_id": actor_id,
                "reason": reason,
            },
        )
    ).first()
    if moved is not None:
        return WorkOrderRow.pick(moved)
    current = (await conn.execute(Q["work_order_status"], {"work_order_id": work_order_id})).first()
    if current is None:
        raise DomainError(ErrorCode.NOT_FOUND, "No such work order.", "workOrderId")
    raise refuse_order_move(action, WorkOrderStatus(current.status))


NO_QUOTE = "NONE"


async def update_quote(
    conn: AsyncConnection,
    work_order_id: int,
    quote: Money,
    expected_version: int | None,
    actor_id: int,
) -> WorkOrderRow:
    """Change the quote under the order's row lock; history names the old and new money."""
    current = (
        await conn.execute(Q["lock_work_order_quote"], {"work_order_id": work_order_id})
    ).first()
    if current is None:
        raise DomainError(ErrorCode.NOT_FOUND, "No such work order.", "workOrderId")
    refusal = quote_refusal(
        WorkOrderStatus(current.status), current.imported_closed
    ) or stale_refusal(current.version, expected_version)
    if refusal is not None:
        raise refusal
    old = (
        Money(current.quote_minor, current.quote_currency).text()
        if current.quote_minor is not None
        else NO_QUOTE
    )
    moved = await conn.execute(
        Q["update_quote"],
        {
            "work_order_id": work_order_id,
            "quote_minor": quote.minor,
            "quote_currency": quote.currency,
            "from_quote": old,
            "to_quote": quote.text(),
            "actor_id": actor_id,
        },
    )
    return WorkOrderRow.pick(moved.one())
