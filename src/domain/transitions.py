"""The task state machine as data, and the judge that explains a refused move.

`TRANSITIONS` is the single table the writer (src/db/tasks.py builds its guarded
UPDATE from it) and the README both read. `judge` is consulted only after a
guarded UPDATE matched no row: it looks at the state re-read from the database
and says whether the request already holds (a quiet success), is refused with
a specific code, or may be retried because the state moved under it.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from domain.enums import (
    ProofStatus,
    QueueLane,
    TaskAction,
    TaskStatus,
    WorkOrderAction,
    WorkOrderCommand,
    WorkOrderPriority,
    WorkOrderStatus,
)
from domain.errors import DomainError, ErrorCode, NotAllowed
from domain.ledger import quote_charge_refusal
from domain.money import Money
from domain.words import ORDER_ACTION, ORDER_STATUS, PRIORITY, TASK_ACTION, TASK_STATUS, either


class Who(StrEnum):
    DEPARTMENT_MEMBER = "member of the task's department"
    TASK_HOLDER = "the worker who started it"
    ADMIN = "admin"
    SALES = "Sales or admin"


@dataclass(frozen=True)
class Transition:
    action: TaskAction
    sources: frozenset[TaskStatus]
    target: TaskStatus
    who: Who
    reason_required: bool
    requires_available: bool
    # START needs an ACTIVE work order; every other move only needs it not CANCELLED.
    requires_active_order: bool
    # START needs the work order not on hold (work in hand still finishes).
    requires_unheld: bool
    # REMOVE takes only a task of a department chosen per order (not the delivery task).
    requires_production: bool = False

    @property
    def settles_order(self) -> bool:
        """Every move but a start can change the gate or the order's status: completing
        or reopening a task, and releasing a delivery task whose gate should be shut."""
        return self.target is not TaskStatus.STARTED


def _t(
    action: TaskAction,
    sources: set[TaskStatus],
    target: TaskStatus,
    who: Who,
    *,
    reason: bool = False,
    available: bool = False,
    active: bool = False,
    unheld: bool = False,
    production: bool = False,
) -> Transition:
    return Transition(
        action, frozenset(sources), target, who, reason, available, active, unheld, production
    )


P, S, C = TaskStatus.PENDING, TaskStatus.STARTED, TaskStatus.COMPLETED
R = TaskStatus.REMOVED

TRANSITIONS: dict[TaskAction, Transition] = {
    t.action: t
    for t in (
        _t(
            TaskAction.START,
            {P},
            S,
            Who.DEPARTMENT_MEMBER,
            available=True,
            active=True,
            unheld=True,
        ),
        _t(TaskAction.FINISH, {S}, C, Who.TASK_HOLDER),
        _t(TaskAction.RELEASE, {S}, P, Who.ADMIN, reason=True),
        _t(TaskAction.OVERRIDE_COMPLETE, {P, S}, C, Who.ADMIN, reason=True),
        _t(TaskAction.REOPEN, {C}, P, Who.ADMIN, reason=True),
        # removeWorkOrderDepartment: a task nobody has started leaves its order.
        _t(TaskAction.REMOVE, {P}, R, Who.SALES, reason=True, active=True, production=True),
    )
}


@dataclass(frozen=True)
class TaskState:
    """What the judge needs to know about a task, read after a refused write."""

    status: TaskStatus
    picked_up_by: int | None
    picked_up_by_name: str | None
    available: bool
    order_status: WorkOrderStatus
    # The order was completed or cancelled in the old system (the legacy import).
    imported_closed: bool = False
    # The order is on hold.
    held: bool = False
    # Its department is chosen per order (production), not the delivery department.
    production: bool = True
    # It waits for the customer's approval of the order's latest proof (domain.routing).
    awaits_proof: bool = False


@dataclass(frozen=True)
class ActorFacts:
    user_id: int
    is_admin: bool
    is_member: bool
    is_sales: bool = False


class Verdict(StrEnum):
    ALREADY_DONE = "ALREADY_DONE"
    RETRY = "RETRY"


def judge(action: TaskAction, task: TaskState, actor: ActorFacts) -> Verdict:
    """Explain why a guarded write matched nothing; raise the refusal, or say what to do."""
    rule = TRANSITIONS[action]
    if task.imported_closed:
        raise imported_history(task.order_status)
    if task.order_status is WorkOrderStatus.CANCELLED:
        raise DomainError(ErrorCode.WORK_ORDER_CLOSED, "The work order is cancelled.")
    if _already_holds(action, task, actor):
        return Verdict.ALREADY_DONE
    if rule.who is Who.ADMIN and not actor.is_admin:
        raise NotAllowed(f"To {TASK_ACTION[action]} a task is for admins.")
    if rule.who is Who.SALES and not (actor.is_sales or actor.is_admin):
        raise NotAllowed(f"To {TASK_ACTION[action]} a task is for Sales and admins.")
    if rule.who is Who.DEPARTMENT_MEMBER and not actor.is_member:
        raise NotAllowed("Only members of the task's department can start it.")
    if (
        rule.who is Who.TASK_HOLDER
        and task.status is TaskStatus.STARTED
        and task.picked_up_by != actor.user_id
    ):
        raise DomainError(
            ErrorCode.NOT_TASK_HOLDER,
            f"Only {task.picked_up_by_name}, who started this task, can finish it.",
        )
    if task.status not in rule.sources:
        if action is TaskAction.START and task.status is TaskStatus.STARTED:
            raise DomainError(
                ErrorCode.ALREADY_TAKEN,
                f"{task.picked_up_by_name} has already started this task.",
            )
        verb, sources = TASK_ACTION[action], either([TASK_STATUS[s] for s in sorted(rule.sources)])
        raise DomainError(
            ErrorCode.INVALID_TRANSITION,
            f"Cannot {verb} a task that is {TASK_STATUS[task.status]}: {verb} takes a task "
            f"that is {sources} to {TASK_STATUS[rule.target]}.",
        )
    if rule.requires_production and not task.production:
        raise DomainError(
            ErrorCode.INVALID_INPUT,
            "The delivery task is on every work order: it cannot be removed.",
            "departmentCode",
        )
    if rule.requires_available and not task.available and task.awaits_proof:
        raise DomainError(
            ErrorCode.PROOF_NOT_APPROVED,
            "This task waits for the customer to approve the order's latest proof.",
        )
    if rule.requires_available and not task.available:
        raise DomainError(
            ErrorCode.NOT_AVAILABLE,
            "This task is not available yet: it waits for tasks before it on the order.",
        )
    if rule.requires_active_order and task.order_status is not WorkOrderStatus.ACTIVE:
        raise DomainError(
            ErrorCode.WORK_ORDER_CLOSED, f"The work order is {ORDER_STATUS[task.order_status]}."
        )
    if rule.requires_unheld and task.held:
        raise DomainError(
            ErrorCode.ON_HOLD, "The work order is on hold: its tasks wait until it is resumed."
        )
    return Verdict.RETRY


def allowed_actions(task: TaskState, actor: ActorFacts) -> list[TaskAction]:
    """The moves `actor` may make on `task` now, read off the table the writer guards
    with: what a screen offers. (The writer still has the last word: the task may move
    before the request arrives.)"""
    if task.imported_closed or task.order_status is WorkOrderStatus.CANCELLED:
        return []
    return [rule.action for rule in TRANSITIONS.values() if _may(rule, task, actor)]


def _may(rule: Transition, task: TaskState, actor: ActorFacts) -> bool:
    if task.status not in rule.sources:
        return False
    if rule.requires_available and not task.available:
        return False
    if rule.requires_active_order and task.order_status is not WorkOrderStatus.ACTIVE:
        return False
    if rule.requires_unheld and task.held:
        return False
    if rule.requires_production and not task.production:
        return False
    if rule.who is Who.ADMIN:
        return actor.is_admin
    if rule.who is Who.SALES:
        return actor.is_sales or actor.is_admin
    if rule.who is Who.DEPARTMENT_MEMBER:
        return actor.is_member
    return task.picked_up_by == actor.user_id


def in_queue(
    status: TaskStatus, available: bool, order_status: WorkOrderStatus, held: bool = False
) -> bool:
    """Whether a task is in its department's queue: available and PENDING on an order not
    on hold, or STARTED, on an ACTIVE work order (what `queue_page` in
    src/db/queries.sql selects)."""
    if order_status is not WorkOrderStatus.ACTIVE:
        return False
    return status is TaskStatus.STARTED or (status is TaskStatus.PENDING and available and not held)


@dataclass(frozen=True)
class QueuePlace:
    """Where a task sorts in its department's queue (`queue_page` in src/db/queries.sql
    orders by the same): its lane; in WAITING, RUSH first, then the earliest due date
    (none last), then the oldest availability; in IN_PROGRESS, the oldest start; then id."""

    lane: QueueLane
    rush: bool
    due_at: datetime | None
    since: datetime

    def rank(self, task_id: int) -> str:
        """Text that sorts as the places do (moments in UTC, fixed width)."""
        due = _moment(self.due_at) if self.due_at is not None else "~"
        lane = list(QueueLane).index(self.lane)
        return f"{lane}|{0 if self.rush else 1}|{due}|{_moment(self.since)}|{task_id:019d}"


def _moment(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def queue_place(
    status: TaskStatus,
    available_at: datetime | None,
    started_at: datetime | None,
    priority: WorkOrderPriority,
    due_at: datetime | None,
) -> QueuePlace | None:
    """A task's place in its department's queue's order; None for a task in neither lane
    (whether it is in the queue at all is `in_queue`)."""
    if status is TaskStatus.PENDING and available_at is not None:
        rush = priority is WorkOrderPriority.RUSH
        return QueuePlace(QueueLane.WAITING, rush, due_at, available_at)
    if status is TaskStatus.STARTED and started_at is not None:
        return QueuePlace(QueueLane.IN_PROGRESS, False, None, started_at)
    return None


def _already_holds(action: TaskAction, task: TaskState, actor: ActorFacts) -> bool:
    """Duplicate requests whose outcome already holds succeed quietly (no history, no event)."""
    mine = task.picked_up_by == actor.user_id
    if action is TaskAction.START:
        return task.status is TaskStatus.STARTED and mine
    if action is TaskAction.FINISH:
        return task.status is TaskStatus.COMPLETED and mine
    return False


@dataclass(frozen=True)
class OrderTransition:
    action: WorkOrderAction
    source: WorkOrderStatus
    target: WorkOrderStatus


# The work order's own status moves. CANCEL is the only one a person asks for; the
# others follow its tasks. Nothing leads out of CANCELLED: it is terminal.
ORDER_TRANSITIONS: dict[WorkOrderAction, OrderTransition] = {
    t.action: t
    for t in (
        OrderTransition(
            WorkOrderAction.COMPLETE, WorkOrderStatus.ACTIVE, WorkOrderStatus.COMPLETED
        ),
        OrderTransition(
            WorkOrderAction.REACTIVATE, WorkOrderStatus.COMPLETED, WorkOrderStatus.ACTIVE
        ),
        OrderTransition(WorkOrderAction.CANCEL, WorkOrderStatus.ACTIVE, WorkOrderStatus.CANCELLED),
    )
}


# The order's moves Pressroom makes, not a person: a gate opening or closing because of
# what its task waits for (a task finished or reopened, a proof decided, a routing
# changed), and the status that follows its tasks. Their history rows name no actor
# (docs/decisions.md, "Who the history credits").
SYSTEM_MOVES = frozenset(
    {
        WorkOrderAction.OPEN_GATE,
        WorkOrderAction.CLOSE_GATE,
        WorkOrderAction.COMPLETE,
        WorkOrderAction.REACTIVATE,
    }
)


def by_system(action: WorkOrderAction) -> bool:
    return action in SYSTEM_MOVES


def imported_history(status: WorkOrderStatus) -> DomainError:
    """Orders completed or cancelled in the old system stay as they were imported: their
    tasks, quote and status never change (the brief's "immutable history")."""
    return DomainError(
        ErrorCode.WORK_ORDER_CLOSED,
        f"This work order is imported history ({ORDER_STATUS[status]} in the old system): "
        "it cannot change.",
    )


def refuse_order_move(action: WorkOrderAction, status: WorkOrderStatus) -> DomainError:
    rule = ORDER_TRANSITIONS[action]
    if status is not WorkOrderStatus.ACTIVE:
        return DomainError(
            ErrorCode.WORK_ORDER_CLOSED, f"The work order is {ORDER_STATUS[status]}."
        )
    verb = ORDER_ACTION[action]
    return DomainError(
        ErrorCode.INVALID_TRANSITION,
        f"Cannot {verb} a work order that is {ORDER_STATUS[status]}: {verb} takes a work "
        f"order that is {ORDER_STATUS[rule.source]} to {ORDER_STATUS[rule.target]}.",
    )


def quote_refusal(status: WorkOrderStatus, imported_closed: bool) -> DomainError | None:
    """Why a work order's quote cannot change now, or None: it can unless the order is
    CANCELLED or imported history."""
    if imported_closed:
        return imported_history(status)
    if status is WorkOrderStatus.CANCELLED:
        return DomainError(ErrorCode.WORK_ORDER_CLOSED, "The work order is cancelled.")
    return None


def cancel_refusal(status: WorkOrderStatus, imported_closed: bool) -> DomainError | None:
    """Why a work order cannot be cancelled now, or None (only an ACTIVE one can be)."""
    if imported_closed:
        return imported_history(status)
    if status is not ORDER_TRANSITIONS[WorkOrderAction.CANCEL].source:
        return refuse_order_move(WorkOrderAction.CANCEL, status)
    return None


def open_refusal(status: WorkOrderStatus, imported_closed: bool) -> DomainError | None:
    """Why a work order cannot be rescheduled, held, resumed or corrected now, or None:
    only an ACTIVE order can (a held one is ACTIVE)."""
    if imported_closed:
        return imported_history(status)
    if status is not WorkOrderStatus.ACTIVE:
        return DomainError(
            ErrorCode.WORK_ORDER_CLOSED, f"The work order is {ORDER_STATUS[status]}."
        )
    return None


def stale_refusal(version: int, expected: int | None) -> DomainError | None:
    """Why a change made at `expected` (None: at any version) cannot apply at `version`."""
    if expected is None or version == expected:
        return None
    return DomainError(
        ErrorCode.STALE_OBJECT,
        f"The work order is at version {version}, not {expected}; reload it and try again.",
        "expectedVersion",
    )


def schedule_text(due_at: datetime | None, priority: WorkOrderPriority) -> str:
    """A schedule as its history row shows it: "due 2027-01-31 18:00 UTC, rush"."""
    due = f"due {due_at.astimezone(UTC):%Y-%m-%d %H:%M} UTC" if due_at else "no due date"
    return f"{due}, {PRIORITY[priority]}"


def is_late(status: WorkOrderStatus, due_at: datetime | None, now: datetime) -> bool:
    """Not completed (nor cancelled) and its due date passed."""
    return status is WorkOrderStatus.ACTIVE and due_at is not None and due_at <= now


def order_commands(
    status: WorkOrderStatus,
    imported_closed: bool,
    held: bool,
    quote: Money | None,
    latest_proof: ProofStatus | None = None,
    charged: Iterable[Money] = (),
) -> list[WorkOrderCommand]:
    """What may be asked of a work order now, by the rules its writers refuse with (who
    may ask each is the API's to say): what a screen offers. Holding a held order, or
    resuming one that is not, is a quiet success, not a refusal, but is not offered; nor
    is deciding a proof version that waits for nobody (`latest_proof`: the newest
    version's status). `charged`: what its entries charged (CHARGE less CREDIT, per
    currency), for whoever may charge its quote."""
    schedulable = open_refusal(status, imported_closed) is None
    offered = {
        WorkOrderCommand.CANCEL: cancel_refusal(status, imported_closed) is None,
        WorkOrderCommand.EDIT_QUOTE: quote_refusal(status, imported_closed) is None,
        WorkOrderCommand.RESCHEDULE: schedulable,
        WorkOrderCommand.HOLD: schedulable and not held,
        WorkOrderCommand.RESUME: schedulable and held,
        WorkOrderCommand.EDIT_DETAILS: schedulable,
        WorkOrderCommand.CHANGE_DEPARTMENTS: schedulable,
        WorkOrderCommand.CHARGE_QUOTE: quote_charge_refusal(
            quote, charged, status is WorkOrderStatus.CANCELLED
        )
        is None,
        WorkOrderCommand.UPLOAD_PROOF: schedulable,
        WorkOrderCommand.DECIDE_PROOF: schedulable and latest_proof is ProofStatus.PENDING,
        WorkOrderCommand.LINK_CUSTOMER: True,
    }
    return [command for command, ok in offered.items() if ok]
