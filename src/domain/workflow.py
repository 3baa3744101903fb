"""Rules that follow from task states: the gates (domain.routing says what each task
waits for) and the work order's status.

Decision (see docs/decisions.md): reopening a task closes the gates downstream of it only
while their tasks are still PENDING. A task already started keeps its gate: the work (or,
for delivery, the goods) is already on its way, so the admin reopening upstream decides
separately whether it goes back too (by reopening or releasing it).
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from domain.enums import DepartmentKind, TaskStatus, WorkOrderStatus
from domain.errors import DomainError, ErrorCode
from domain.routing import (
    DepartmentFacts,
    Routing,
    TaskFacts,
    gate_opens,
    on_order,
)


def can_gate_delivery(kind: DepartmentKind) -> bool:
    return kind is DepartmentKind.PRODUCTION


def gates_delivery(kind: DepartmentKind, asked: bool | None) -> bool:
    """Production departments gate delivery unless told otherwise (Design does not);
    no other kind can."""
    if asked and not can_gate_delivery(kind):
        raise DomainError(
            ErrorCode.INVALID_INPUT,
            "Only production departments can gate delivery.",
            "gatesDelivery",
        )
    return asked if asked is not None else can_gate_delivery(kind)


def needs_approved_proof(kind: DepartmentKind, asked: bool) -> bool:
    """Only production departments wait for an approved proof (Print, Finishing)."""
    if asked and kind is not DepartmentKind.PRODUCTION:
        raise DomainError(
            ErrorCode.INVALID_INPUT,
            "Only production departments can wait for an approved proof.",
            "needsApprovedProof",
        )
    return asked


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
            f"Only production departments get tasks; not {', '.join(wrong)}.",
            "departmentCodes",
        )
    delivery = [d for d in every if d.kind is DepartmentKind.DELIVERY]
    if not delivery:
        raise DomainError(
            ErrorCode.NOT_FOUND,
            "There is no delivery department yet: an admin must create one first.",
            "departmentCodes",
        )
    return sorted({d.id for d in chosen} | {delivery[0].id})


def new_order_refusal(
    has_production: bool, job_line: str | None, delivery_only: bool
) -> DomainError | None:
    """Why a new work order makes no sense, or None: one that only delivers (stock goods)
    says so (`deliveryOnly`) and has no production department; any other needs one, and
    a job line (what the job is: a product, a title or notes)."""
    if delivery_only:
        if has_production:
            return DomainError(
                ErrorCode.INVALID_INPUT,
                "An order that only delivers has no production departments: choose none, "
                "or do not mark it as delivery only.",
                "deliveryOnly",
            )
        return None
    if not has_production:
        return DomainError(
            ErrorCode.INVALID_INPUT,
            "Choose at least one production department, or mark the order as delivery only.",
            "departmentCodes",
        )
    if job_line is None:
        return DomainError(
            ErrorCode.INVALID_INPUT,
            "Say what the job is (a product, a title or notes), or mark the order as "
            "delivery only.",
            "details",
        )
    return None


def addable(every: Iterable[DepartmentFacts], tasks: Iterable[tuple[int, TaskStatus]]) -> list[int]:
    """The departments an order could be given a task of now (addWorkOrderDepartment):
    those chosen per order that have no task on it but a removed one."""
    present = {department for department, status in tasks if on_order(status)}
    return [d.id for d in every if chosen_per_order(d.kind) and d.id not in present]


@dataclass(frozen=True)
class Settlement:
    """What settling an order changes: the gates to open and to close (by department
    id), and its status."""

    opens: tuple[int, ...] = ()
    closes: tuple[int, ...] = ()
    new_status: WorkOrderStatus | None = None

    @property
    def changes_anything(self) -> bool:
        return bool(self.opens or self.closes) or self.new_status is not None


def progress(statuses: Iterable[TaskStatus]) -> tuple[int, int]:
    """How many of an order's tasks are done (COMPLETED), of how many (removed ones are
    not counted)."""
    listed = [s for s in statuses if on_order(s)]
    return sum(s is TaskStatus.COMPLETED for s in listed), len(listed)


def opens_at_creation(tasks: Sequence[TaskFacts], routing: Routing) -> list[int]:
    """The production departments whose tasks on a new order wait for nothing (no task,
    no proof): in their queues from the start (the delivery gate's is opened by settling,
    with no history entry either: its task waited for nothing)."""
    return [
        t.department_id
        for t in tasks
        if t.kind is DepartmentKind.PRODUCTION and gate_opens(t, tasks, routing)
    ]


def settle(
    order_status: WorkOrderStatus, tasks: Sequence[TaskFacts], routing: Routing
) -> Settlement:
    """Every gate of the order by one rule (domain.routing.gate_opens): open when nothing
    it waits for is unfinished, nor the customer's approval of a proof; closed again only
    while its task is PENDING (a started task keeps its gate, see the module's decision).
    Then the status follows the tasks. Removed tasks take no part."""
    if order_status is WorkOrderStatus.CANCELLED:
        return Settlement()
    tasks = [t for t in tasks if on_order(t.status)]
    opens, closes = [], []
    for task in tasks:
        should_open = gate_opens(task, tasks, routing)
        if should_open and not task.gate_open:
            opens.append(task.department_id)
        elif not should_open and task.gate_open and task.status is TaskStatus.PENDING:
            closes.append(task.department_id)
    all_done = all(t.status is TaskStatus.COMPLETED for t in tasks)
    new_status: WorkOrderStatus | None = None
    if order_status is WorkOrderStatus.ACTIVE and all_done:
        new_status = WorkOrderStatus.COMPLETED
    elif order_status is WorkOrderStatus.COMPLETED and not all_done:
        new_status = WorkOrderStatus.ACTIVE
    return Settlement(tuple(opens), tuple(closes), new_status)
