"""A generator of legacy databases (schema `legacy`) with the outcome of their import known.

Not a test module: the legacy import tests, the boot-after-import test and the import
benchmark build their source database with `build_legacy`.

Every legacy order is generated from an explicit *case* that states what the import must
make of it: the reason it is excluded, or the work order it becomes (final status, a task
per department with its status and who picked it up, the history moves, whether the
delivery gate is open, the steps kept in `details.legacySteps`). The expectations are
written by hand in the cases (samples/legacy_cases_*.py; the users in
samples/legacy_users.py), not computed with `domain.legacy`'s planner, so the tests
compare the importer against an independent statement of the rules.

Several hundred orders cover every case several times; a large `orders` (the benchmark's
100,000) repeats the same mix, so generation stays cheap. The rows go in with COPY.

Assumptions the expectations rest on (both hold for the `shop` fixture of tests/support/shop.py):
- the department codes: `production_codes` is (a production code that does not gate
  delivery, two that do); `department_codes` starts with the SALES code and the ACCOUNTS
  code; `delivery_code` is the DELIVERY department;
- the Pressroom users already there (`EXISTING_USERS`): pat@shop.test (a print worker),
  dee@shop.test (a design worker) and ada@shop.test (an admin), so the legacy Pat is
  updated (gains finishing), Dee and Ada are unchanged and every other legacy user is
  created; and one customer, ACME (`EXISTING_CUSTOMERS`);
- `taken_numbers`: work orders made in Pressroom with these numbers exist in the target
  before the import (the caller makes them); one legacy order per number claims it.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import asyncpg
from sqlalchemy.engine import make_url

from domain.legacy_records import Reason
from samples.legacy_case import CANCELLED, CUSTOMERS, POOL, PRINT_PENDING, C, Case, P, R
from samples.legacy_cases_active import LIVE, LIVE_EXCLUDED
from samples.legacy_cases_any_status import EVERY_ORDER_EXCLUDED, NUMBERS
from samples.legacy_cases_history import HISTORY
from samples.legacy_users import (
    ADMINS,
    BAD_EMAIL_USERS,
    BAD_NAME_USERS,
    MEMBERSHIPS,
    OPERATORS,
    ORPHAN_ROLES,
    PICKERS,
    USERS,
    USERS_UNCHANGED,
    USERS_UPDATED,
    WORKERS,
)

# --- the assumed target ---------------------------------------------------------------------

EXISTING_USERS = frozenset({"pat@shop.test", "dee@shop.test", "ada@shop.test"})
EXISTING_CUSTOMERS = frozenset({"acme"})

# --- the legacy schema ----------------------------------------------------------------------

SCHEMA = """
DROP SCHEMA IF EXISTS legacy CASCADE;
CREATE SCHEMA legacy;
CREATE TABLE legacy.users (
    id integer PRIMARY KEY, email text, name text, department text, is_admin boolean);
CREATE TABLE legacy.roles (user_id integer, role text);
CREATE TABLE legacy.orders (
    id integer PRIMARY KEY, order_no text, customer_name text, status text,
    created_at timestamptz, notes text, install boolean, transport boolean, repair boolean);
CREATE TABLE legacy.line_items (
    id integer PRIMARY KEY, order_id integer, description text, qty integer,
    unit_price_cents integer);
CREATE TABLE legacy.workflow_steps (
    id integer PRIMARY KEY, order_id integer, step text, status text, operator_id integer,
    started_at timestamptz, finished_at timestamptz);
CREATE TABLE legacy.payments (
    id integer PRIMARY KEY, order_id integer, amount_cents integer, paid_at timestamptz);
"""
# No foreign keys (the old system had none); the indexes it had on its lookup columns.
INDEXES = """
CREATE INDEX ON legacy.roles (user_id);
CREATE INDEX ON legacy.line_items (order_id);
CREATE INDEX ON legacy.workflow_steps (order_id);
CREATE INDEX ON legacy.payments (order_id);
ANALYZE legacy.users, legacy.roles, legacy.orders, legacy.line_items,
        legacy.workflow_steps, legacy.payments;
"""

# One cycle of the mix, interleaved so that a small `orders` already sees every kind.
GROUPS: list[tuple[Case, ...]] = []
for _row in zip(LIVE, LIVE_EXCLUDED, EVERY_ORDER_EXCLUDED, HISTORY, NUMBERS, strict=False):
    GROUPS.extend(c if isinstance(c, tuple) else (c,) for c in _row)
_seen = {c.name for g in GROUPS for c in g}
for _case in [*LIVE, *LIVE_EXCLUDED, *EVERY_ORDER_EXCLUDED, *HISTORY]:
    if _case.name not in _seen:
        GROUPS.append((_case,))
GROUPS.extend(g for g in NUMBERS if g[0].name not in _seen)
FILLER = LIVE[0]  # pads the end when the next group does not fit


def _check(case: Case) -> None:
    assert (case.reason is None) == (case.final is not None), case.name
    if case.final is not None:
        assert "delivery" in case.tasks, case.name
        assert case.live or case.final in (C, CANCELLED), case.name
    for pay in case.payments:
        if pay.target == "self" and case.reason is not None:
            assert pay.reason is Reason.PAYMENT_ORDER_EXCLUDED, case.name


for _group in GROUPS:
    for _case in _group:
        _check(_case)
assert len({c.name for g in GROUPS for c in g}) == sum(len(g) for g in GROUPS)


# --- what the import must do ----------------------------------------------------------------


@dataclass
class Expected:
    """The import's outcome, known from the generated cases (see the module docstring for
    what is assumed of the target). Emails are lowercased; tasks and memberships are keyed
    by department code; pickers are lowercased emails (the system user's for imported work
    with no known operator; None for a pending task)."""

    orders: int = 0
    orders_imported: int = 0
    orders_excluded: Counter[str] = field(default_factory=Counter)
    payments_posted: int = 0
    payments_excluded: Counter[str] = field(default_factory=Counter)
    users_created: int = 0
    users_updated: int = 0
    users_unchanged: int = 0
    users_excluded: Counter[str] = field(default_factory=Counter)
    customers_created: int = 0
    existing_users: set[str] = field(default_factory=set)
    admins: set[str] = field(default_factory=set)
    workers: set[str] = field(default_factory=set)
    memberships: dict[str, set[str]] = field(default_factory=dict)
    customers: set[str] = field(default_factory=set)  # lowercased names
    # Every legacy order: its Pressroom number (LEGACY-<id> when it had none).
    number_by_legacy_id: dict[int, str] = field(default_factory=dict)
    case_by_legacy_id: dict[int, str] = field(default_factory=dict)
    # Imported orders.
    status_by_legacy_id: dict[int, str] = field(default_factory=dict)
    quote_by_legacy_id: dict[int, int | None] = field(default_factory=dict)
    customer_by_legacy_id: dict[int, str] = field(default_factory=dict)  # lowercased
    flags_by_legacy_id: dict[int, tuple[bool, bool, bool]] = field(default_factory=dict)
    tasks_by_legacy_id: dict[int, dict[str, tuple[str, str | None]]] = field(default_factory=dict)
    moves_by_legacy_id: dict[int, list[str]] = field(default_factory=dict)
    legacy_steps_by_legacy_id: dict[int, list[str | None]] = field(default_factory=dict)
    live: set[int] = field(default_factory=set)  # imported orders that were active
    delivery_open: dict[int, bool] = field(default_factory=dict)  # live orders only
    # Exclusions by (record, legacy id) -> reason value.
    exclusions: dict[tuple[str, int], str] = field(default_factory=dict)
    # Posted payments: legacy payment id -> (legacy order id, signed amount_minor).
    posted_payments: dict[int, tuple[int, int]] = field(default_factory=dict)
    cases: Counter[str] = field(default_factory=Counter)

    @property
    def live_task_count(self) -> int:
        """TASK_CREATED events: the tasks of imported live orders (delivery included)."""
        return sum(len(self.tasks_by_legacy_id[i]) for i in self.live)

    @property
    def task_count(self) -> int:
        return sum(len(t) for t in self.tasks_by_legacy_id.values())

    @property
    def worked_task_count(self) -> int:
        """Task history rows: one per imported task that is not PENDING."""
        return sum(s != P for t in self.tasks_by_legacy_id.values() for s, _ in t.values())


def _dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _items(kind: str, rng: random.Random) -> list[tuple[str | None, int | None, int | None]]:
    if kind == "std":
        return [
            (
                rng.choice(["Flyers", "Posters", "Banner", None]),
                rng.randint(0, 500),
                rng.randint(0, 20_000),
            )
            for _ in range(rng.randint(1, 3))
        ]
    return {
        "none": [],
        "zero": [("Sample", 0, 1_500), (None, 0, 0)],
        "big": [("Billboard run", 50_000, 2_000_000_000), ("Setup", 1, 2_147_483_647)],
        "null_qty": [("Flyers", 100, 20), ("Posters", None, 500)],
        "null_price": [("Flyers", 10, None)],
        "neg_price": [("Flyers", 10, 30), ("Refund line", 1, -500)],
        "neg_qty": [("Return", -2, 300)],
        # 17,500 characters of descriptions: more than details may hold (16,384 bytes).
        "huge": [("Banner " * 1_000, 1, 100), ("Poster " * 1_500, 2, 100)],
    }[kind]


async def build_legacy(
    url: str,
    *,
    orders: int,
    seed: int = 1,
    production_codes: Sequence[str] = ("design", "print", "finishing"),
    delivery_code: str = "delivery",
    department_codes: Sequence[str] = (
        "sales",
        "accounts",
        "design",
        "print",
        "finishing",
        "delivery",
    ),
    taken_numbers: Sequence[str] = (),
) -> Expected:
    """(Re)create schema `legacy` in the database at `url` with `orders` legacy orders (plus
    one per `taken_numbers`, which the caller has made in Pressroom), users, roles, line
    items, steps and payments; return what the import must make of them."""
    rng = random.Random(seed)
    roles = dict(zip(("design", "print", "finishing"), production_codes, strict=True))
    roles |= {"delivery": delivery_code, "sales": department_codes[0]}
    roles["accounts"] = department_codes[1]
    names: dict[str, str] = {}
    for role, code in roles.items():
        names |= {role: code, role.title(): code.title(), role.upper(): code.upper()}

    def text(value: str | None) -> str | None:
        return None if value is None else value.format(**names)

    exp = Expected(existing_users=set(EXISTING_USERS))
    exp.admins = set(ADMINS)
    exp.workers = set(WORKERS)
    exp.memberships = {e: {roles[r] for r in rs} for e, rs in MEMBERSHIPS.items()}
    exp.users_updated = len(USERS_UPDATED)
    exp.users_unchanged = len(USERS_UNCHANGED)
    exp.users_created = len(MEMBERSHIPS) - exp.users_updated - exp.users_unchanged
    for user_ids, reason in [
        (BAD_EMAIL_USERS, Reason.BAD_EMAIL),
        (BAD_NAME_USERS, Reason.BAD_NAME),
    ]:
        for user_id in user_ids:
            exp.users_excluded[reason.value] += 1
            exp.exclusions[("user", user_id)] = reason.value
    user_rows = [(i, e, n, text(d), a) for i, e, n, d, a, _ in USERS]
    role_rows = [(i, text(r)) for i, *_, rs in USERS for r in rs]
    role_rows += [(i, text(r)) for i, r in ORPHAN_ROLES]

    order_rows: list[tuple] = []
    item_rows: list[tuple] = []
    step_rows: list[tuple] = []
    pay_rows: list[tuple] = []
    base = datetime(2021, 3, 1, 8, 0, tzinfo=UTC)
    step_id = item_id = pay_id = 0
    customers_seen: set[str] = set()

    def emit(case: Case, oid: int, raw_no: str | None) -> None:
        nonlocal step_id, item_id, pay_id
        created = base + timedelta(minutes=oid) if case.created else None
        if case.customer == POOL:
            customer: str | None = (
                rng.choice(CUSTOMERS) if rng.random() < 0.7 else f"Client {rng.randrange(40):02d}"
            )
        else:
            customer = case.customer
        flags = (
            (rng.random() < 0.3, rng.random() < 0.2, rng.random() < 0.1)
            if case.flags
            else (None, None, None)
        )
        notes = case.notes
        if notes == POOL:
            notes = rng.choice([None, "", "  rush job  ", "Deliver to the back door"])
        order_rows.append((oid, raw_no, customer, case.status, created, notes, *flags))
        items = _items(case.items, rng)
        for description, qty, price in items:
            item_id += 1
            item_rows.append((item_id, oid, description, qty, price))
        rows = []
        for k, (step, status, operator) in enumerate(case.steps):
            step_id += 1
            worked = case.timestamps and created is not None
            started = created + timedelta(hours=1 + k) if worked else None
            finished = started + timedelta(minutes=30) if started else None
            op = OPERATORS[operator] if operator else None
            rows.append((step_id, oid, text(step), status, op, started, finished))
        step_rows.extend(reversed(rows) if case.reverse_rows else rows)

        number = (raw_no or "").strip() or f"LEGACY-{oid}"
        exp.number_by_legacy_id[oid] = number
        exp.case_by_legacy_id[oid] = case.name
        exp.cases[case.name] += 1
        if case.reason is not None:
            exp.orders_excluded[case.reason.value] += 1
            exp.exclusions[("order", oid)] = case.reason.value
        else:
            assert customer is not None and case.final is not None
            exp.orders_imported += 1
            exp.status_by_legacy_id[oid] = case.final
            exp.quote_by_legacy_id[oid] = sum(q * p for _, q, p in items) if items else None
            exp.customer_by_legacy_id[oid] = customer.strip().lower()
            customers_seen.add(customer.strip().lower())
            exp.flags_by_legacy_id[oid] = (bool(flags[0]), bool(flags[1]), bool(flags[2]))
            exp.tasks_by_legacy_id[oid] = {
                roles[r]: (s, PICKERS[p] if p else None) for r, (s, p) in case.tasks.items()
            }
            if case.live:
                exp.live.add(oid)
                exp.delivery_open[oid] = bool(case.gate)
                moves = ["OPEN_GATE"] if case.opens_gate else []
                exp.moves_by_legacy_id[oid] = moves + (["COMPLETE"] if case.final == C else [])
            else:
                exp.moves_by_legacy_id[oid] = ["COMPLETE" if case.final == C else "CANCEL"]
                if case.unmapped:
                    exp.legacy_steps_by_legacy_id[oid] = [text(s) for s in case.unmapped]
        for pay in case.payments:
            pay_id += 1
            target = {"self": oid, "missing": 2_000_000_000 - pay_id, "null": None}[pay.target]
            paid_at = base + timedelta(days=1, minutes=pay_id) if pay.paid else None
            pay_rows.append((pay_id, target, pay.amount, paid_at))
            if pay.reason is None:
                assert pay.amount is not None and case.reason is None
                exp.payments_posted += 1
                exp.posted_payments[pay_id] = (oid, -pay.amount)
            else:
                exp.payments_excluded[pay.reason.value] += 1
                exp.exclusions[("payment", pay_id)] = pay.reason.value

    oid = 0
    for number in taken_numbers:
        oid += 1
        case = Case("taken_number", "open", PRINT_PENDING, reason=R.DUPLICATE_ORDER_NUMBER)
        emit(case, oid, number)
    total = orders + len(taken_numbers)
    cycle = 0
    while oid < total:
        for group in GROUPS:
            if oid + len(group) > total:
                group = (FILLER,) * min(len(group), total - oid)
            prev = oid
            for case in group:
                oid += 1
                raw = None if case.order_no is None else case.order_no.format(
                    id=oid, cycle=cycle, prev=prev
                )  # fmt: skip
                emit(case, oid, raw)
                prev = oid
            if oid >= total:
                break
        cycle += 1
    exp.orders = total
    exp.customers = customers_seen | set(EXISTING_CUSTOMERS)
    exp.customers_created = len(customers_seen - EXISTING_CUSTOMERS)

    conn = await asyncpg.connect(_dsn(url))
    try:
        async with conn.transaction():
            await conn.execute(SCHEMA)
            for table, rows, columns in [
                ("users", user_rows, ["id", "email", "name", "department", "is_admin"]),
                ("roles", role_rows, ["user_id", "role"]),
                ("orders", order_rows, ["id", "order_no", "customer_name", "status",
                                        "created_at", "notes", "install", "transport",
                                        "repair"]),
                ("line_items", item_rows, ["id", "order_id", "description", "qty",
                                           "unit_price_cents"]),
                ("workflow_steps", step_rows, ["id", "order_id", "step", "status",
                                               "operator_id", "started_at", "finished_at"]),
                ("payments", pay_rows, ["id", "order_id", "amount_cents", "paid_at"]),
            ]:  # fmt: skip
                await conn.copy_records_to_table(
                    table, schema_name="legacy", records=rows, columns=columns
                )
        await conn.execute(INDEXES)
    finally:
        await conn.close()
    return exp
