"""Events delivered by subscriptions: cursor, kind, time, and the affected object.

A task in an event is the task as that event left it (its state is in the event
row); related objects (work order, department, picker) are read once per batch
of events and shared by every subscriber.
"""

from datetime import datetime
from typing import Any, Self

import strawberry

from db.events import StoredEvent, TaskSnapshot
from db.fanout import Delivered
from domain.enums import EventType
from graph.context import Info
from graph.types.ledger import LedgerEntry
from graph.types.tasks import DepartmentTask
from graph.types.work_orders import WorkOrder


def task_of(task: TaskSnapshot) -> DepartmentTask:
    return DepartmentTask(
        id=task.id,
        status=task.status,
        available_at=task.available_at,
        started_at=task.started_at,
        completed_at=task.completed_at,
        version=task.version,
        _department_id=task.department_id,
        _work_order_id=task.work_order_id,
        _picked_up_by=task.picked_up_by,
    )


@strawberry.type
class StreamEvent:
    """What every subscription's event carries; `_about` gives each kind's own part.
    Never in the schema itself: its subclasses are, under their own names."""

    cursor: str = strawberry.field(description="Resubscribe with `after:` this to resume.")
    kind: EventType = strawberry.field(description="What happened.")
    occurred_at: datetime = strawberry.field(description="When it happened.")
    delivered: strawberry.Private[Delivered]

    @classmethod
    def of(cls, delivered: Delivered, cursor: str) -> Self:
        event = delivered.event
        return cls(
            delivered=delivered,
            cursor=cursor,
            kind=event.type,
            occurred_at=event.occurred_at,
            **cls._about(event),
        )

    @classmethod
    def _about(cls, event: StoredEvent) -> dict[str, Any]:
        raise NotImplementedError


@strawberry.type
class TaskEvent(StreamEvent):
    """What queueEvents and deliveryGateEvents deliver: one definition under the two
    names their clients know (QueueEvent, DeliveryGateEvent)."""

    task: DepartmentTask = strawberry.field(
        description="The task as the event left it (for deliveryGateEvents, the delivery task)."
    )

    @classmethod
    def _about(cls, event: StoredEvent) -> dict[str, Any]:
        assert event.task is not None
        return {"task": task_of(event.task)}


@strawberry.type(description="A change to a department's queue.")
class QueueEvent(TaskEvent):
    pass


@strawberry.type(description="A delivery gate opened or closed.")
class DeliveryGateEvent(TaskEvent):
    pass


@strawberry.type(description="A change to a work order or to one of its tasks.")
class WorkOrderEvent(StreamEvent):
    _event: strawberry.Private[StoredEvent]

    @strawberry.field(description="The work order, as read when the event was delivered.")
    async def work_order(self, info: Info) -> WorkOrder:
        row = await info.context.loaders.work_order.load(self._event.work_order_id or 0)
        assert row is not None
        return WorkOrder.of(row)

    @strawberry.field(description="The task the event is about, as the event left it.")
    def task(self) -> DepartmentTask | None:
        return task_of(self._event.task) if self._event.task is not None else None

    @classmethod
    def _about(cls, event: StoredEvent) -> dict[str, Any]:
        return {"_event": event}


@strawberry.type(description="An entry was posted to a customer's ledger.")
class LedgerEvent(StreamEvent):
    _entry_id: strawberry.Private[int]

    @strawberry.field(description="The entry, with the balance after it.")
    async def entry(self, info: Info) -> LedgerEntry:
        row = await info.context.loaders.ledger_entry.load(self._entry_id)
        assert row is not None
        return LedgerEntry.of(row)

    @classmethod
    def _about(cls, event: StoredEvent) -> dict[str, Any]:
        return {"_entry_id": event.entry_id}
