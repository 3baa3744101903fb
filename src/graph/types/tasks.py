"""A department's task on a work order, and its moves, as the API shows them."""

from collections.abc import Awaitable, Callable, Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import strawberry
from strawberry import relay

from db.reads import proof_makers_of, routing_of
from db.rows import DepartmentRow, TaskRow, TaskTransitionRow, WorkOrderRow
from domain.corrections import FLAGS, needs_in_words
from domain.enums import (
    DepartmentKind,
    ProofStatus,
    QueueLane,
    TaskAction,
    TaskStatus,
    WorkOrderPriority,
    WorkOrderStatus,
)
from domain.flow import waiting_since
from domain.routing import TaskFacts, awaits_proof, holding
from domain.transitions import (
    QueuePlace,
    TaskState,
    allowed_actions,
    in_queue,
    queue_place,
)
from domain.workflow import chosen_per_order
from graph.context import Info
from graph.loaders import all_now_or_later, now_or_later
from graph.permissions import STAFF, allowed, passes, viewer_of
from graph.prefetch import read_ahead
from graph.types.address import Address
from graph.types.departments import Department
from graph.types.loading import nodes_of, required
from graph.types.people import User, user_or_none
from graph.types.proofs import Proof

T = TypeVar("T")


def _production(department: Any) -> bool:
    """Whether a task's department (a loaded row) is chosen per order."""
    return department is not None and chosen_per_order(DepartmentKind(department.kind))


if TYPE_CHECKING:
    from graph.types.work_orders import WorkOrder


@strawberry.type(description="What the delivery department needs to know of a delivery task.")
class DeliveryInfo:
    address: Address | None = strawberry.field(
        description="Where to deliver: the customer's address; null when the customer has none."
    )
    needs: list[str] = strawberry.field(
        description="Installation, Transport, Repair: what the order needs on delivery."
    )


@strawberry.type(description="One move of a task, as recorded when it happened.")
class TaskTransition:
    from_status: TaskStatus = strawberry.field(description="The task's status before the move.")
    to_status: TaskStatus = strawberry.field(description="Its status after.")
    action: TaskAction = strawberry.field(description="The move.")
    reason: str | None = strawberry.field(
        description="Why, when the move takes a reason; null otherwise."
    )
    occurred_at: datetime = strawberry.field(description="When it moved.")
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

    @strawberry.field(description="Who moved it.")
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
    description="One department's part of one work order. It sits in the department's queue while "
    "it may be started or is being worked on."
)
class DepartmentTask(relay.Node):
    id: relay.NodeID[int]
    status: TaskStatus = strawberry.field(description="Where the task stands.")
    available_at: datetime | None = strawberry.field(
        description="When the task entered its queue; null while its gate is closed "
        "(waitingFor says what for)."
    )
    started_at: datetime | None = strawberry.field(
        description="When it was last started; null if it never was."
    )
    completed_at: datetime | None = strawberry.field(
        description="When it was completed; null while it is not."
    )
    version: int = strawberry.field(
        description="Rises with every change; send it as `expectedVersion` to change only what "
        "you saw."
    )
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

    @strawberry.field(description="The department whose task it is.")
    def department(self, info: Info) -> Department:
        return now_or_later(
            info.context.loaders.department.load(self._department_id),
            lambda r: required(r, Department.of),
        )

    @strawberry.field(description="The work order it is part of.")
    def work_order(
        self, info: Info
    ) -> Annotated["WorkOrder", strawberry.lazy("graph.types.work_orders")]:
        from graph.types.work_orders import WorkOrder

        return now_or_later(
            info.context.loaders.work_order.load(self._work_order_id),
            lambda r: required(r, WorkOrder.of),
        )

    @strawberry.field(
        description=(
            "The worker who started the task; null while PENDING, and on a task an admin "
            "completed without anyone starting it."
        ),
        metadata=read_ahead("pickers"),
    )
    def picked_up_by(self, info: Info) -> User | None:
        return user_or_none(info, self._picked_up_by)

    @strawberry.field(
        extensions=allowed(STAFF),
        metadata=read_ahead("task_history"),
        description="Every move of the task, oldest first.",
    )
    def history(self, info: Info) -> list[TaskTransition]:
        return now_or_later(
            info.context.loaders.task_history.load(self.id),
            lambda rows: [TaskTransition.of(r) for r in rows],
        )

    @strawberry.field(
        description="PENDING with its gate open: since when it has waited (availableAt, or "
        "its last reopen when later; a release or a hold does not restart it), as "
        "DepartmentFlow.waitTime measures a wait up to its start. Null otherwise.",
        metadata=read_ahead("task_history"),
    )
    def waiting_since(self, info: Info) -> datetime | None:
        if self.status != TaskStatus.PENDING or self.available_at is None:
            return None
        available_at = self.available_at
        return now_or_later(
            info.context.loaders.task_history.load(self.id),
            lambda rows: waiting_since(
                available_at,
                max((r.occurred_at for r in rows if r.action == TaskAction.REOPEN), default=None),
            ),
        )

    @strawberry.field(
        description="The moves the caller may make on this task now, read off the transition "
        "table the server guards each move with: the buttons a screen shows."
    )
    def allowed_actions(self, info: Info) -> list[TaskAction]:
        if not passes(STAFF, info):
            return []
        viewer = viewer_of(info)
        actor = viewer.facts(member=self._department_id in viewer.member_department_ids)
        loaders = info.context.loaders
        pending: list[Awaitable[Any]] = [
            loaders.work_order.load(self._work_order_id),
            loaders.department.load(self._department_id),
        ]

        def answer(found: list[Any]) -> list[TaskAction]:
            order, department = found
            return required(
                order, lambda o: allowed_actions(self._state(o, _production(department)), actor)
            )

        return all_now_or_later(pending, answer)

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
        description="The departments whose tasks on this order this one still waits for, "
        "in route order (Department.follows; for the delivery task, those that gate "
        "delivery): empty "
        "once its gate is open (availableAt), and on an order no longer ACTIVE (its gate "
        "will not open)."
    )
    async def waiting_for(self, info: Info) -> list[Department]:
        if self.available_at is not None:
            return []
        order = await info.context.loaders.work_order.load(self._work_order_id)
        if order is None or order.status != WorkOrderStatus.ACTIVE:
            return []
        held_by = await waited_for(info, self._work_order_id, self._department_id)
        return [Department.of(row) for row in held_by]

    @strawberry.field(
        description="Whether it waits for the customer to approve the order's latest proof "
        "(the order requires one, its department needs one, and that version is not "
        "approved): false once its gate is open."
    )
    async def awaits_proof(self, info: Info) -> bool:
        if self.available_at is not None:
            return False
        loaders = info.context.loaders
        order = await loaders.work_order.load(self._work_order_id)
        department = await loaders.department.load(self._department_id)
        if order is None or department is None or not order.proof_required:
            return False
        versions = await loaders.proofs_of_work_order.load(self._work_order_id)
        latest = ProofStatus(versions[0].status) if versions else None
        return awaits_proof(order.proof_required, department.needs_approved_proof, latest)

    @strawberry.field(
        description="The proof version the customer sent back with changes, on a task of a "
        "department that makes the order's proof (it was reopened or added for them) until "
        "it is completed: null once a newer version is uploaded or the task is done.",
        extensions=allowed(STAFF),
    )
    async def proof_changes(self, info: Info) -> Proof | None:
        if self.status == TaskStatus.COMPLETED:
            return None
        loaders = info.context.loaders
        versions = await loaders.proofs_of_work_order.load(self._work_order_id)
        if not versions or versions[0].status != ProofStatus.CHANGES_REQUESTED:
            return None
        if self._department_id not in proof_makers_of(await loaders.all_departments()):
            return None
        return Proof.of(versions[0])

    @strawberry.field(
        description="For the delivery task: where to deliver (the customer's address) and "
        "what the order needs on delivery, in words; null for every other task."
    )
    async def delivery(self, info: Info) -> DeliveryInfo | None:
        loaders = info.context.loaders
        department = await loaders.department.load(self._department_id)
        if department is None or department.kind != DepartmentKind.DELIVERY:
            return None
        order = await loaders.work_order.load(self._work_order_id)
        if order is None:
            return None
        customer = await loaders.customer.load(order.customer_id)
        flags = {flag: getattr(order, flag) for flag in FLAGS}
        address = Address.of(customer) if customer is not None else None
        return DeliveryInfo(address=address, needs=needs_in_words(flags))

    def _available(self) -> bool:
        return self.available_at is not None and self.available_at <= datetime.now(UTC)

    def _state(
        self, order: WorkOrderRow, production: bool = True, holder: str | None = None
    ) -> TaskState:
        return TaskState(
            status=TaskStatus(self.status),
            picked_up_by=self._picked_up_by,
            picked_up_by_name=holder,
            available=self._available(),
            order_status=WorkOrderStatus(order.status),
            imported_closed=order.imported_closed,
            held=order.held_at is not None,
            production=production,
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


async def waited_for(info: Info, work_order_id: int, department_id: int) -> list[DepartmentRow]:
    """The departments whose tasks on the order the department's task still waits for
    (domain.routing.holding), whether or not its gate is open."""
    loaders = info.context.loaders
    rows = await loaders.tasks_of_work_order.load(work_order_id)
    departments = {d.id: d for d in await loaders.all_departments()}
    tasks = [
        TaskFacts(
            department_id=r.department_id,
            status=TaskStatus(r.status),
            kind=DepartmentKind(departments[r.department_id].kind),
            gates_delivery=departments[r.department_id].gates_delivery,
            gate_open=r.available_at is not None,
        )
        for r in rows
    ]
    [own] = [t for t in tasks if t.department_id == department_id]
    routing = routing_of(departments.values())
    return [departments[t.department_id] for t in holding(own, tasks, routing)]
