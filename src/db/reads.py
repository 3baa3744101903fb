"""Batched and paginated reads for the API's dataloaders and connections.

Each function is one statement whatever the number of ids, so a page's cost
does not grow with its size.
"""

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, NamedTuple, TypeVar

import orjson
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from db.engine import one_snapshot
from db.events import Snapshot, StoredEvent, snapshot_now
from db.queries import Q, fetch_native
from db.rows import (
    AgeingRow,
    BalanceRow,
    CustomerRow,
    DepartmentRow,
    LedgerEntryRow,
    MembershipRow,
    RefundDueRow,
    TaskRow,
    TaskTransitionRow,
    TokenRow,
    UserRow,
    WorkOrderRow,
    WorkOrderTransitionRow,
)
from db.table_row import TableRow
from domain.enums import DepartmentKind
from domain.routing import DepartmentFacts, ProofFacts, Routing, proof_makers, route_order

R = TypeVar("R", bound=TableRow)


async def _by_ids(conn: AsyncConnection, name: str, ids: Sequence[int], kind: type[R]) -> list[R]:
    return kind.all(await conn.execute(Q[name], {"ids": list(ids)}))


async def _all(conn: AsyncConnection, name: str, params: dict[str, Any], kind: type[R]) -> list[R]:
    return kind.all(await conn.execute(Q[name], params))


async def departments(conn: AsyncConnection, ids: Sequence[int]) -> list[DepartmentRow]:
    return await _by_ids(conn, "departments_by_id", ids, DepartmentRow)


async def users(conn: AsyncConnection, ids: Sequence[int]) -> list[UserRow]:
    return await _by_ids(conn, "users_by_id", ids, UserRow)


async def customers(conn: AsyncConnection, ids: Sequence[int]) -> list[CustomerRow]:
    return await _by_ids(conn, "customers_by_id", ids, CustomerRow)


async def work_orders(conn: AsyncConnection, ids: Sequence[int]) -> list[WorkOrderRow]:
    return await _by_ids(conn, "work_orders_by_id", ids, WorkOrderRow)


async def work_order_by_number(conn: AsyncConnection, number: str) -> WorkOrderRow | None:
    found = await _all(conn, "work_order_by_number", {"number": number}, WorkOrderRow)
    return found[0] if found else None


async def tasks(conn: AsyncConnection, ids: Sequence[int]) -> list[TaskRow]:
    return await _by_ids(conn, "tasks_by_id", ids, TaskRow)


async def tasks_of_work_orders(conn: AsyncConnection, ids: Sequence[int]) -> list[TaskRow]:
    """Each order's tasks in route order (`in_route_order`)."""
    tasks = await _by_ids(conn, "tasks_by_work_order", ids, TaskRow)
    return in_route_order(tasks, await all_departments(conn))


async def task_history(conn: AsyncConnection, ids: Sequence[int]) -> list[TaskTransitionRow]:
    return await _by_ids(conn, "task_history", ids, TaskTransitionRow)


async def work_order_history(
    conn: AsyncConnection, ids: Sequence[int]
) -> list[WorkOrderTransitionRow]:
    return await _by_ids(conn, "work_order_history", ids, WorkOrderTransitionRow)


async def memberships(conn: AsyncConnection, ids: Sequence[int]) -> list[MembershipRow]:
    return await _by_ids(conn, "memberships_by_user", ids, MembershipRow)


async def tokens(conn: AsyncConnection, ids: Sequence[int]) -> list[TokenRow]:
    return await _by_ids(conn, "tokens_by_id", ids, TokenRow)


async def tokens_page(
    conn: AsyncConnection,
    *,
    user_id: int | None,
    limit: int,
    after_id: int | None,
    backward: bool = False,
) -> list[TokenRow]:
    params = {"user_id": user_id, "limit": limit, "after_id": after_id, "backward": backward}
    return await _all(conn, "tokens_page", params, TokenRow)


async def ledger_entries(conn: AsyncConnection, ids: Sequence[int]) -> list[LedgerEntryRow]:
    return await _by_ids(conn, "ledger_entries_by_id", ids, LedgerEntryRow)


async def ledger_of_work_orders(conn: AsyncConnection, ids: Sequence[int]) -> list[LedgerEntryRow]:
    return await _by_ids(conn, "ledger_of_work_orders", ids, LedgerEntryRow)


async def customer_balances(conn: AsyncConnection, ids: Sequence[int]) -> list[BalanceRow]:
    rows = await conn.execute(Q["customer_balances"], {"ids": list(ids)})
    return [BalanceRow(*row) for row in rows]


async def refunds_due_of_work_orders(
    conn: AsyncConnection, ids: Sequence[int]
) -> list[RefundDueRow]:
    rows = await conn.execute(Q["refunds_due_of_work_orders"], {"ids": list(ids)})
    return [RefundDueRow(*row) for row in rows]


async def refunds_due_of_customers(conn: AsyncConnection, ids: Sequence[int]) -> list[BalanceRow]:
    rows = await conn.execute(Q["refunds_due_of_customers"], {"ids": list(ids)})
    return [BalanceRow(*row) for row in rows]


async def customer_ledger_page(
    conn: AsyncConnection,
    *,
    customer_id: int,
    limit: int,
    after_id: int | None,
    backward: bool = False,
) -> list[LedgerEntryRow]:
    params = {
        "customer_id": customer_id,
        "limit": limit,
        "after_id": after_id,
        "backward": backward,
    }
    return await _all(conn, "customer_ledger_page", params, LedgerEntryRow)


async def all_departments(conn: AsyncConnection) -> list[DepartmentRow]:
    """Every department, in route order (domain.routing.route_order)."""
    departments = await _all(conn, "departments_all", {}, DepartmentRow)
    places = _route_places(departments)
    return sorted(departments, key=lambda d: places[d.id])


def _route_places(departments: Sequence[DepartmentRow]) -> dict[int, int]:
    facts = [DepartmentFacts(d.id, d.code, DepartmentKind(d.kind), d.name) for d in departments]
    ranked = route_order(facts, routing_of(departments))
    return {department: place for place, department in enumerate(ranked)}


def in_route_order(tasks: Iterable[TaskRow], departments: Sequence[DepartmentRow]) -> list[TaskRow]:
    """Tasks grouped by work order (in id order), each order's in the route order of their
    departments, which `departments` (every one of the shop's) tells."""
    places = _route_places(departments)
    return sorted(tasks, key=lambda t: (t.work_order_id, places[t.department_id]))


def routing_of(departments: Iterable[DepartmentRow]) -> Routing:
    """Who follows whom, as domain.routing reads it."""
    return {d.id: d.follows for d in departments if d.follows}


def proof_makers_of(departments: Iterable[DepartmentRow]) -> list[int]:
    """The departments that make the shop's proofs (domain.routing.proof_makers)."""
    return proof_makers(
        [
            ProofFacts(
                d.id, DepartmentKind(d.kind), d.gates_delivery, d.needs_approved_proof, d.follows
            )
            for d in departments
        ]
    )


@dataclass(frozen=True)
class PageParts:
    """What to read along with a page of work orders (what its selection shows)."""

    customers: bool = False
    creators: bool = False
    history: bool = False
    tasks: bool = False
    pickers: bool = False
    picker_departments: bool = False
    task_history: bool = False

    def any(self) -> bool:
        return any(vars(self).values())


@dataclass(frozen=True)
class PageRelations:
    customers: list[CustomerRow]
    users: list[UserRow]
    departments: list[DepartmentRow]
    tasks_of: dict[int, list[TaskRow]]  # by work order, in route order
    history_of: dict[int, list[WorkOrderTransitionRow]]  # by work order
    moves_of: dict[int, list[TaskTransitionRow]]  # task history, by task
    memberships_of: dict[int, list[MembershipRow]]  # by user


def _grouped(rows: list[R], key: str) -> dict[int, list[R]]:
    groups: dict[int, list[R]] = {}
    for row in rows:
        groups.setdefault(getattr(row, key), []).append(row)
    return groups


async def work_order_page_relations(
    conn: AsyncConnection, ids: Sequence[int], parts: PageParts
) -> PageRelations:
    """One statement for what a page of work orders shows besides the orders themselves."""
    [row] = await fetch_native(conn, "work_order_page_relations", ids=list(ids), **vars(parts))
    found = orjson.loads(row.relations)
    departments = DepartmentRow.from_json(found["departments"])
    kinds = {d.id: d.kind for d in departments}
    tasks = TaskRow.from_json(found["tasks"])
    for task in tasks:
        task.department_kind = kinds[task.department_id]
    tasks = in_route_order(tasks, DepartmentRow.from_json(found["route"]))
    return PageRelations(
        customers=CustomerRow.from_json(found["customers"]),
        users=UserRow.from_json(found["users"]),
        departments=departments,
        tasks_of=_grouped(tasks, "work_order_id"),
        history_of=_grouped(WorkOrderTransitionRow.from_json(found["history"]), "work_order_id"),
        moves_of=_grouped(TaskTransitionRow.from_json(found["task_history"]), "task_id"),
        memberships_of=_grouped(
            [MembershipRow(user_id=u, department_id=d) for u, d in found["memberships"] or ()],
            "user_id",
        ),
    )


@dataclass(frozen=True)
class OrderFilter:
    """Which work orders a list shows; None is any."""

    status: str | None = None
    customer_id: int | None = None
    search: str | None = None
    priority: str | None = None
    held: bool | None = None
    late: bool | None = None
    due_before: datetime | None = None


@dataclass(frozen=True)
class OrderKey:
    """Where a page of work orders ends: the id, and by due date also its due date."""

    id: int
    due: datetime | None = None


async def work_orders_page(
    conn: AsyncConnection,
    *,
    limit: int,
    by_due: bool = False,
    after: OrderKey | None = None,
    backward: bool = False,
    where: OrderFilter = OrderFilter(),
) -> list[WorkOrderRow]:
    """Newest first, or by due date (earliest first, none last); `backward`, the same
    order read from `after` towards the start."""
    params = {
        **asdict(where),
        "limit": limit,
        "by_due": by_due,
        "backward": backward,
        "after_id": after.id if after else None,
        "after_due": after.due if after else None,
    }
    return await _all(conn, "work_orders_page", params, WorkOrderRow)


# The count runs the list's own statement, with no keyset and no limit, so that it
# cannot disagree with the pages.
_COUNT_ORDERS = sa.text(f"SELECT count(*) FROM ({Q['work_orders_page'].text}) AS matching")


async def work_orders_count(conn: AsyncConnection, where: OrderFilter) -> int:
    """How many work orders the filters match: cheap only with a narrow filter (one
    customer's orders, through their index)."""
    params = {
        **asdict(where),
        "limit": None,
        "by_due": False,
        "backward": False,
        "after_id": None,
        "after_due": None,
    }
    return int(await conn.scalar(_COUNT_ORDERS, params) or 0)


async def customers_page(
    conn: AsyncConnection,
    *,
    limit: int,
    after_id: int | None,
    search: str | None,
    refund_due: bool | None = None,
    backward: bool = False,
) -> list[CustomerRow]:
    params = {
        "limit": limit,
        "after_id": after_id,
        "search": search,
        "refund_due": refund_due,
        "backward": backward,
    }
    return await _all(conn, "customers_page", params, CustomerRow)


async def stale_tasks_page(
    conn: AsyncConnection, *, limit: int, after_id: int | None, backward: bool = False
) -> list[TaskRow]:
    params = {"limit": limit, "after_id": after_id, "backward": backward}
    return await _all(conn, "stale_tasks_page", params, TaskRow)


async def users_page(
    conn: AsyncConnection, *, limit: int, after_id: int | None, backward: bool = False
) -> list[UserRow]:
    params = {"limit": limit, "after_id": after_id, "backward": backward}
    return await _all(conn, "users_page", params, UserRow)


class QueueKey(NamedTuple):
    """A task's place in its department's queue, as queue_page orders it: the lane (0
    waiting, 1 started), 0 for RUSH, the due date (9999-12-31 for none), and since when
    it is in its lane; then its id."""

    lane: int
    rush: int
    due: datetime
    since: datetime
    id: int


class Queued(NamedTuple):
    task: TaskRow
    key: QueueKey


class QueuePage(NamedTuple):
    """A page of a queue, the snapshot it was read in, and how many tasks the whole
    queue (with its search) holds in that snapshot."""

    snapshot: Snapshot
    queued: list[Queued]
    total: int


async def queue_page(
    engine: AsyncEngine,
    *,
    department_id: int,
    limit: int,
    after: QueueKey | None,
    backward: bool = False,
    search: str | None = None,
) -> QueuePage:
    """A page of a department's queue (of the tasks matching `search`, a LIKE pattern,
    when given) and the snapshot it was read in, so that the page, its size and its
    event cursor agree exactly."""
    params = {
        "department_id": department_id,
        "limit": limit,
        "backward": backward,
        "search": search,
        **{f"after_{name}": getattr(after, name, None) for name in QueueKey._fields},
    }
    async with one_snapshot(engine) as conn:
        snapshot = await snapshot_now(conn)
        rows = (await conn.execute(Q["queue_page"], params)).all()
    queued = [
        Queued(TaskRow.pick(row), QueueKey(row.lane, row.rush, row.due, row.since, row.id))
        for row in rows
        if row.id is not None
    ]
    return QueuePage(snapshot, queued, rows[0].total)


@dataclass(frozen=True)
class Related:
    """Rows that a batch of events refers to, read once and shared by every subscriber."""

    tasks: dict[int, TaskRow] = field(default_factory=dict)
    work_orders: dict[int, WorkOrderRow] = field(default_factory=dict)
    departments: dict[int, DepartmentRow] = field(default_factory=dict)
    users: dict[int, UserRow] = field(default_factory=dict)
    customers: dict[int, CustomerRow] = field(default_factory=dict)


async def related(conn: AsyncConnection, batch: Sequence[StoredEvent]) -> Related:
    snapshots = [e.task for e in batch if e.task is not None]
    task_ids = {t.id for t in snapshots}
    order_ids = {e.work_order_id for e in batch if e.work_order_id is not None}
    tasks_ = {r.id: r for r in await tasks(conn, sorted(task_ids))} if task_ids else {}
    orders = {r.id: r for r in await work_orders(conn, sorted(order_ids))} if order_ids else {}
    pickers = [t.picked_up_by for t in snapshots]
    pickers += [r.picked_up_by for r in tasks_.values()]
    user_ids: set[int] = {p for p in pickers if p is not None}
    department_ids = {e.department_id for e in batch if e.department_id is not None}
    customer_ids = {r.customer_id for r in orders.values()}
    return Related(
        tasks=tasks_,
        work_orders=orders,
        departments={r.id: r for r in await departments(conn, sorted(department_ids))}
        if department_ids
        else {},
        users={r.id: r for r in await users(conn, sorted(user_ids))} if user_ids else {},
        customers={r.id: r for r in await customers(conn, sorted(customer_ids))}
        if customer_ids
        else {},
    )


async def receivables_ageing(conn: AsyncConnection) -> list[AgeingRow]:
    """Customers who owe, per currency: balance and oldest unpaid debit (queries.sql)."""
    return [AgeingRow(*row) for row in await conn.execute(Q["receivables_ageing"])]
