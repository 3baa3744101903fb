"""A department's queue as a connection: the root `queue` and `Department.queue` read it
alike."""

import strawberry
from strawberry import relay

from db import reads
from db.events import encode_snapshot
from graph.context import Info
from graph.types.pagination import (
    Window,
    build_edges,
    decode_queue_cursor,
    encode_queue_cursor,
    search_pattern,
)
from graph.types.tasks import DepartmentTask

QUEUE_ORDER = (
    "The department's available PENDING tasks of orders not on hold (RUSH first, then the "
    "earliest due date, none last, then the oldest available), then its STARTED tasks "
    "(oldest start first); only tasks of ACTIVE work orders. With `search`, only those "
    "whose order's number, customer's name or any detail (the job line comes from them) "
    "holds it, in any case."
)


@strawberry.type(description="A page of a department's queue (a Relay connection).")
class QueueConnection(relay.Connection[DepartmentTask]):
    event_cursor: str = strawberry.field(
        description="Event-stream position of this snapshot: subscribe with `after:` set to it "
        "to receive every later change, with no gap and no duplicate."
    )
    total_count: int = strawberry.field(
        description="How many tasks the whole queue holds (with `search`, how many match), "
        "read in the same snapshot as the page."
    )


async def read_queue(
    info: Info, department_id: int, page: Window, search: str | None
) -> QueueConnection:
    found = await reads.queue_page(
        info.context.services.engine,
        department_id=department_id,
        limit=page.limit + 1,
        after=decode_queue_cursor(page),
        backward=page.backward,
        search=search_pattern(search),
    )
    edges, page_info = build_edges(
        found.queued,
        page,
        lambda q: encode_queue_cursor(q.key),
        lambda q: DepartmentTask.of(q.task),
    )
    return QueueConnection(
        edges=edges,
        page_info=page_info,
        event_cursor=encode_snapshot(found.snapshot),
        total_count=found.total,
    )
