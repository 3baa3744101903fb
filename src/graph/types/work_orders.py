"""Work orders and their tasks, with the history of both: the aggregate the floor works on."""

from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, cast

import strawberry
from strawberry import relay
from strawberry.scalars import JSON

from db.rows import (
    TaskRow,
    TaskTransitionRow,
    WorkOrderRow,
    WorkOrderTransitionRow,
)
from domain import ledger
from domain.enums import (
    DepartmentKind,
    LedgerEntryKind,
    QueueLane,
    TaskAction,
    TaskStatus,
    WorkOrderAction,
    WorkOrderCommand,
    WorkOrderPriority,
    WorkOrderStatus,
)
from domain.jobs import job_line
from domain.money import Money as DomainMoney
from domain.transitions import (
    ActorFacts,
    QueuePlace,
    TaskState,
    allowed_actions,
    in_queue,
    is_late,
    order_commands,
    queue_place,
)
from domain.workflow import TaskFacts, holds_the_gate, progress
from graph.context import Info
from graph.loaders import now_or_later
from graph.permissions import (
    READS_LEDGER,
    SALES,
    SEES_QUOTES,
    STAFF,
    allowed,
    passes,
)
from graph.prefetch import read_ahead
from graph.types.customers import Customer
from graph.types.departments import Department
from graph.types.loading import nodes_of, required
from graph.types.money import Money
from graph.types.people import User, user_or_none

T = TypeVar("T")

if TYPE_CHECKING:
    from graph.types.ledger import LedgerEntry


@strawberry.type(description="One move of a task, as recorded when it happened.")
class TaskTransition:
    from_status: TaskStatus
    to_status: TaskStatus
    action: TaskAction
    reason: str | None
    occurred_at: datetime
    _actor_id: strawberry.Private[int]
    _task_id: strawberry.Private[int]

    @classmethod
    def of(cls, row: TaskTransitionRow) -> "TaskTransition":
        return cls(
            from_status=row.from_status,
            to_status=row.to_status,
            action=row.action,
            reason=row.reason,
            occurred_at=row.occurred_at,
            _actor_id=row.actor_id,
            _task_id=row.task_id,
        )

    @strawberry.field
    def actor(self, info: Info) -> User:
        return now_or_later(
            info.context.loaders.user.load(self._actor_id), lambda r: required(r, User.of)
        )

    @strawberry.field(description="The task that moved.")
    async def task(self, info: Info) -> "DepartmentTask":
        row = await info.context.loaders.task.load(self._task_id)
        assert row is not None
        return DepartmentTask.of(row)


@strawberry.type(
    description="A move of the work order's status or of its delivery gate (OPEN/CLOSED)."
)
class WorkOrderTransition:
    action: WorkOrderAction
    from_state: str
    to_state: str
    reason: str | None
    occurred_at: datetime
    _actor_id: strawberry.Private[int | None]

    @classmethod
    def of(cls, row: WorkOrderTransitionRow) -> "WorkOrderTransition":
        return cls(
            action=row.action,
            from_state=row.from_state,
            to_state=row.to_state,
            reason=row.reason,
            occurred_at=row.occurred_at,
            _actor_id=row.actor_id,
        )

    @strawberry.field(description="Who caused it; for gate moves, whose task move opened it.")
    def actor(self, info: Info) -> User | None:
        return user_or_none(info, self._actor_id)


@strawberry.type
class DepartmentTask(relay.Node):
    id: relay.NodeID[int]
    status: TaskStatus
    available_at: datetime | None = strawberry.field(
        description="When the task entered its queue; null while the delivery gate is closed."
    )
    started_at: datetime | None
    completed_at: datetime | None
    version: int
    _department_id: strawberry.Private[int]
    _work_order_id: strawberry.Private[int]
    _picked_up_by: strawberry.Private[int | None]

    @classmethod
    def of(cls, row: TaskRow) -> "DepartmentTask":
        return cls(
            id=row.id,
            status=row.status,
            available_at=row.available_at,
            started_at=row.started_at,
            completed_at=row.completed_at,
            version=row.version,
            _department_id=row.department_id,
            _work_order_id=row.work_order_id,
            _picked_up_by=row.picked_up_by,
        )

    @strawberry.field
    def department(self, info: Info) -> Department:
        return now_or_later(
            info.context.loaders.department.load(self._department_id),
            lambda r: required(r, Department.of),
        )

    @strawberry.field
    def work_order(self, info: Info) -> "WorkOrder":
        return now_or_later(
            info.context.loaders.work_order.load(self._work_order_id),
            lambda r: required(r, WorkOrder.of),
        )

    @strawberry.field(
        description="The worker holding the task; null exactly while PENDING.",
        metadata=read_ahead("pickers"),
    )
    def picked_up_by(self, info: Info) -> User | None:
        return user_or_none(info, self._picked_up_by)

    @strawberry.field(extensions=allowed(STAFF), metadata=read_ahead("task_history"))
    def history(self, info: Info) -> list[TaskTransition]:
        return now_or_later(
            info.context.loaders.task_history.load(self.id),
            lambda rows: [TaskTransition.of(r) for r in rows],
        )

    @strawberry.field(
        description="The moves the caller may make on this task now, read off the transition "
        "table the server guards each move with: the buttons a screen shows."
    )
    def allowed_actions(self, info: Info) -> list[TaskAction]:
        viewer = info.context.viewer
        if viewer is None or not viewer.is_person:
            return []
        actor = ActorFacts(
            viewer.user_id, viewer.is_admin, self._department_id in viewer.member_department_ids
        )
        return now_or_later(
            info.context.loaders.work_order.load(self._work_order_id),
            lambda order: required(order, lambda o: allowed_actions(self._state(o), actor)),
        )

    @strawberry.field(
        description="Whether the task is in its department's queue: available and PENDING, "
        "or STARTED, on an ACTIVE work order."
    )
    def in_queue(self, info: Info) -> bool:
        return now_or_later(
            info.context.loaders.work_order.load(self._work_order_id),
            lambda order: required(order, lambda o: self._place(o) is not None),
        )

    @strawberry.field(
        description="The part of its department's queue the task is in (WAITING: PENDING "
        "and available; IN_PROGRESS: STARTED), for screens to group by; null when the task "
        "is not in its queue (inQueue)."
    )
    def queue_lane(self, info: Info) -> QueueLane | None:
        return self._order_then(info, lambda o: _lane(self._place(o)))

    @strawberry.field(
        description="Text that sorts a queue's tasks in the queue's order (as `queue` lists "
        "them: RUSH first, then the earliest due date, then the oldest) when compared; null "
        "when queueLane is."
    )
    def queue_rank(self, info: Info) -> str | None:
        return self._order_then(info, lambda o: _rank(self._place(o), self.id))

    @strawberry.field(description="The work order's due date.")
    def due_at(self, info: Info) -> datetime | None:
        return self._order_then(info, lambda o: o.due_at)

    @strawberry.field(description="The work order's priority.")
    def priority(self, info: Info) -> WorkOrderPriority:
        return self._order_then(info, lambda o: o.priority)

    @strawberry.field(
        description="For the delivery task: the departments whose tasks the delivery gate "
        "still waits for (empty once it is open); empty for every other task."
    )
    async def waiting_for(self, info: Info) -> list[Department]:
        loaders = info.context.loaders
        own = await loaders.department.load(self._department_id)
        if own is None or own.kind != DepartmentKind.DELIVERY:
            return []
        rows = await loaders.tasks_of_work_order.load(self._work_order_id)
        departments = await loaders.department.load_many([r.department_id for r in rows])
        return [
            Department.of(d)
            for r, d in zip(rows, departments, strict=True)
            if d is not None
            and holds_the_gate(
                TaskFacts(TaskStatus(r.status), DepartmentKind(d.kind), d.gates_delivery, False)
            )
        ]

    def _available(self) -> bool:
        return self.available_at is not None and self.available_at <= datetime.now(UTC)

    def _state(self, order: WorkOrderRow) -> TaskState:
        return TaskState(
            status=TaskStatus(self.status),
            picked_up_by=self._picked_up_by,
            picked_up_by_name=None,
            available=self._available(),
            order_status=WorkOrderStatus(order.status),
            imported_closed=order.imported_closed,
            held=order.held_at is not None,
        )

    def _place(self, order: WorkOrderRow) -> QueuePlace | None:
        """Its place in its department's queue, or None when it is not in it."""
        status = TaskStatus(self.status)
        held = order.held_at is not None
        if not in_queue(status, self._available(), WorkOrderStatus(order.status), held):
            return None
        priority = WorkOrderPriority(order.priority)
        return queue_place(status, self.available_at, self.started_at, priority, order.due_at)

    def _order_then(self, info: Info, answer: Callable[[WorkOrderRow], T]) -> T:
        """`answer` of the task's work order, now or once loaded."""
        return now_or_later(
            info.context.loaders.work_order.load(self._work_order_id),
            lambda order: required(order, answer),
        )

    @classmethod
    async def resolve_nodes(  # type: ignore[override]
        cls, *, info: Info, node_ids: Iterable[str], required: bool = False
    ) -> list["DepartmentTask | None"]:
        return await nodes_of(cls.of, info.context.loaders.task, node_ids)


def _lane(place: QueuePlace | None) -> QueueLane | None:
    return place.lane if place is not None else None


def _rank(place: QueuePlace | None, task_id: int) -> str | None:
    return place.rank(task_id) if place is not None else None


def _seen_history(info: Info, rows: list[WorkOrderTransitionRow]) -> list["WorkOrderTransition"]:
    """A work order's history as the viewer may see it: quote changes only for those who
    see quotes."""
    sees_quotes = passes(SEES_QUOTES, info)
    return [
        WorkOrderTransition.of(r)
        for r in rows
        if sees_quotes or r.action != WorkOrderAction.QUOTE_CHANGED
    ]


@strawberry.type(description="Why and since when a work order is on hold, and who held it.")
class Hold:
    reason: str
    since: datetime
    _by: strawberry.Private[int]

    @classmethod
    def of(cls, row: WorkOrderRow) -> "Hold | None":
        if row.held_at is None or row.held_by is None or row.hold_reason is None:
            return None
        return cls(reason=row.hold_reason, since=row.held_at, _by=row.held_by)

    @strawberry.field
    def by(self, info: Info) -> User:
        return now_or_later(
            info.context.loaders.user.load(self._by), lambda r: required(r, User.of)
        )


@strawberry.type(description="How far a work order's tasks have come.")
class Progress:
    done: int = strawberry.field(description="Tasks completed.")
    total: int = strawberry.field(description="All the order's tasks, delivery included.")

    @classmethod
    def of(cls, counted: tuple[int, int]) -> "Progress":
        done, total = counted
        return cls(done=done, total=total)


@strawberry.type
class WorkOrder(relay.Node):
    id: relay.NodeID[int]
    order_number: str
    needs_installation: bool
    needs_transport: bool
    needs_repair: bool
    status: WorkOrderStatus
    version: int = strawberry.field(description="Increments on every change of the work order.")
    created_at: datetime
    updated_at: datetime
    _customer_id: strawberry.Private[int]
    _created_by: strawberry.Private[int | None]
    _quote: strawberry.Private[Money | None]
    _imported_closed: strawberry.Private[bool]
    _details: strawberry.Private[dict[str, Any]]
    due_at: datetime | None = strawberry.field(
        description="When the customer expects it; null for no date."
    )
    priority: WorkOrderPriority = strawberry.field(
        description="RUSH orders come first in every queue."
    )
    hold: Hold | None = strawberry.field(
        description="Set while the order is on hold: its pending tasks are out of every "
        "queue (started ones may finish). The order stays ACTIVE."
    )

    @classmethod
    def of(cls, row: WorkOrderRow) -> "WorkOrder":
        return cls(
            id=row.id,
            order_number=row.order_number,
            _details=row.details,
            needs_installation=row.needs_installation,
            needs_transport=row.needs_transport,
            needs_repair=row.needs_repair,
            status=row.status,
            version=row.version,
            created_at=row.created_at,
            updated_at=row.updated_at,
            _customer_id=row.customer_id,
            _created_by=row.created_by,
            _quote=Money.of(row.quote_minor, row.quote_currency),
            _imported_closed=row.imported_closed,
            due_at=row.due_at,
            priority=row.priority,
            hold=Hold.of(row),
        )

    @strawberry.field(description="Not completed, not cancelled, and its due date passed.")
    def is_late(self) -> bool:
        return is_late(WorkOrderStatus(self.status), self.due_at, datetime.now(UTC))

    @strawberry.field(
        description="What the caller may ask of this work order now (its tasks' moves are "
        "DepartmentTask.allowedActions): the buttons a screen shows."
    )
    def allowed_actions(self, info: Info) -> list[WorkOrderCommand]:
        return order_commands(
            WorkOrderStatus(self.status),
            self._imported_closed,
            self.hold is not None,
            passes(SALES, info),
        )

    @strawberry.field(
        description="A JSON object (not for wall displays: see jobLine).",
        extensions=allowed(STAFF),
    )
    def details(self) -> JSON:
        return cast(JSON, self._details)

    @strawberry.field(
        description="One short line saying what the job is, from its details (a title, the "
        "product and quantity, the first line item, or the notes)."
    )
    def job_line(self) -> str | None:
        return job_line(self._details)

    @strawberry.field(
        description="The price offered; Sales, Accounts and admins only. Never posted.",
        extensions=allowed(SEES_QUOTES),
    )
    def quote(self) -> Money | None:
        return self._quote

    @strawberry.field(
        description="Ledger entries posted against this order, newest first. Accounts only.",
        extensions=allowed(READS_LEDGER),
    )
    async def ledger(
        self, info: Info
    ) -> list[Annotated["LedgerEntry", strawberry.lazy("graph.types.ledger")]]:
        from graph.types.ledger import LedgerEntry

        return [
            LedgerEntry.of(r) for r in await info.context.loaders.work_order_ledger.load(self.id)
        ]

    @strawberry.field(
        description="Charged against this order (CHARGE less CREDIT), per currency. Accounts only.",
        extensions=allowed(READS_LEDGER),
    )
    async def charged(self, info: Info) -> list[Money]:
        return await self._total(info, ledger.CHARGED_KINDS)

    @strawberry.field(
        description="Paid against this order (PAYMENT less REFUND), per currency. Accounts only.",
        extensions=allowed(READS_LEDGER),
    )
    async def paid(self, info: Info) -> list[Money]:
        return await self._total(info, ledger.PAID_KINDS)

    async def _total(self, info: Info, kinds: tuple[LedgerEntryKind, ...]) -> list[Money]:
        rows = await info.context.loaders.work_order_ledger.load(self.id)
        entries = [(LedgerEntryKind(r.kind), DomainMoney(r.amount_minor, r.currency)) for r in rows]
        return [Money.of_domain(m) for m in ledger.total(entries, kinds)]

    @strawberry.field(metadata=read_ahead("customers"))
    def customer(self, info: Info) -> Customer:
        return now_or_later(
            info.context.loaders.customer.load(self._customer_id),
            lambda r: required(r, Customer.of),
        )

    @strawberry.field(extensions=allowed(STAFF), metadata=read_ahead("creators"))
    def created_by(self, info: Info) -> User | None:
        return user_or_none(info, self._created_by)

    @strawberry.field(
        description="One task per production department, then the delivery task.",
        extensions=allowed(STAFF),
        metadata=read_ahead("tasks"),
    )
    def tasks(self, info: Info) -> list[DepartmentTask]:
        return now_or_later(
            info.context.loaders.tasks_of_work_order.load(self.id),
            lambda rows: [DepartmentTask.of(r) for r in rows],
        )

    @strawberry.field(extensions=allowed(STAFF), metadata=read_ahead("tasks"))
    def progress(self, info: Info) -> Progress:
        return now_or_later(
            info.context.loaders.tasks_of_work_order.load(self.id),
            lambda rows: Progress.of(progress(TaskStatus(r.status) for r in rows)),
        )

    @strawberry.field(extensions=allowed(STAFF), metadata=read_ahead("tasks"))
    def delivery_task(self, info: Info) -> DepartmentTask:
        return now_or_later(
            info.context.loaders.tasks_of_work_order.load(self.id),
            lambda rows: next(
                DepartmentTask.of(r) for r in rows if r.department_kind == DepartmentKind.DELIVERY
            ),
        )

    @strawberry.field(
        description="Status changes, delivery gate openings/closings and, for Sales, "
        "Accounts and admins, quote changes (QUOTE_CHANGED: fromState and toState are "
        "the old and new quote, e.g. '120.00 EUR', or NONE).",
        extensions=allowed(STAFF),
        metadata=read_ahead("history"),
    )
    def history(self, info: Info) -> list[WorkOrderTransition]:
        return now_or_later(
            info.context.loaders.work_order_history.load(self.id),
            lambda rows: _seen_history(info, rows),
        )

    @classmethod
    async def resolve_nodes(  # type: ignore[override]
        cls, *, info: Info, node_ids: Iterable[str], required: bool = False
    ) -> list["WorkOrder | None"]:
        return await nodes_of(cls.of, info.context.loaders.work_order, node_ids)
