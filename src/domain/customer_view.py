"""What a customer's link shows of their order: where the job is, in the few steps a
customer follows (not the floor's departments), and how long a link works."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from domain.enums import DepartmentKind, ProofStatus, TaskStatus, WorkOrderStatus
from domain.routing import on_order

# The default of PRESSROOM_CUSTOMER_LINK_DAYS.
LINK_DAYS = 60


def link_ends(
    expires_at: datetime | None,
    order_status: WorkOrderStatus,
    order_ended_at: datetime | None,
    days: int,
) -> datetime | None:
    """When a link stops working: its own expiry, else `days` after its order completed or
    was cancelled; never while the order is open (a reopened order's link works again)."""
    if expires_at is not None:
        return expires_at
    if order_status is WorkOrderStatus.ACTIVE or order_ended_at is None:
        return None
    return order_ended_at + timedelta(days=days)


class Stage(StrEnum):
    RECEIVED = "RECEIVED"
    IN_DESIGN = "IN_DESIGN"
    AWAITING_APPROVAL = "AWAITING_APPROVAL"
    IN_PRODUCTION = "IN_PRODUCTION"
    READY_FOR_PICKUP = "READY_FOR_PICKUP"
    READY_FOR_DELIVERY = "READY_FOR_DELIVERY"
    OUT_FOR_DELIVERY = "OUT_FOR_DELIVERY"
    DELIVERED = "DELIVERED"
    PAUSED = "PAUSED"
    CANCELLED = "CANCELLED"


@dataclass(frozen=True)
class JobTask:
    kind: DepartmentKind
    status: TaskStatus
    # Its department makes the proof (domain.routing.proof_makers).
    designs: bool = False


@dataclass(frozen=True)
class JobFacts:
    status: WorkOrderStatus
    held: bool
    needs_transport: bool
    tasks: Sequence[JobTask]
    latest_proof: ProofStatus | None = None


def stage(job: JobFacts) -> Stage:
    """Where the job is, the first that holds: ended; paused; a proof to approve; made and
    waiting for its pickup or delivery (out once Delivery started it); nothing begun yet;
    at design (or back there, changes asked for); else in production."""
    if job.status is WorkOrderStatus.CANCELLED:
        return Stage.CANCELLED
    if job.status is WorkOrderStatus.COMPLETED:
        return Stage.DELIVERED
    if job.held:
        return Stage.PAUSED
    if job.latest_proof is ProofStatus.PENDING:
        return Stage.AWAITING_APPROVAL
    tasks = [t for t in job.tasks if on_order(t.status)]
    production = [t for t in tasks if t.kind is DepartmentKind.PRODUCTION]
    delivery = [t for t in tasks if t.kind is DepartmentKind.DELIVERY]
    if delivery and all(t.status is TaskStatus.COMPLETED for t in production):
        if not job.needs_transport:
            return Stage.READY_FOR_PICKUP
        if any(t.status is TaskStatus.STARTED for t in delivery):
            return Stage.OUT_FOR_DELIVERY
        return Stage.READY_FOR_DELIVERY
    if job.latest_proof is None and all(t.status is TaskStatus.PENDING for t in tasks):
        return Stage.RECEIVED
    if job.latest_proof is ProofStatus.CHANGES_REQUESTED or any(
        t.designs and t.status is not TaskStatus.COMPLETED for t in tasks
    ):
        return Stage.IN_DESIGN
    return Stage.IN_PRODUCTION
