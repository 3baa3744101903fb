"""What a work order's printed job ticket carries besides the order's fields: its link,
QR code and due line, and a box to tick for each department."""

import strawberry

from domain.enums import TaskStatus
from domain.routing import on_order
from graph.context import Info
from graph.types.departments import Department
from graph.types.loading import required


@strawberry.type(description="What a printed job ticket carries besides the order's fields.")
class JobTicket:
    url: str = strawberry.field(description="The order's page in the app, absolute.")
    qr_svg: str = strawberry.field(description="That address as a QR code: an SVG element.")
    due: str | None = strawberry.field(
        description="The due date as the ticket prints it, in the shop's time zone, named (\"Due "
        '2027-03-04 14:30 CET"), and how a closed order ended ("· done on time", "· done 16 h '
        'late", "· cancelled"); null without a due date. The PDF ticket prints the same line.'
    )
    _work_order_id: strawberry.Private[int]

    @strawberry.field(
        description="A box to tick for each: the departments of the order's tasks in route "
        "order, as `tasks` has them (removed ones left out)."
    )
    async def departments(self, info: Info) -> list[Department]:
        tasks = await info.context.loaders.tasks_of_work_order.load(self._work_order_id)
        kept = [t.department_id for t in tasks if on_order(TaskStatus(t.status))]
        found = await info.context.loaders.department.load_many(kept)
        return [required(row, Department.of) for row in found]
