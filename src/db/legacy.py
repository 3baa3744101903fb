"""The legacy import: read the old system, plan with domain.legacy, write in batches.

Re-runnable by construction: users are matched by email and only ever gain admin or
memberships, customers are matched by name, work orders carry their legacy id (a
unique column) and payments an idempotency key derived from the legacy payment id.
Each batch of orders commits with its tasks and history in one statement, so an
interrupted import resumes where it stopped when run again. A dry run reads and
plans exactly the same way and writes nothing.
"""

import asyncio
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from db import flow, legacy_source
from db.engine import unit_of_work
from db.idempotency import Once
from db.queries import Q
from domain.enums import DepartmentKind
from domain.legacy import (
    IMPORT_REASON,
    SYSTEM_USER_EMAIL,
    SYSTEM_USER_NAME,
    OrderContext,
    duplicate_numbers,
    plan_order,
    plan_payment,
    plan_users,
)
from domain.legacy_records import (
    Department,
    Exclusion,
    LegacyPayment,
    LegacyUser,
    PlannedOrder,
    PlannedPayment,
    PlannedUser,
    Reason,
)
from domain.transitions import by_system

BATCH = 5000


class Step(StrEnum):
    ORDERS = "orders"
    PAYMENTS = "payments"


Progress = Callable[[Step, int, int], None]  # step, done now, total


@dataclass
class Summary:
    orders_imported: int = 0
    orders_already: int = 0
    orders_excluded: Counter[str] = field(default_factory=Counter)
    payments_posted: int = 0
    payments_already: int = 0
    payments_excluded: Counter[str] = field(default_factory=Counter)
    users_created: int = 0
    users_updated: int = 0
    users_unchanged: int = 0
    users_excluded: Counter[str] = field(default_factory=Counter)
    customers_created: int = 0
    exclusions: list[Exclusion] = field(default_factory=list)

    def exclude(self, exclusion: Exclusion, counter: Counter[str]) -> None:
        self.exclusions.append(exclusion)
        counter[exclusion.reason.value] += 1


@dataclass(frozen=True)
class KnownUser:
    id: int
    is_admin: bool
    department_ids: frozenset[int]


@dataclass
class Target:
    """What the Pressroom database holds before the import writes anything."""

    departments: dict[str, Department]
    users: dict[str, KnownUser]  # by lowercased email
    taken_numbers: frozenset[str]  # numbers of work orders made in Pressroom
    imported: frozenset[int]  # legacy order ids already imported
    customers: dict[str, int]  # lowercased name -> id (the oldest of that name)
    posted_keys: frozenset[str]


async def read_target(conn: AsyncConnection) -> Target:
    departments = {
        r.code: Department(r.id, r.code, DepartmentKind(r.kind), r.gates_delivery)
        for r in await conn.execute(Q["departments_all"])
    }
    users = {
        r.email: KnownUser(r.id, r.is_admin, frozenset(r.department_ids))
        for r in await conn.execute(Q["import_known_users"])
    }
    numbers = list(await conn.execute(Q["import_order_numbers"]))
    customers: dict[str, int] = {}
    for r in await conn.execute(Q["import_customers"]):
        customers.setdefault(r.name.strip().lower(), r.id)
    keys = frozenset((await conn.execute(Q["import_posted_keys"])).scalars())
    return Target(
        departments=departments,
        users=users,
        taken_numbers=frozenset(r.order_number for r in numbers if r.legacy_id is None),
        imported=frozenset(r.legacy_id for r in numbers if r.legacy_id is not None),
        customers=customers,
        posted_keys=keys,
    )


def _user_change(planned: PlannedUser, known: KnownUser | None) -> str:
    if known is None:
        return "created"
    grants = (planned.is_admin and not known.is_admin) or bool(
        planned.department_ids - known.department_ids
    )
    return "updated" if grants else "unchanged"


async def _write_user(conn: AsyncConnection, planned: PlannedUser, known: KnownUser | None) -> int:
    if known is None:
        row = (
            await conn.execute(
                Q["insert_user"],
                {
                    "email": planned.email,
                    "name": planned.name,
                    "password_hash": None,
                    "is_admin": planned.is_admin,
                    # Imported people are no request's create: no idempotency key.
                    **Once(key=None, fingerprint=None).params(),
                },
            )
        ).one()
        user_id = int(row.id)
    else:
        # Only ever grants: an admin is never demoted, a membership never removed.
        params = {"user_id": known.id, "is_admin": planned.is_admin}
        await conn.execute(Q["promote_user"], {**params, "password_hash": None, "name": None})
        user_id = known.id
    await conn.execute(
        Q["add_memberships"],
        {"user_id": user_id, "department_ids": sorted(planned.department_ids)},
    )
    return user_id


@dataclass
class _Run:
    target: Target
    summary: Summary
    currency: str
    dry_run: bool
    system_user: int = 0
    user_ids: dict[str, int] = field(default_factory=dict)  # lowercased email -> id
    email_of: dict[int, str] = field(default_factory=dict)  # legacy user id -> email
    new_customers: set[str] = field(default_factory=set)  # names a dry run would create

    def picker(self, legacy_user: int | None) -> int:
        email = self.email_of.get(legacy_user) if legacy_user is not None else None
        return self.user_ids[email] if email is not None else self.system_user


async def run_import(
    source: AsyncEngine,
    target: AsyncEngine,
    *,
    currency: str,
    now: datetime,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> Summary:
    async with source.connect() as src:
        legacy_users = await legacy_source.users(src)
        numbers = await legacy_source.order_numbers(src)
        payments = await legacy_source.payments(src)
    async with target.connect() as conn:
        state = await read_target(conn)
    run = _Run(state, Summary(), currency, dry_run)
    await _import_users(run, target, legacy_users)
    ctx = OrderContext(
        departments=state.departments,
        known_operators=frozenset(run.email_of),
        duplicate_numbers=duplicate_numbers(numbers),
        taken_numbers=state.taken_numbers,
        now=now,
    )
    async with source.connect() as src:
        excluded = await _import_all_orders(run, src, target, ctx, len(numbers), progress)
    await _import_payments(run, target, payments, numbers, excluded, progress)
    run.summary.customers_created += len(run.new_customers)
    return run.summary


async def _import_all_orders(
    run: _Run,
    src: AsyncConnection,
    target: AsyncEngine,
    ctx: OrderContext,
    total: int,
    progress: Progress | None,
) -> dict[int, Reason]:
    """Every legacy order, page by page; returns the excluded ones with their reasons.

    One batch is written while the next is read and planned, never two at once, so
    customers are made once and batches commit in order."""
    excluded: dict[int, Reason] = {}
    writing: asyncio.Task[None] | None = None
    try:
        after = 0
        while page := await legacy_source.orders(src, after, BATCH):
            after = page[-1].id
            planned: list[PlannedOrder] = []
            for order in page:
                if order.id in run.target.imported:
                    run.summary.orders_already += 1
                    continue
                plan = plan_order(order, ctx)
                if isinstance(plan, Exclusion):
                    run.summary.exclude(plan, run.summary.orders_excluded)
                    excluded[order.id] = plan.reason
                else:
                    planned.append(plan)
            if writing is not None:
                await writing
            writing = asyncio.create_task(_import_orders(run, target, planned))
            if progress:
                progress(Step.ORDERS, len(page), total)
    finally:
        if writing is not None:
            await writing
    return excluded


async def _import_users(run: _Run, target: AsyncEngine, legacy_users: list[LegacyUser]) -> None:
    plan = plan_users(legacy_users, run.target.departments)
    run.email_of = plan.email_of
    for exclusion in plan.excluded:
        run.summary.exclude(exclusion, run.summary.users_excluded)
    changes = Counter(_user_change(u, run.target.users.get(u.email.lower())) for u in plan.users)
    run.summary.users_created += changes["created"]
    run.summary.users_updated += changes["updated"]
    run.summary.users_unchanged += changes["unchanged"]
    if run.dry_run:
        return
    async with unit_of_work(target) as conn:
        params = {"email": SYSTEM_USER_EMAIL, "name": SYSTEM_USER_NAME}
        run.system_user = (await conn.execute(Q["ensure_system_user"], params)).scalar_one()
        for planned in plan.users:
            known = run.target.users.get(planned.email.lower())
            run.user_ids[planned.email.lower()] = await _write_user(conn, planned, known)


async def _customer_ids(run: _Run, conn: AsyncConnection, orders: Sequence[PlannedOrder]) -> None:
    """Customers by name (case-insensitive): the existing one, or one made now."""
    new: dict[str, str] = {}
    for order in orders:
        key = order.customer_name.lower()
        if key not in run.target.customers:
            new.setdefault(key, order.customer_name)
    if not new:
        return
    rows = await conn.execute(
        Q["import_customers_insert"], {"names": list(new.values()), "created_by": run.system_user}
    )
    for row in rows:
        run.target.customers[row.name.lower()] = row.id
    run.summary.customers_created += len(new)


async def _import_orders(run: _Run, target: AsyncEngine, orders: list[PlannedOrder]) -> None:
    if not orders:
        return
    if run.dry_run:
        run.summary.orders_imported += len(orders)
        run.new_customers |= {
            o.customer_name.lower()
            for o in orders
            if o.customer_name.lower() not in run.target.customers
        }
        return
    async with unit_of_work(target) as conn:
        await _customer_ids(run, conn, orders)
        rows = (await conn.execute(Q["import_orders"], _order_params(run, orders))).all()
        inserted = len(rows)
        await flow.rebuild(conn, [r.id for r in rows])
        await conn.execute(Q["notify_events"], {"origin": "legacy-import"})
    run.summary.orders_imported += inserted
    run.summary.orders_already += len(orders) - inserted


def _order_params(run: _Run, orders: list[PlannedOrder]) -> dict[str, Any]:
    tasks = [(o, t) for o in orders for t in o.tasks]
    moves = [(o, m) for o in orders for m in o.history]
    return {
        "currency": run.currency,
        "system_user": run.system_user,
        "reason": IMPORT_REASON,
        "o_legacy": [o.legacy_id for o in orders],
        "o_number": [o.order_number for o in orders],
        "o_customer": [run.target.customers[o.customer_name.lower()] for o in orders],
        "o_details": [json.dumps(o.details) for o in orders],
        "o_install": [o.needs_installation for o in orders],
        "o_transport": [o.needs_transport for o in orders],
        "o_repair": [o.needs_repair for o in orders],
        "o_quote": [o.quote_minor for o in orders],
        "o_status": [o.status.value for o in orders],
        "o_created": [o.created_at for o in orders],
        "o_live": [o.live for o in orders],
        "t_legacy": [o.legacy_id for o, _ in tasks],
        "t_department": [t.department_id for _, t in tasks],
        "t_status": [t.status.value for _, t in tasks],
        "t_picker": [None if t.action is None else run.picker(t.operator_id) for _, t in tasks],
        "t_available": [t.available_at for _, t in tasks],
        "t_started": [t.started_at for _, t in tasks],
        "t_completed": [t.completed_at for _, t in tasks],
        "t_action": [t.action.value if t.action else None for _, t in tasks],
        "t_occurred": [t.occurred_at for _, t in tasks],
        "h_legacy": [o.legacy_id for o, _ in moves],
        "h_action": [m.action.value for _, m in moves],
        "h_from": [m.from_state for _, m in moves],
        "h_to": [m.to_state for _, m in moves],
        "h_occurred": [m.occurred_at for _, m in moves],
        "h_actor": [None if by_system(m.action) else run.system_user for _, m in moves],
    }


async def _import_payments(
    run: _Run,
    target: AsyncEngine,
    payments: list[LegacyPayment],
    numbers: dict[int, str | None],
    excluded: dict[int, Reason],
    progress: Progress | None,
) -> None:
    planned: list[PlannedPayment] = []
    for payment in payments:
        plan = plan_payment(payment, numbers, excluded)
        if isinstance(plan, Exclusion):
            run.summary.exclude(plan, run.summary.payments_excluded)
        elif plan.idempotency_key in run.target.posted_keys:
            run.summary.payments_already += 1
        else:
            planned.append(plan)
    for start in range(0, len(planned), BATCH):
        batch = planned[start : start + BATCH]
        if run.dry_run:
            run.summary.payments_posted += len(batch)
        else:
            async with unit_of_work(target) as conn:
                rows = await conn.execute(Q["import_payments"], _payment_params(run, batch))
                posted = len(rows.all())
            run.summary.payments_posted += posted
            run.summary.payments_already += len(batch) - posted
        if progress:
            progress(Step.PAYMENTS, len(batch), len(planned))


def _payment_params(run: _Run, payments: list[PlannedPayment]) -> dict[str, Any]:
    return {
        "currency": run.currency,
        "system_user": run.system_user,
        "legacy_order": [p.order_legacy_id for p in payments],
        "amount": [p.amount_minor for p in payments],
        "memo": [f"Legacy payment {p.legacy_id}" for p in payments],
        "idempotency_key": [p.idempotency_key for p in payments],
        "paid_at": [p.paid_at for p in payments],
    }
