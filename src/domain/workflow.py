"""Rules that follow from task states: the delivery gate and the work order's status.

Decision (DESIGN.md leaves it open): reopening a gating task closes the gate
only while the delivery task is still PENDING. Once delivery has started or
completed, the gate stays open: the goods are already on their way, so the
admin reopening production decides separately whether delivery goes back too
(by reopening or releasing the delivery task).
"""

from collections.abc import Iterable
from dataclasses import dataclass

from domain.enums import DepartmentKind, TaskStatus, WorkOrderStatus


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


def gate_should_be_open(tasks: Iterable[TaskFacts]) -> bool:
    """Open when every gating production task is COMPLETED (vacuously true with none)."""
    return all(
        t.status is TaskStatus.COMPLETED
        for t in tasks
        if t.kind is DepartmentKind.PRODUCTION and t.gates_delivery
    )


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
