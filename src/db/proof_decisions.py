"""Deciding a proof version (domain.proof_decisions), for the customer's page and for Sales
recording the customer's word alike: one guarded statement, then the gates settled under
the order's lock, and for changes asked for the proof's makers (Design) back at work."""

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncConnection

from db import reads
from db.corrections import add_department
from db.orders import settle_work_order
from db.queries import Q, in_transaction
from db.tasks import Actor, transition_task
from domain.enums import ProofDecider, ProofStatus, TaskAction, TaskStatus, WorkOrderStatus
from domain.errors import DomainError, ErrorCode
from domain.proof_decisions import (
    CUSTOMER_USER_EMAIL,
    CUSTOMER_USER_NAME,
    Decision,
    ProofState,
    decision,
    judge_decision,
)
from domain.transitions import Verdict

# A decision that matched nothing is re-read and judged; a state that moved in between is
# tried again, a bounded number of times (as task moves are).
MAX_ATTEMPTS = 3


@dataclass(frozen=True)
class ProofDecided:
    proof_id: int
    # False: the same decision was already made (a quiet success, nothing written).
    changed: bool


async def decide(
    conn: AsyncConnection,
    *,
    work_order_id: int,
    version: int,
    approve: bool,
    comment: str | None,
    decided_by_name: str,
    sales_user_id: int | None,
    customer_link_id: int | None,
) -> ProofDecided:
    """Approve version `version` of the order's proof, or ask for changes (`comment` says
    what), as the customer through the link `customer_link_id` or as Sales
    (`sales_user_id`) on the customer's word: exactly one of the two. Only the latest
    version while PENDING is decided (a withdrawn one is PROOF_SUPERSEDED); the same
    decision again is a quiet success, the other one ALREADY_DECIDED. An approval opens
    the gates that waited for it; changes asked for reopen the order's Design task (or add
    one). Needs a transaction; never commits."""
    if (sales_user_id is None) == (customer_link_id is None):
        raise ValueError("a proof is decided through a customer link or by Sales, not both")
    if not in_transaction(conn):
        raise RuntimeError("a proof decision settles its work order: it needs a transaction")
    through = ProofDecider.SALES if sales_user_id is not None else ProofDecider.CUSTOMER
    asked = decision(approve, decided_by_name, comment, through)
    params = {
        "work_order_id": work_order_id,
        "version": version,
        "status": asked.status.value,
        "through": through.value,
        "decided_by_name": asked.decided_by_name,
        "decided_by": sales_user_id,
        "customer_link_id": customer_link_id,
        "comment": asked.comment,
        "kind": asked.kind.value,
        "history": asked.history(version),
    }
    for _ in range(MAX_ATTEMPTS):
        decided = (await conn.execute(Q["decide_proof"], params)).first()
        if decided is not None:
            # Under the lock decide_proof took: an approval opens each gate exactly once.
            await settle_work_order(conn, work_order_id)
            if not asked.approve:
                await _send_back(conn, work_order_id, asked, sales_user_id)
            return ProofDecided(decided.id, changed=True)
        found = (
            await conn.execute(
                Q["proof_state"],
                {
                    "work_order_id": work_order_id,
                    "version": version,
                    "customer_link_id": customer_link_id,
                },
            )
        ).first()
        state = (
            ProofState(
                version=found.version,
                status=ProofStatus(found.status),
                latest_version=found.latest_version,
                order_status=WorkOrderStatus(found.order_status),
                imported_closed=found.imported_closed,
                decided_by_name=found.decided_by_name,
                way_in=found.way_in,
            )
            if found is not None
            else None
        )
        if judge_decision(asked, version, state) is Verdict.ALREADY_DONE:
            assert found is not None
            return ProofDecided(found.id, changed=False)
    raise DomainError(
        ErrorCode.INVALID_TRANSITION, "The proof kept changing under this request; try again."
    )


async def _send_back(
    conn: AsyncConnection, work_order_id: int, asked: Decision, sales_user_id: int | None
) -> None:
    """The proof's makers (domain.routing.proof_makers) back at work on the order: a
    completed task reopened with the comment as its reason, a missing one added; one still
    pending or started is at work already."""
    departments = await reads.all_departments(conn)
    makers = reads.proof_makers_of(departments)
    if not makers:
        return
    params = {"work_order_id": work_order_id, "department_ids": makers}
    tasks = {r.department_id: r for r in await conn.execute(Q["proof_makers_tasks"], params)}
    actor_id = sales_user_id if sales_user_id is not None else await _customer_user(conn)
    codes = {d.id: d.code for d in departments}
    for department in makers:
        task = tasks.get(department)
        if task is None:
            await add_department(conn, work_order_id, codes[department], None, actor_id)
        elif task.status == TaskStatus.COMPLETED:
            # The customer's word moves it, not a person's right to: as an admin's reopen.
            actor = Actor(actor_id, is_admin=True)
            await transition_task(conn, task.id, TaskAction.REOPEN, actor, reason=asked.comment)


async def _customer_user(conn: AsyncConnection) -> int:
    params = {"email": CUSTOMER_USER_EMAIL, "name": CUSTOMER_USER_NAME}
    return int((await conn.execute(Q["ensure_system_user"], params)).scalar_one())
