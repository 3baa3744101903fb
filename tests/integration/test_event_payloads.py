"""Writers and readers of the event log agree, and the database's CHECK constraints say
exactly what the domain's enums say.

- Every CHECK that lists a vocabulary (statuses, kinds, actions, event types) lists
  precisely the enum's values: adding a value on one side only fails here.
- `task_event_payload` (the SQL function every task event is written with) and
  `TaskSnapshot.decode` (the one reader) describe the same task.
- A real life of a work order (create, start, finish, gate, reopen, cancel) writes only
  events whose type and payload the reader decodes, in the version it takes as current.
"""

import re

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from db import events
from db.cancellation import cancel_work_order
from db.engine import unit_of_work
from db.event_versions import CURRENT
from db.events import TaskSnapshot
from db.tasks import Actor, transition_task
from domain.enums import (
    DepartmentKind,
    EventType,
    LedgerEntryKind,
    TaskAction,
    TaskStatus,
    TokenKind,
    WorkOrderAction,
    WorkOrderStatus,
)
from tests.support.database import task_ids
from tests.support.shop import Shop

VOCABULARIES = [
    ("departments", "ck_departments_kind", DepartmentKind),
    ("work_orders", "ck_work_orders_status", WorkOrderStatus),
    ("department_tasks", "ck_department_tasks_status", TaskStatus),
    ("task_transitions", "ck_task_transitions_action", TaskAction),
    ("task_transitions", "ck_task_transitions_from_status", TaskStatus),
    ("task_transitions", "ck_task_transitions_to_status", TaskStatus),
    ("work_order_transitions", "ck_work_order_transitions_action", WorkOrderAction),
    ("tokens", "ck_tokens_kind", TokenKind),
    ("customer_ledger_entries", "ck_customer_ledger_entries_kind", LedgerEntryKind),
    ("events", "ck_events_type", EventType),
]


@pytest.mark.parametrize(
    ("table", "constraint", "vocabulary"), VOCABULARIES, ids=[v[1] for v in VOCABULARIES]
)
async def test_check_constraints_list_exactly_the_enum(
    engine: AsyncEngine, table: str, constraint: str, vocabulary: type
) -> None:
    async with engine.connect() as conn:
        definition = await conn.scalar(
            text(
                "SELECT pg_get_constraintdef(oid) FROM pg_constraint "
                "WHERE conname = :name AND conrelid = CAST(:table AS regclass)"
            ),
            {"name": constraint, "table": table},
        )
    assert definition is not None, f"{constraint} is missing"
    listed = set(re.findall(r"'([A-Z_]+)'", definition))
    assert listed == {v.value for v in vocabulary}  # type: ignore[attr-defined]


async def test_the_payload_function_and_its_decoder_describe_the_same_task(shop: Shop) -> None:
    order = await shop.order(["print"])
    task = (await task_ids(shop.engine, order))["print"]
    async with unit_of_work(shop.engine) as conn:
        await transition_task(conn, task, TaskAction.START, Actor(shop.users["pat"], False))
    async with shop.engine.connect() as conn:
        row = (
            await conn.execute(
                text(
                    "SELECT t.*, task_event_payload(t) AS payload FROM department_tasks t "
                    "WHERE t.id = :id"
                ),
                {"id": task},
            )
        ).one()
    decoded = TaskSnapshot.decode(row.payload)
    assert decoded == TaskSnapshot(
        id=row.id,
        work_order_id=row.work_order_id,
        department_id=row.department_id,
        status=TaskStatus(row.status),
        picked_up_by=row.picked_up_by,
        available_at=row.available_at,
        started_at=row.started_at,
        completed_at=row.completed_at,
        version=row.version,
    )
    assert decoded.picked_up_by == shop.users["pat"]


TASK_EVENTS = {
    EventType.TASK_CREATED,
    EventType.TASK_CHANGED,
    EventType.TASK_WITHDRAWN,
    EventType.DELIVERY_GATE_OPENED,
    EventType.DELIVERY_GATE_CLOSED,
}


async def test_every_event_a_work_order_writes_is_read_back(shop: Shop) -> None:
    pat = Actor(shop.users["pat"], False)
    ada = Actor(shop.users["ada"], True)
    order = await shop.order(["print"])
    cancelled = await shop.order(["print", "finishing"])
    tasks = await task_ids(shop.engine, order)
    async with unit_of_work(shop.engine) as conn:
        await transition_task(conn, tasks["print"], TaskAction.START, pat)
        await transition_task(conn, tasks["print"], TaskAction.FINISH, pat)  # gate opens
        await transition_task(conn, tasks["print"], TaskAction.REOPEN, ada, "redo")  # closes
        await cancel_work_order(conn, cancelled, shop.users["sam"], "withdrawn")
    # Every stored row, whatever other databases' transactions hold back from readers.
    async with shop.engine.connect() as conn:
        rows = (
            await conn.execute(
                text(
                    "SELECT CAST(xid AS text) AS xid, id, type, schema_version, work_order_id, "
                    "department_id, payload, occurred_at FROM events ORDER BY events.xid, events.id"
                )
            )
        ).all()
        stream = [events.from_row(r) for r in rows]
    # Written in the version the readers take as current: nothing to upcast.
    assert [r.schema_version for r in rows] == [CURRENT[EventType(r.type)] for r in rows]
    seen = {e.type for e in stream}
    assert seen >= TASK_EVENTS
    for event in stream:
        if event.type in TASK_EVENTS:
            assert event.task is not None, event
            assert event.task.work_order_id == event.work_order_id
            assert event.task.department_id == event.department_id
        if event.type == EventType.DELIVERY_GATE_OPENED:
            assert event.task is not None and event.task.available_at is not None
        if event.type == EventType.DELIVERY_GATE_CLOSED:
            assert event.task is not None and event.task.available_at is None
