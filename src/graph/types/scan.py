"""`scan`: what one scan of a job ticket does at the queues (domain/scan.py decides)."""

import re

import strawberry

from api.ids import decode_text
from api.viewer import Viewer
from db import reads
from db.rows import WorkOrderRow
from domain import scan, validation
from domain.enums import DepartmentKind, TaskAction, TaskStatus
from domain.routing import on_order
from domain.workflow import chosen_per_order
from graph.context import Info
from graph.types.tasks import DepartmentTask, waited_for
from graph.types.work_orders import WorkOrder

# A scanner that reads the ticket's QR code types the order page's address.
ORDER_PAGE = re.compile(r"/orders/([^/?#\s]+)")
MAX_CODE = 300


@strawberry.type(description="What one scan of a job ticket (or a typed order number) does.")
class ScanAnswer:
    message: str = strawberry.field(
        description='The order and the department ("WO-000123 · Print"), and when nothing '
        "can be done, why, in words."
    )
    action: TaskAction | None = strawberry.field(
        description="The move to make now on `task` (FINISH what the caller holds, else "
        "START), through finishTask or startTask; null when there is none."
    )
    _task_id: strawberry.Private[int | None]
    _work_order_id: strawberry.Private[int | None]

    @strawberry.field(description="The caller's task on the order that the scan is about.")
    async def task(self, info: Info) -> DepartmentTask | None:
        if self._task_id is None:
            return None
        row = await info.context.loaders.task.load(self._task_id)
        return DepartmentTask.of(row) if row is not None else None

    @strawberry.field(description="The work order scanned, or null when the code names none.")
    async def work_order(self, info: Info) -> WorkOrder | None:
        if self._work_order_id is None:
            return None
        row = await info.context.loaders.work_order.load(self._work_order_id)
        return WorkOrder.of(row) if row is not None else None


async def _order(info: Info, code: str) -> WorkOrderRow | None:
    page = ORDER_PAGE.search(code)
    if page is not None:
        pk = decode_text(page.group(1), "WorkOrder")
        return await info.context.loaders.work_order.load(pk) if pk is not None else None
    async with info.context.read() as conn:
        return await reads.work_order_by_number(conn, code)


async def answer(info: Info, viewer: Viewer, code: str) -> ScanAnswer:
    typed = code.strip()
    if len(typed) > MAX_CODE:
        return ScanAnswer(
            message="That is too long for an order number or an order's address.", action=None,
            _task_id=None, _work_order_id=None,
        )  # fmt: skip
    if not validation.holdable(typed):
        # A NUL or a lone surrogate is in no order number, and PostgreSQL text cannot hold it.
        return ScanAnswer(
            message="That is not an order number or an order's address.", action=None,
            _task_id=None, _work_order_id=None,
        )  # fmt: skip
    order = await _order(info, typed) if typed else None
    if order is None:
        missing = f"No work order has the number {typed!r}." if typed else "Scan a job ticket."
        return ScanAnswer(
            message=missing, action=None,
            _task_id=None, _work_order_id=None,
        )  # fmt: skip
    loaders = info.context.loaders
    departments = {d.id: d for d in await loaders.all_departments()}
    tasks = [
        t
        for t in await loaders.tasks_of_work_order.load(order.id)
        if on_order(TaskStatus(t.status))
    ]
    mine, others = [], []
    for row in tasks:
        department = departments[row.department_id]
        if row.department_id not in viewer.member_department_ids:
            others.append(department.name)
            continue
        holder = await loaders.user.load(row.picked_up_by) if row.picked_up_by else None
        state = DepartmentTask.of(row)._state(
            order,
            chosen_per_order(DepartmentKind(department.kind)),
            holder.name if holder else None,
        )
        waits = (
            await waited_for(info, order.id, row.department_id) if row.available_at is None else []
        )
        mine.append(scan.Candidate(row.id, department.name, state, [d.name for d in waits]))
    # The candidates are tasks of the viewer's own departments.
    said = scan.answer(order.order_number, mine, others, viewer.facts(member=True))
    return ScanAnswer(
        message=said.message, action=said.action, _task_id=said.task_id, _work_order_id=order.id
    )
