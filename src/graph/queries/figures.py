"""Figures over time (Sales, Accounts): how work flowed through the departments in a
window, and how long customers have owed what they owe."""

from datetime import UTC, datetime
from typing import Annotated

import strawberry

from api.errors import bad_request
from db import flow as db_flow
from db import reads
from domain import flow
from domain.enums import DepartmentKind
from domain.errors import DomainError
from domain.workflow import has_queue
from graph.context import Info
from graph.permissions import READS_LEDGER, SALES, allowed
from graph.types.flow import DepartmentFlow, FlowSummary
from graph.types.receivables import ReceivablesAgeing

FROM = strawberry.argument(name="from", description="The window's start (with a time zone).")
TO = strawberry.argument(name="to", description="The window's end, not included.")


def _window(start: datetime, end: datetime) -> flow.Window:
    try:
        return flow.window(start, end)
    except DomainError as error:
        raise bad_request(error.message) from None


@strawberry.field(
    extensions=allowed(SALES),
    description="How work flowed through one department in [from, to) (DepartmentFlow).",
)
async def department_flow(
    info: Info,
    department: Annotated[str, strawberry.argument(description="The department's code.")],
    start: Annotated[datetime, FROM],
    end: Annotated[datetime, TO],
) -> DepartmentFlow:
    window = _window(start, end)
    dept = (await info.context.loaders.department_codes()).get(department)
    if dept is None or not has_queue(DepartmentKind(dept.kind)):
        raise bad_request(f"{department!r} is not the code of a department with tasks.")
    zone = info.context.services.time_zone
    async with info.context.read() as conn:
        (figures,) = await db_flow.department_flow(conn, window, [dept.id], zone)
    return DepartmentFlow.of(figures)


@strawberry.field(
    extensions=allowed(SALES),
    description="Every department's flow in [from, to), on-time delivery and lead time.",
)
async def flow_summary(
    info: Info, start: Annotated[datetime, FROM], end: Annotated[datetime, TO]
) -> FlowSummary:
    window = _window(start, end)
    departments = (await info.context.loaders.department_codes()).values()
    ids = [d.id for d in departments if has_queue(DepartmentKind(d.kind))]
    zone = info.context.services.time_zone
    async with info.context.read() as conn:
        figures = await db_flow.department_flow(conn, window, ids, zone)
        orders = await db_flow.order_flow(conn, window)
    return FlowSummary.of(window, figures, orders)


@strawberry.field(
    extensions=allowed(READS_LEDGER),
    description="What customers owe now, per currency, and for how long (by each "
    "one's oldest unpaid charge: up to 30 days, 31-60, 61-90, over 90); largest "
    "balance first.",
)
async def receivables_ageing(info: Info) -> ReceivablesAgeing:
    async with info.context.read() as conn:
        rows = await reads.receivables_ageing(conn)
    return ReceivablesAgeing.of(rows, datetime.now(UTC))
