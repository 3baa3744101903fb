"""One work order's life in a written history (bench/history.py), move by move up to the
history's end: the rows Pressroom's writers would have written for it.

Each task is started by one of the workers; a start is finished (after an hour, on
average), or, half the time, left started until its TASK_STALE timer fires and an admin
releases it, to be started again. The moves are those of the transition table
(domain.transitions), and the gates and the order's status follow them as domain.workflow
settles them: the delivery gate opens when the last production task is finished, and the
order completes with its delivery task. What each move writes is what its statement in
src/db/queries.sql writes: the task row (the flow projection's columns included), its
history row and its event, the gate's and the order's history and events in the same
transaction, the TASK_STALE timer of a start, and the due-date timers of an order, each
fired at its due time with its events when its subject is still as it was armed for.
Nothing is written past the end: the orders of its last day or so are open, the floor's
work in hand.
"""

import heapq
import itertools
import json
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from bench.shop import Shop
from db.orders import GATE_CLOSED_REASON, GATE_OPENED_REASON
from db.timers import DUE_SOON, STALE_AFTER
from domain.enums import (
    DepartmentKind,
    EventType,
    TaskAction,
    TaskStatus,
    TimerPurpose,
    WorkOrderAction,
    WorkOrderPriority,
    WorkOrderStatus,
)
from domain.routing import TaskFacts
from domain.transitions import ORDER_TRANSITIONS, TRANSITIONS
from domain.workflow import opens_at_creation, settle

# Mean times between moves (exponentially distributed).
WAIT = timedelta(minutes=90)  # from a production task's availability (or release) to its start
DELIVERY_WAIT = timedelta(hours=3)
WORK = timedelta(minutes=60)
RELEASE_AFTER = timedelta(minutes=30)  # from the TASK_STALE timer to the admin's release
RELEASE_REASON = "Left started over the shift's end."
NO_ROUTING: dict[int, list[int]] = {}


@dataclass
class Tx:
    """One transaction's rows: events as (type, work order, department, payload)."""

    at: datetime
    events: list[tuple[str, int, int | None, dict[str, Any]]] = field(default_factory=list)
    task_history: list[tuple[Any, ...]] = field(default_factory=list)
    order_history: list[tuple[Any, ...]] = field(default_factory=list)
    timers: list[tuple[Any, ...]] = field(default_factory=list)


@dataclass
class Task:
    id: int
    work_order_id: int
    department_id: int
    kind: DepartmentKind
    created_at: datetime
    status: TaskStatus = TaskStatus.PENDING
    picked_up_by: int | None = None
    available_at: datetime | None = None
    started_at: datetime | None = None
    completed_at: datetime | None = None
    version: int = 1
    last_started_at: datetime | None = None
    waited_seconds: float | None = None
    last_completed_at: datetime | None = None
    worked_seconds: float | None = None
    updated_at: datetime | None = None

    def facts(self) -> TaskFacts:
        production = self.kind is DepartmentKind.PRODUCTION
        return TaskFacts(
            self.department_id, self.status, self.kind, production, self.available_at is not None
        )

    def in_queue(self) -> bool:
        return self.status is TaskStatus.STARTED or (
            self.status is TaskStatus.PENDING and self.available_at is not None
        )

    def payload(self) -> dict[str, Any]:
        """task_event_payload (migration 0002); orjson writes the moments as PostgreSQL
        writes them in UTC."""
        return {
            "taskId": self.id,
            "workOrderId": self.work_order_id,
            "departmentId": self.department_id,
            "status": self.status.value,
            "pickedUpBy": self.picked_up_by,
            "availableAt": self.available_at,
            "startedAt": self.started_at,
            "completedAt": self.completed_at,
            "version": self.version,
        }

    def row(self) -> tuple[Any, ...]:
        return (
            self.id, self.work_order_id, self.department_id, self.status.value,
            self.picked_up_by, self.available_at, self.started_at, self.completed_at,
            self.version, self.created_at, self.updated_at or self.created_at,
            self.last_started_at, self.waited_seconds, self.last_completed_at,
            self.worked_seconds,
        )  # fmt: skip


@dataclass
class Order:
    id: int
    number: str
    created_at: datetime
    due_at: datetime | None
    priority: WorkOrderPriority
    product: str
    created_by: int
    tasks: list[Task]
    status: WorkOrderStatus = WorkOrderStatus.ACTIVE
    version: int = 1
    updated_at: datetime | None = None
    last_completed_at: datetime | None = None

    def row(self, customer_id: int) -> tuple[Any, ...]:
        return (
            self.id, self.number, customer_id, json.dumps({"product": self.product}),
            self.status.value, self.version, self.created_by, self.created_at,
            self.updated_at or self.created_at, self.due_at, self.priority.value,
            self.last_completed_at,
        )  # fmt: skip


class OrderLife:
    """One order's life up to `end`, move by move in time order: the transactions it
    wrote."""

    def __init__(
        self, order: Order, shop: Shop, release: float, end: datetime, rng: random.Random
    ) -> None:
        self.order = order
        self.shop = shop
        self.release = release  # the chance that a start ends in a release
        self.end = end
        self.rng = rng
        self.agenda: list[tuple[datetime, int, str, Task | TimerPurpose, Any]] = []
        self.sequence = itertools.count()
        self.txs: list[Tx] = []

    def later(self, at: datetime, what: str, subject: Task | TimerPurpose, arg: Any = None) -> None:
        heapq.heappush(self.agenda, (at, next(self.sequence), what, subject, arg))

    def after(self, mean: timedelta) -> timedelta:
        return mean * self.rng.expovariate(1.0)

    def run(self) -> list[Tx]:
        self.create()
        while self.agenda and self.agenda[0][0] <= self.end:
            at, _, what, subject, arg = heapq.heappop(self.agenda)
            if isinstance(subject, TimerPurpose):
                self.fire_order_timer(at, subject)
            elif what == "start":
                self.start(at, subject)
            elif what == "stale":
                self.fire_stale(at, subject, arg)
            else:
                self.move(at, subject, TaskAction(what), arg)
        return self.txs

    def timer(
        self, tx: Tx, purpose: TimerPurpose, task: Task | None, armed: datetime, due: datetime
    ) -> None:
        fired = due if due <= self.end else None
        tx.timers.append(
            (purpose.value, self.order.id, task.id if task else None, armed, due, fired)
        )

    def create(self) -> None:
        order, at = self.order, self.order.created_at
        tx = Tx(at)
        self.txs.append(tx)
        tx.events.append((
            EventType.WORK_ORDER_CREATED.value, order.id, None,
            {"workOrderId": order.id, "orderNumber": order.number, "status": order.status.value,
             "version": order.version},
        ))  # fmt: skip
        opens = opens_at_creation([t.facts() for t in order.tasks], NO_ROUTING)
        for task in order.tasks:
            if task.department_id in opens:
                task.available_at = at
                self.later(at + self.after(WAIT), "start", task)
            tx.events.append(
                (EventType.TASK_CREATED.value, order.id, task.department_id, task.payload())
            )
        self.settle(tx)
        if order.due_at is not None:
            for purpose, due in (
                (TimerPurpose.WORK_ORDER_DUE_SOON, order.due_at - DUE_SOON),
                (TimerPurpose.WORK_ORDER_LATE, order.due_at),
            ):
                self.timer(tx, purpose, None, order.due_at, due)
                self.later(due, "fire", purpose)

    def start(self, at: datetime, task: Task) -> None:
        who = self.rng.choice(self.shop.worker_ids)
        tx = self.move(at, task, TaskAction.START, who)
        self.timer(tx, TimerPurpose.TASK_STALE, task, at, at + STALE_AFTER)
        self.later(at + STALE_AFTER, "stale", task, at)
        if self.rng.random() < self.release:
            released = at + STALE_AFTER + self.after(RELEASE_AFTER)
            self.later(released, TaskAction.RELEASE.value, task, self.shop.admin_id)
        else:
            self.later(at + self.after(WORK), TaskAction.FINISH.value, task, who)

    def move(self, at: datetime, task: Task, action: TaskAction, actor: int) -> Tx:
        """transition_task's statement, then the order settled, in one transaction."""
        rule = TRANSITIONS[action]
        assert task.status in rule.sources, (task, action)
        before, target = task.status, rule.target
        task.status = target
        if target is TaskStatus.STARTED:
            task.picked_up_by = actor
        elif target is TaskStatus.PENDING:
            task.picked_up_by = None
        if target is TaskStatus.PENDING:
            task.started_at = None
        elif target is TaskStatus.STARTED:
            task.started_at = at
        elif target is TaskStatus.COMPLETED:
            task.started_at = task.started_at or at
        task.completed_at = at if target is TaskStatus.COMPLETED else None
        if action is TaskAction.START:
            assert task.available_at is not None
            task.last_started_at = at
            task.waited_seconds = (at - task.available_at).total_seconds()
        if target is TaskStatus.COMPLETED:
            task.last_completed_at = at
            since = task.last_started_at if before is TaskStatus.STARTED else None
            task.worked_seconds = None if since is None else (at - since).total_seconds()
        if target is TaskStatus.REMOVED:
            task.available_at = None
        task.version += 1
        task.updated_at = at
        tx = Tx(at)
        self.txs.append(tx)
        reason = RELEASE_REASON if rule.reason_required else None
        tx.task_history.append(
            (task.id, before.value, target.value, action.value, actor, reason, at)
        )
        payload = task.payload() | {
            "action": action.value, "fromStatus": before.value, "toStatus": target.value,
            "actorId": actor,
        }  # fmt: skip
        tx.events.append(
            (EventType.TASK_CHANGED.value, task.work_order_id, task.department_id, payload)
        )
        if rule.settles_order:
            self.settle(tx)
        if action is TaskAction.RELEASE:
            self.later(at + self.after(WAIT), "start", task)
        return tx

    def settle(self, tx: Tx) -> None:
        """settle_work_order: the gates (set_gates), then the status (transition_work_order),
        moves of the system, credited to no one."""
        order = self.order
        outcome = settle(order.status, [t.facts() for t in order.tasks], NO_ROUTING)
        for open_, departments, reason in (
            (True, outcome.opens, GATE_OPENED_REASON),
            (False, outcome.closes, GATE_CLOSED_REASON),
        ):
            for task in order.tasks:
                if task.department_id not in departments:
                    continue
                task.available_at = tx.at if open_ else None
                task.version += 1
                task.updated_at = tx.at
                action = WorkOrderAction.OPEN_GATE if open_ else WorkOrderAction.CLOSE_GATE
                states = ("CLOSED", "OPEN") if open_ else ("OPEN", "CLOSED")
                tx.order_history.append(
                    (order.id, action.value, *states, None, reason, tx.at, task.department_id)
                )
                delivery = task.kind is DepartmentKind.DELIVERY
                kind = {
                    (True, True): EventType.DELIVERY_GATE_OPENED,
                    (True, False): EventType.DELIVERY_GATE_CLOSED,
                    (False, True): EventType.TASK_GATE_OPENED,
                    (False, False): EventType.TASK_GATE_CLOSED,
                }[delivery, open_]
                tx.events.append((kind.value, order.id, task.department_id, task.payload()))
                if open_:
                    self.later(
                        tx.at + self.after(DELIVERY_WAIT if delivery else WAIT), "start", task
                    )
        if outcome.new_status is not None:
            done = outcome.new_status is WorkOrderStatus.COMPLETED
            rule = ORDER_TRANSITIONS[
                WorkOrderAction.COMPLETE if done else WorkOrderAction.REACTIVATE
            ]
            order.status = rule.target
            order.version += 1
            order.updated_at = tx.at
            if done:
                order.last_completed_at = tx.at
            tx.order_history.append(
                (order.id, rule.action.value, rule.source.value, rule.target.value, None,
                 None, tx.at, None)
            )  # fmt: skip
            tx.events.append((
                EventType.WORK_ORDER_CHANGED.value, order.id, None,
                {"workOrderId": order.id, "action": rule.action.value,
                 "fromStatus": rule.source.value, "toStatus": rule.target.value,
                 "version": order.version},
            ))  # fmt: skip

    def fire_stale(self, at: datetime, task: Task, armed: datetime) -> None:
        """fire_due_timers for a TASK_STALE timer: an event if the task is still in that start."""
        if task.status is TaskStatus.STARTED and task.started_at == armed:
            tx = Tx(at)
            self.txs.append(tx)
            tx.events.append(
                (EventType.TASK_STALE.value, task.work_order_id, task.department_id, task.payload())
            )

    def fire_order_timer(self, at: datetime, purpose: TimerPurpose) -> None:
        """fire_due_timers for an order's timer: events if the order is still ACTIVE, for
        it and each of its tasks in a queue (the delivery task's tagged `gate`)."""
        order = self.order
        if order.status is not WorkOrderStatus.ACTIVE:
            return
        tx = Tx(at)
        self.txs.append(tx)
        tx.events.append((
            purpose.value, order.id, None,
            {"workOrderId": order.id, "dueAt": order.due_at, "status": order.status.value,
             "version": order.version},
        ))  # fmt: skip
        for task in order.tasks:
            if task.in_queue():
                gate = {"gate": True} if task.kind is DepartmentKind.DELIVERY else {}
                tx.events.append(
                    (purpose.value, order.id, task.department_id, task.payload() | gate)
                )
