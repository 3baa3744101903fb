"""A busy shop's history written with COPY: the rows Pressroom's writers would have written
over months of work, in minutes (through the writers, at their ~1,500 transitions/s, a
year would take hours).

Work orders come one every `Shape.every` up to `end`, each with three to five production
tasks (worked side by side) and its delivery task; each order lives its life as
bench/history_orders.py tells, and nothing is written past `end`.

Every transaction that writes events gets a transaction id of its own, in the order of
its moment, as PostgreSQL would have handed them out: the ids are taken from the
server's counter (`build` moves the counter past them first), so the event log's
positions `(xid, id)` are real ones, older than anything written afterwards.

An order's randomness comes from the seed and its rank counted back from `end`, so a
shorter `Shape` (`Shape.last`) with the same seed and end is exactly the last part of the
longer one: the same orders, moments, workers and states (only the row ids differ).
The shop must have no work orders yet, and its production departments gate delivery
(`shop.seed_shop(gates_delivery=True)`).
"""

import heapq
import itertools
import random
import time
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

import asyncpg
import orjson

from bench import fixture
from bench.history_orders import Order, OrderLife, Task, Tx
from bench.output import log
from bench.shop import Shop
from domain.enums import DepartmentKind, WorkOrderPriority

PRODUCTS = ("Flyers A5", "Posters A2", "Business cards", "Brochures A4", "Banners", "Labels")


@dataclass(frozen=True)
class Shape:
    """How busy the shop is and how its work goes."""

    orders: int
    every: timedelta  # between two orders' creation
    production: tuple[int, int] = (3, 5)  # production tasks per order, fewest and most
    release: float = 0.5  # the chance that a start ends in a release, not a finish
    due: float = 2 / 3  # the share of orders with a due date, two or three days ahead
    rush: float = 0.05

    def last(self, span: timedelta) -> "Shape":
        """The same shop's last `span` only: the same orders at the same moments."""
        return replace(self, orders=min(self.orders, span // self.every))


YEAR = timedelta(days=365)
# A server on a written year keeps all of it in its event log (the default retention, 90
# days, would have it pruning most of the year while a bench measures).
KEEP_THE_YEAR = {"PRESSROOM_EVENT_RETENTION_DAYS": "400"}
# The busy shop: 50,000 orders a year, about 250,000 tasks and 1,000,000 task moves.
BUSY_YEAR = Shape(orders=50_000, every=YEAR / 50_000)


COLUMNS = {
    "work_orders": (
        "id", "order_number", "customer_id", "details", "status", "version", "created_by",
        "created_at", "updated_at", "due_at", "priority", "last_completed_at",
    ),
    "department_tasks": (
        "id", "work_order_id", "department_id", "status", "picked_up_by", "available_at",
        "started_at", "completed_at", "version", "created_at", "updated_at", "last_started_at",
        "waited_seconds", "last_completed_at", "worked_seconds",
    ),
    # The history, event and timer rows take their ids from their identity columns, in
    # the order COPY writes them: the order of their transactions.
    "task_transitions": (
        "task_id", "from_status", "to_status", "action", "actor_id", "reason", "occurred_at",
    ),
    "work_order_transitions": (
        "work_order_id", "action", "from_state", "to_state", "actor_id", "reason",
        "occurred_at", "department_id",
    ),
    "events": ("xid", "type", "work_order_id", "department_id", "payload", "occurred_at"),
    "timers": ("purpose", "work_order_id", "task_id", "armed_for", "due_at", "fired_at"),
}  # fmt: skip

Rows = dict[str, list[tuple[Any, ...]]]


@dataclass
class History:
    rows: Rows
    first_xid: int
    transactions: int  # of events, one transaction id each from first_xid

    def count(self, table: str) -> int:
        return len(self.rows[table])


def generate(
    shop: Shop, shape: Shape, end: datetime, *, seed: int = 1, first_xid: int = 1
) -> History:
    """The rows of `shape`'s orders up to `end`, order and task ids from 1; the events'
    transaction ids from `first_xid` on, in the order of their transactions."""
    rows: Rows = {table: [] for table in COLUMNS}
    waiting: list[tuple[datetime, int, Tx]] = []  # transactions of orders begun, by moment
    sequence = itertools.count()
    xid = first_xid
    task_id = 0

    def write_until(moment: datetime) -> None:
        nonlocal xid
        while waiting and waiting[0][0] <= moment:
            tx = heapq.heappop(waiting)[2]
            rows["task_transitions"] += tx.task_history
            rows["work_order_transitions"] += tx.order_history
            rows["timers"] += tx.timers
            if tx.events:
                rows["events"] += [
                    (xid, kind, order, department, orjson.dumps(payload).decode(), tx.at)
                    for kind, order, department, payload in tx.events
                ]
                xid += 1

    orders = []
    for n, back in enumerate(reversed(range(shape.orders)), start=1):
        rng = random.Random(f"{seed}/{back}")
        created = end - (back + rng.random()) * shape.every
        write_until(created)
        departments = sorted(rng.sample(shop.department_ids, k=rng.randint(*shape.production)))
        tasks = []
        for department in [*departments, shop.delivery_id]:
            task_id += 1
            kind = (
                DepartmentKind.DELIVERY
                if department == shop.delivery_id
                else DepartmentKind.PRODUCTION
            )
            tasks.append(Task(task_id, n, department, kind, created))
        due = created + timedelta(days=rng.choice((2, 3))) if rng.random() < shape.due else None
        rush = rng.random() < shape.rush
        order = Order(
            id=n,
            number=f"B-{created:%y%m%d}-{back:06d}",
            created_at=created,
            due_at=due,
            priority=WorkOrderPriority.RUSH if rush else WorkOrderPriority.NORMAL,
            product=rng.choice(PRODUCTS),
            created_by=shop.admin_id,
            tasks=tasks,
        )
        for tx in OrderLife(order, shop, shape.release, end, rng).run():
            heapq.heappush(waiting, (tx.at, next(sequence), tx))
        orders.append(order)
    write_until(end)
    rows["work_orders"] = [o.row(shop.customer_id) for o in orders]
    rows["department_tasks"] = [t.row() for o in orders for t in o.tasks]
    return History(rows, first_xid, xid - first_xid)


# Each of these gives its transaction an id and rolls back: the id is used up.
_USE_XIDS = """
DO $$ BEGIN FOR i IN 1..{count} LOOP
    BEGIN INSERT INTO used_xids VALUES (1); RAISE EXCEPTION 'used'; EXCEPTION
        WHEN raise_exception THEN NULL; END;
END LOOP; END $$"""
XIDS_PER_STATEMENT = 100_000


async def next_xid(conn: asyncpg.Connection) -> int:
    """The transaction id the server hands out next (this one's, then used up)."""
    return int(await conn.fetchval("SELECT pg_current_xact_id()::text")) + 1


async def use_xids_below(conn: asyncpg.Connection, limit: int) -> None:
    """Move the server's transaction id counter to `limit` at least, with subtransactions
    that take an id each: about 400,000 a second."""
    await conn.execute("CREATE TEMPORARY TABLE IF NOT EXISTS used_xids (x integer)")
    while (left := limit - await next_xid(conn)) > 0:
        await conn.execute(_USE_XIDS.format(count=min(left, XIDS_PER_STATEMENT)))


async def load(url: str, history: History) -> float:
    """COPY the rows in (their transaction ids used up on the server first), move the
    identities of orders and tasks past them, VACUUM ANALYZE them as autovacuum would
    have in a year: seconds."""
    started = time.perf_counter()
    conn = await asyncpg.connect(fixture.dsn(url))
    try:
        await use_xids_below(conn, history.first_xid + history.transactions)
        async with conn.transaction():
            for table, records in history.rows.items():
                await conn.copy_records_to_table(table, records=records, columns=COLUMNS[table])
            for table in ("work_orders", "department_tasks"):
                await conn.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), max(id)) FROM {table}"
                )
        await conn.execute(f"VACUUM ANALYZE {', '.join(COLUMNS)}")
    finally:
        await conn.close()
    return time.perf_counter() - started


@dataclass(frozen=True)
class Built:
    history: History
    generate_seconds: float
    load_seconds: float

    def summary(self) -> dict[str, Any]:
        return {
            **{table: self.history.count(table) for table in COLUMNS},
            "transactions": self.history.transactions,
            "generate_seconds": round(self.generate_seconds, 1),
            "load_seconds": round(self.load_seconds, 1),
        }


async def build(url: str, shop: Shop, shape: Shape, end: datetime, *, seed: int = 1) -> Built:
    """`shape`'s history up to `end` in the shop's database: generated, then loaded."""
    conn = await asyncpg.connect(fixture.dsn(url))
    try:
        first_xid = await next_xid(conn)
    finally:
        await conn.close()
    started = time.perf_counter()
    history = generate(shop, shape, end, seed=seed, first_xid=first_xid)
    generated = time.perf_counter() - started
    log(
        f"{shape.orders:,} orders: {history.count('department_tasks'):,} tasks, "
        f"{history.count('task_transitions'):,} task moves, {history.count('events'):,} events "
        f"generated in {generated:.1f} s; loading..."
    )
    return Built(history, generated, await load(url, history))
