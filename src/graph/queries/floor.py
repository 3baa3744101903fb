"""What the floor reads: a department's queue, its tasks that wait for a proof, the
tasks left started too long, and a job ticket scanned."""

from typing import Annotated

import strawberry
from strawberry import relay

from api.errors import not_found
from db import awaiting, reads
from graph.context import Info
from graph.permissions import ADMINS, SEES_QUEUE, STAFF, allowed, viewer_of
from graph.types.pagination import Before, Last, QueueSearch, by_id, window
from graph.types.queues import QUEUE_ORDER, QueueConnection, read_queue
from graph.types.scan import ScanAnswer
from graph.types.scan import answer as scan_answer
from graph.types.tasks import DepartmentTask

# The wall display shows a few; the rest is a count.
AWAITING_LIMIT = 100


@strawberry.field(
    extensions=allowed(SEES_QUEUE),
    description=QUEUE_ORDER,
)
async def queue(
    info: Info,
    department: Annotated[str, strawberry.argument(description="The department's code.")],
    first: int | None = None,
    after: str | None = None,
    search: QueueSearch = None,
    last: Last = None,
    before: Before = None,
) -> QueueConnection:
    page = window(first, after, last, before)
    dept = (await info.context.loaders.department_codes()).get(department)
    if dept is None:
        raise not_found(f"No department has the code '{department}'.")
    return await read_queue(info, dept.id, page, search)


@strawberry.field(
    extensions=allowed(SEES_QUEUE),
    description="The department's tasks that wait for the customer to approve their "
    "order's latest proof (awaitsProof; some wait for other departments too): work its "
    "queue will get. Orders on hold are left out; the earliest due date first, at most "
    "100. Not every change to it is a queue event (a new order, an approval while other "
    "work still holds the task): read it again after the queue's gate events, and now "
    "and then.",
)
async def awaiting_proof(
    info: Info,
    department: Annotated[str, strawberry.argument(description="The department's code.")],
) -> list[DepartmentTask]:
    dept = (await info.context.loaders.department_codes()).get(department)
    if dept is None:
        raise not_found(f"No department has the code '{department}'.")
    async with info.context.read() as conn:
        rows = await awaiting.awaiting_proof(conn, dept.id, AWAITING_LIMIT)
    return [DepartmentTask.of(r) for r in rows]


@strawberry.field(
    extensions=allowed(ADMINS),
    description="STARTED tasks untouched for PRESSROOM_STALE_AFTER_HOURS (their "
    "TASK_STALE timer fired for their current start), oldest first: for an admin to "
    "release or ask after.",
)
async def stale_tasks(
    info: Info,
    first: int | None = None,
    after: str | None = None,
    last: Last = None,
    before: Before = None,
) -> relay.Connection[DepartmentTask]:
    page = window(first, after, last, before)
    edges, page_info = await by_id(info, page, reads.stale_tasks_page, DepartmentTask.of)
    return relay.Connection(edges=edges, page_info=page_info)


@strawberry.field(
    extensions=allowed(STAFF),
    description="A job ticket scanned (or an order number typed) at the queues: the "
    "caller's task on that order and the move to make now, or why there is none. `code` "
    "is the order number, or the order page's address its QR code holds.",
)
async def scan(
    info: Info,
    code: Annotated[
        str,
        strawberry.argument(
            description="What was scanned: an order number (any case) or the address its QR "
            "code holds."
        ),
    ],
) -> ScanAnswer:
    return await scan_answer(info, viewer_of(info), code)
