"""Rules that follow from task states: the delivery gate and the work order's status.

Decision (see docs/decisions.md): reopening a gating task closes the gate
only while the delivery task is still PENDING. Once delivery has started or
completed, the gate stays open: the goods are already on their way, so the
admin reopening production decides separately whether delivery goes back too
(by reopening or releasing the delivery task).
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from domain.enums import DepartmentKind, TaskStatus, WorkOrderStatus
from domain.errors import DomainError, ErrorCode


@dataclass(frozen=True)
class DepartmentFacts:
    id: int
    code: str
    kind: DepartmentKind


def can_gate_delivery(kind: DepartmentKind) -> bool:
    return kind is DepartmentKind.PRODUCTION


def gates_delivery(kind: DepartmentKind, asked: bool | None) -> bool:
    """Production departments gate delivery unless told otherwise (Design does not);
    no other kind can."""
    if asked and not can_gate_delivery(kind):
        raise DomainError(
            ErrorCode.INVALID_INPUT,
            "Only PRODUCTION departments can gate delivery.",
            "gatesDelivery",
        )
    return asked if asked is not None else can_gate_delivery(kind)


@dataclass(frozen=True)
class KindChoice:
    """A kind a new department may be given, and what goes with it."""

    kind: DepartmentKind
    available: bool  # DELIVERY only while there is none: there is exactly one
    can_gate_delivery: bool
    gates_delivery_by_default: bool


# The order a new department's kinds are offered in: the one a shop adds most often first.
KIND_CHOICE_ORDER = (
    DepartmentKind.PRODUCTION,
    DepartmentKind.DELIVERY,
    DepartmentKind.SALES,
    DepartmentKind.ACCOUNTS,
)


def kind_choices(existing: Iterable[DepartmentKind]) -> list[KindChoice]:
    has_delivery = DepartmentKind.DELIVERY in set(existing)
    return [
        KindChoice(
            kind,
            available=not (kind is DepartmentKind.DELIVERY and has_delivery),
            can_gate_delivery=can_gate_delivery(kind),
            gates_delivery_by_default=gates_delivery(kind, None),
        )
        for kind in KIND_CHOICE_ORDER
    ]


# The departments whose work comes as tasks, and so has a queue.
TASK_KINDS = frozenset({DepartmentKind.PRODUCTION, DepartmentKind.DELIVERY})


def has_queue(kind: DepartmentKind) -> bool:
    return kind in TASK_KINDS


def chosen_per_order(kind: DepartmentKind) -> bool:
    """Whether Sales chooses the department for each work order: PRODUCTION. The delivery
    department gets a task on every order without being chosen."""
    return kind is DepartmentKind.PRODUCTION


def task_departments(
    chosen: Sequence[DepartmentFacts], every: Iterable[DepartmentFacts]
) -> list[int]:
    """Which departments get a task on a new work order: each chosen PRODUCTION department,
    plus the delivery department always (naming it is accepted). Sales and Accounts get
    none. Returns their ids in order."""
    wrong = [d.code for d in chosen if not has_queue(d.kind)]
    if wrong:
        raise DomainError(
            ErrorCode.INVALID_INPUT,
            f"Only PRODUCTION departments get tasks; not {', '.join(wrong)}.",
            "departmentCodes",
        )
    delivery = [d for d in every if d.kind is DepartmentKind.DELIVERY]
    if not delivery:
        raise DomainError(
            ErrorCode.NOT_FOUND,
            "There is no DELIVERY department yet; an admin must create one first.",
            "departmentCodes",
        )
    return sorted({d.id for d in chosen} | {delivery[0].id})


@dataclass(frozen=True)
class TaskFacts:
    status: TaskStatus
    kind: DepartmentKind
    gates_delivery: bool
    gate_open: bool  # availableAt is set; meaningful for the delivery task


@dataclass(frozen=True)
class Settlement:
    open_gate: bool = False
    close_gate: bool = False
    new_status: WorkOrderStatus | None = None

    @property
    def changes_anything(self) -> bool:
        return self.open_gate or self.close_gate or self.new_status is not None


def progress(statuses: Iterable[TaskStatus]) -> tuple[int, int]:
    """How many of an order's tasks are done (COMPLETED), of how many."""
    listed = list(statuses)
    return sum(s is TaskStatus.COMPLETED for s in listed), len(listed)


def holds_the_gate(task: TaskFacts) -> bool:
    """A task the delivery gate waits for: a gating production task not yet COMPLETED."""
    return (
        task.kind is DepartmentKind.PRODUCTION
        and task.gates_delivery
        and task.status is not TaskStatus.COMPLETED
    )


def gate_should_be_open(tasks: Iterable[TaskFacts]) -> bool:
    """Open when no task holds the gate (so also with no gating task at all)."""
    return not any(holds_the_gate(t) for t in tasks)


def settle(order_status: WorkOrderStatus, tasks: list[TaskFacts]) -> Settlement:
    if order_status is WorkOrderStatus.CANCELLED:
        return Settlement()
    delivery = next(t for t in tasks if t.kind is DepartmentKind.DELIVERY)
    should_open = gate_should_be_open(tasks)
    open_gate = should_open and not delivery.gate_open
    close_gate = not should_open and delivery.gate_open and delivery.status is TaskStatus.PENDING
    all_done = all(t.status is TaskStatus.COMPLETED for t in tasks)
    new_status: WorkOrderStatus | None = None
    if order_status is WorkOrderStatus.ACTIVE and all_done:
        new_status = WorkOrderStatus.COMPLETED
    elif order_status is WorkOrderStatus.COMPLETED and not all_done:
        new_status = WorkOrderStatus.ACTIVE
    return Settlement(open_gate=open_gate, close_gate=close_gate, new_status=new_status)
