"""Work orders and customers: one by its id, or a page of them narrowed by filters."""

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry import relay

from api.errors import bad_request
from api.ids import decode_id
from db import reads
from domain.enums import WorkOrderOrder, WorkOrderPriority, WorkOrderStatus
from graph import prefetch
from graph.context import Info
from graph.permissions import (
    READS_LEDGER_TO_FILTER_REFUNDS,
    SEES_QUOTES,
    STAFF,
    allowed,
)
from graph.types.customers import Customer
from graph.types.pagination import (
    Before,
    Last,
    build_edges,
    by_id,
    decode_order_cursor,
    order_cursor_key,
    search_pattern,
    window,
)
from graph.types.work_orders import WorkOrder, WorkOrderConnection


@strawberry.field(
    extensions=allowed(STAFF), description="A work order by its id; null for an unknown id."
)
async def work_order(
    info: Info,
    id: Annotated[relay.GlobalID, strawberry.argument(description="The work order's id.")],
) -> WorkOrder | None:
    pk = decode_id(id, "WorkOrder")
    row = await info.context.loaders.work_order.load(pk) if pk else None
    return WorkOrder.of(row) if row else None


@strawberry.field(
    extensions=allowed(STAFF),
    description="Newest first, or by `orderBy: DUE_AT` the earliest due date first "
    "(orders without one last). Every filter given must hold.",
)
async def work_orders(
    info: Info,
    status: Annotated[
        WorkOrderStatus | None, strawberry.argument(description="Only orders in this status.")
    ] = None,
    customer_id: Annotated[
        relay.GlobalID | None, strawberry.argument(description="Only this customer's orders.")
    ] = None,
    search: Annotated[
        str | None,
        strawberry.argument(description="Part of the order number or customer name."),
    ] = None,
    late: Annotated[
        bool | None,
        strawberry.argument(description="Late orders only (`isLate`), or none of them."),
    ] = None,
    held: Annotated[
        bool | None,
        strawberry.argument(description="Orders on hold only, or none of them."),
    ] = None,
    priority: Annotated[
        WorkOrderPriority | None,
        strawberry.argument(description="Only orders of this priority."),
    ] = None,
    due_before: Annotated[
        datetime | None,
        strawberry.argument(
            description="Due before this moment (orders with no due date are left out)."
        ),
    ] = None,
    order_by: Annotated[
        WorkOrderOrder, strawberry.argument(description="How to sort the orders.")
    ] = WorkOrderOrder.CREATED_AT,
    first: int | None = None,
    after: str | None = None,
    last: Last = None,
    before: Before = None,
) -> WorkOrderConnection:
    page = window(first, after, last, before)
    by_due = order_by is WorkOrderOrder.DUE_AT
    key = decode_order_cursor(page, by_due)
    customer_pk = decode_id(customer_id, "Customer") if customer_id else None
    if customer_id is not None and customer_pk is None:
        raise bad_request("'customerId' is not the id of a Customer.")
    if due_before is not None and due_before.tzinfo is None:
        raise bad_request("'dueBefore' needs a time zone (an offset or Z).")
    where = reads.OrderFilter(
        status=status.value if status else None,
        customer_id=customer_pk,
        search=search_pattern(search),
        priority=priority.value if priority else None,
        held=held,
        late=late,
        due_before=due_before,
    )
    async with info.context.read() as conn:
        rows = await reads.work_orders_page(
            conn,
            limit=page.limit + 1,
            by_due=by_due,
            after=key,
            backward=page.backward,
            where=where,
        )
    edges, page_info = build_edges(rows, page, lambda r: order_cursor_key(r, by_due), WorkOrder.of)
    await prefetch.work_orders(info, [e.node.id for e in edges])
    return WorkOrderConnection(edges=edges, page_info=page_info, _where=where)


@strawberry.field(
    extensions=allowed(SEES_QUOTES, READS_LEDGER_TO_FILTER_REFUNDS),
    description="Customers, oldest first; `search` and `refundDue` narrow them.",
)
async def customers(
    info: Info,
    search: Annotated[
        str | None,
        strawberry.argument(description="Only customers whose name contains this text (any case)."),
    ] = None,
    first: int | None = None,
    after: str | None = None,
    refund_due: Annotated[
        bool | None,
        strawberry.argument(
            description="true: only customers owed money back on a cancelled order "
            "(WorkOrder.refundDue); false: only those who are not. Accounts only."
        ),
    ] = None,
    last: Last = None,
    before: Before = None,
) -> relay.Connection[Customer]:
    page = window(first, after, last, before)
    edges, page_info = await by_id(
        info,
        page,
        reads.customers_page,
        Customer.of,
        search=search_pattern(search),
        refund_due=refund_due,
    )
    return relay.Connection(edges=edges, page_info=page_info)


@strawberry.field(
    extensions=allowed(STAFF), description="A customer by its id; null for an unknown id."
)
async def customer(
    info: Info,
    id: Annotated[relay.GlobalID, strawberry.argument(description="The customer's id.")],
) -> Customer | None:
    pk = decode_id(id, "Customer")
    row = await info.context.loaders.customer.load(pk) if pk else None
    return Customer.of(row) if row else None
