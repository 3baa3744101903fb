"""A generator of legacy databases (schema `legacy`) with the outcome of their import known.

Not a test module: the legacy import tests, the boot-after-import test and the import
benchmark build their source database with `build_legacy`.

Every legacy order is generated from an explicit *case* that states what the import must
make of it: the reason it is excluded, or the work order it becomes (final status, a task
per department with its status and who picked it up, the history moves, whether the
delivery gate is open, the steps kept in `details.legacySteps`). The expectations are
written by hand in the cases below, not computed with `domain.legacy`'s planner, so the
tests compare the importer against an independent statement of the rules.

Several hundred orders cover every case several times; a large `orders` (the benchmark's
100,000) repeats the same mix, so generation stays cheap. The rows go in with COPY.

Assumptions the expectations rest on (both hold for the `shop` fixture of tests/support.py):
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
from typing import Any

import asyncpg
from sqlalchemy.engine import make_url

from domain.legacy import SYSTEM_USER_EMAIL
from domain.legacy_records import Reason

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

# --- users ----------------------------------------------------------------------------------
# Department texts and roles name departments by role: {sales} {accounts} {design} {print}
# {finishing} {delivery}, each also as {Print} (title case) and {FINISHING} (upper case).

# id, email, name, department, is_admin, roles
USERS: list[tuple[int, str | None, str | None, str | None, bool | None, list[str | None]]] = [
    (1, "Pat@Shop.test", "Pat Legacy", "{PRINT}", False, ["operator", "{Finishing}"]),
    (2, "DEE@shop.test", "Dee", "{design}", None, ["operator"]),
    (3, "ada@shop.test", "Ada", None, True, []),
    (4, "boss@legacy.test", "Boss", "{Sales}", True, []),
    (5, "root@legacy.test", "Root", None, False, ["admin"]),
    # A manager who is an admin, and one who is not: the role alone never makes an admin.
    (6, "Manager.Admin@Legacy.test", "Mia Manager", "{accounts}", True, ["manager"]),
    (7, "manager@legacy.test", "Max Manager", "{Design}", False, ["manager"]),
    (8, "seller@legacy.test", "Sue Seller", None, None, ["{sales}"]),
    (9, "printer@legacy.test", "Pete Printer", None, False, ["{Print}", "operator"]),
    (10, "finisher@legacy.test", "Fay Finisher", " {FINISHING} ", False, ["operator"]),
    (11, "nowhere@legacy.test", "Nora Nowhere", "Warehouse", False, ["operator"]),
    # One person twice, the email in two cases: one Pressroom user with both memberships.
    (12, "Twin@Legacy.test", "Tom Twin", "{print}", False, []),
    (13, "twin@legacy.test", "Tom Twin (old)", "{design}", None, ["ADMIN"]),
    (14, None, "Ghost", "{print}", False, ["operator"]),
    (15, "not-an-address", "Nobody", None, False, []),
    (16, "   ", "Blank", None, False, []),
    (17, "Dispatch@Legacy.Test", "Dan Dispatch", "{Delivery}", None, ["driver"]),
    (18, "  padded@legacy.test  ", None, None, False, ["operator"]),
    (19, "books@legacy.test", "Bo Books", None, False, ["{accounts}", "manager"]),
    (20, "roleless@legacy.test", "", None, None, [None]),
    # Names the API would refuse (over 200 characters; no name, and an email whose local
    # part, the name then, is over 200) and the longest it takes.
    (21, "longname@legacy.test", "N" * 201, "{print}", False, ["operator"]),
    (22, f"{'x' * 201}@legacy.test", None, "{print}", False, []),
    (23, "Longest@Legacy.test", "Lo" * 100, None, None, ["{finishing}"]),
]
# Roles of a user the old system deleted (no users row): nobody gets them.
ORPHAN_ROLES = [(999, "admin"), (999, "{print}")]
BAD_EMAIL_USERS = (14, 15, 16)
BAD_NAME_USERS = (21, 22)

# What the import must make of them (lowercased emails; memberships by role).
ADMINS = {
    "ada@shop.test",
    "boss@legacy.test",
    "root@legacy.test",
    "manager.admin@legacy.test",
    "twin@legacy.test",
}
WORKERS = {
    "pat@shop.test",
    "dee@shop.test",
    "manager@legacy.test",
    "seller@legacy.test",
    "printer@legacy.test",
    "finisher@legacy.test",
    "nowhere@legacy.test",
    "dispatch@legacy.test",
    "padded@legacy.test",
    "books@legacy.test",
    "roleless@legacy.test",
    "longest@legacy.test",
}
MEMBERSHIPS = {
    "pat@shop.test": {"print", "finishing"},
    "dee@shop.test": {"design"},
    "ada@shop.test": set(),
    "boss@legacy.test": {"sales"},
    "root@legacy.test": set(),
    "manager.admin@legacy.test": {"accounts"},
    "manager@legacy.test": {"design"},
    "seller@legacy.test": {"sales"},
    "printer@legacy.test": {"print"},
    "finisher@legacy.test": {"finishing"},
    "nowhere@legacy.test": set(),
    "twin@legacy.test": {"print", "design"},
    "dispatch@legacy.test": {"delivery"},
    "padded@legacy.test": set(),
    "books@legacy.test": {"accounts"},
    "roleless@legacy.test": set(),
    "longest@legacy.test": {"finishing"},
}
# Relative to EXISTING_USERS: Pat gains finishing; Dee and Ada gain nothing.
USERS_UPDATED = {"pat@shop.test"}
USERS_UNCHANGED = {"dee@shop.test", "ada@shop.test"}

# Step operators by name: legacy user ids, and the Pressroom user a worked task names.
OPERATORS: dict[str, int] = {
    "pat": 1,
    "dee": 2,
    "printer": 9,
    "finisher": 10,
    "twin_a": 12,
    "twin": 13,
    "bad": 14,  # a legacy user excluded for BAD_EMAIL: not an importable operator
    "dispatch": 17,
    "gone": 900,  # deleted operators: no legacy.users row
    "gone2": 901,
    "bad_name": 21,  # a legacy user excluded for BAD_NAME: no importable operator either
}
PICKERS: dict[str, str] = {
    "pat": "pat@shop.test",
    "dee": "dee@shop.test",
    "printer": "printer@legacy.test",
    "finisher": "finisher@legacy.test",
    "twin_a": "twin@legacy.test",
    "twin": "twin@legacy.test",
    "dispatch": "dispatch@legacy.test",
    "system": SYSTEM_USER_EMAIL,  # the import's system user
}

# --- orders ---------------------------------------------------------------------------------

POOL = "<pool>"  # a customer name drawn from CUSTOMERS
CUSTOMERS = [
    "ACME",  # the shop's customer: matched, not created
    " acme ",
    "Globex",
    "globex",
    "  Initech  ",
    "Northwind Print Buyers",
    "Umbrella Corp",
]
A, S, C, P = "ACTIVE", "STARTED", "COMPLETED", "PENDING"
CANCELLED = "CANCELLED"

Step = tuple[str | None, str | None, str | None]  # step text, status, operator name


@dataclass(frozen=True)
class Pay:
    amount: int | None
    reason: Reason | None = None  # None: posted
    target: str = "self"  # self | missing (no such order) | null (order_id null)
    paid: bool = True  # paid_at set


@dataclass(frozen=True)
class Case:
    """One legacy order and what the import must make of it.

    Either `reason` (excluded), or `final` with `tasks` ({role: (status, picker)}: picker
    an operator name, "system" or None for a pending task). `gate` is set exactly for live
    (active in legacy) orders: whether the delivery task is available after the import;
    `opens_gate` whether the import itself opens it (an OPEN_GATE move).
    """

    name: str
    status: str | None
    steps: tuple[Step, ...] = ()
    reason: Reason | None = None
    final: str | None = None
    tasks: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    gate: bool | None = None
    opens_gate: bool = False
    unmapped: tuple[str | None, ...] = ()  # step texts kept in details.legacySteps
    items: str = "std"
    customer: str | None = POOL
    notes: str | None = POOL  # POOL: drawn from a few short ones
    # Formatted with id (this order's), cycle and prev (the group's previous order id).
    order_no: str | None = "L{id:07d}"
    created: bool = True
    flags: bool = True  # False: install/transport/repair all null
    timestamps: bool = True  # False: steps without started_at/finished_at
    reverse_rows: bool = False  # steps written in descending id order
    payments: tuple[Pay, ...] = ()

    @property
    def live(self) -> bool:
        return self.gate is not None


def _live(name: str, status: str, steps: tuple[Step, ...], tasks: dict, **kw: Any) -> Case:
    kw.setdefault("final", A)
    kw.setdefault("gate", False)
    return Case(name, status, steps, tasks=tasks, **kw)


def _out(
    name: str, status: str | None, reason: Reason, steps: tuple[Step, ...] = (), **kw: Any
) -> Case:
    return Case(name, status, steps, reason=reason, **kw)


R = Reason
PRINT_PENDING: tuple[Step, ...] = (("{print}", "pending", None),)

LIVE = [
    _live(
        "open_pending",
        "open",
        (("{print}", "pending", "pat"), ("{finishing}", "pending", None)),
        {"print": (P, None), "finishing": (P, None), "delivery": (P, None)},
        items="none",
        payments=(Pay(12_000),),
    ),
    _live(
        "in_production_started",
        "in_production",
        (
            ("{design}", "done", "dee"),
            ("{print}", "started", "pat"),
            ("{finishing}", "pending", None),
        ),
        {"design": (C, "dee"), "print": (S, "pat"), "finishing": (P, None), "delivery": (P, None)},
        payments=(Pay(5_000, paid=False), Pay(2_500)),
    ),
    _live(
        "gating_done_gate_opens",
        "in_production",
        (
            ("{design}", "pending", None),
            ("{print}", "done", "printer"),
            ("{finishing}", "done", "finisher"),
        ),
        {
            "design": (P, None),
            "print": (C, "printer"),
            "finishing": (C, "finisher"),
            "delivery": (P, None),
        },
        gate=True,
        opens_gate=True,
        items="big",
    ),
    _live(
        "no_gating_step_gate_opens",
        "open",
        (("{design}", "started", "dee"),),
        {"design": (S, "dee"), "delivery": (P, None)},
        gate=True,
        opens_gate=True,
    ),
    _live(
        "every_step_done_completes",
        "in_production",
        (
            ("{print}", "done", "pat"),
            ("{finishing}", "done", "twin"),
            ("{delivery}", "done", "dispatch"),
        ),
        {"print": (C, "pat"), "finishing": (C, "twin"), "delivery": (C, "dispatch")},
        final=C,
        gate=True,
        payments=(Pay(2_000_000_000),),
    ),
    _live(
        "production_done_delivery_added",
        "open",
        (("{print}", "done", "pat"), ("{finishing}", "done", "finisher")),
        {"print": (C, "pat"), "finishing": (C, "finisher"), "delivery": (P, None)},
        gate=True,
        opens_gate=True,
    ),
    _live(
        "mixed_case_step_names",
        "in_production",
        (
            ("{Print}", "started", "printer"),
            (" {FINISHING} ", "pending", None),
            ("{DELIVERY}", "pending", None),
        ),
        {"print": (S, "printer"), "finishing": (P, None), "delivery": (P, None)},
    ),
    _live(
        "status_upper_case",
        "OPEN",
        PRINT_PENDING,
        {"print": (P, None), "delivery": (P, None)},
    ),
    _live(
        "status_padded",
        " In_Production ",
        (("{design}", "done", "dee"), ("{print}", "pending", None)),
        {"design": (C, "dee"), "print": (P, None), "delivery": (P, None)},
    ),
    _live(
        "null_created_null_flags_zero_quote",
        "open",
        (("{print}", "started", "pat"),),
        {"print": (S, "pat"), "delivery": (P, None)},
        created=False,
        flags=False,
        timestamps=False,
        items="zero",
    ),
    _live(
        "twin_operator",
        "open",
        (("{finishing}", "started", "twin_a"),),
        {"finishing": (S, "twin_a"), "delivery": (P, None)},
    ),
    _live(
        "delivery_started_early",
        "in_production",
        (("{print}", "pending", None), ("{delivery}", "started", "dispatch")),
        {"print": (P, None), "delivery": (S, "dispatch")},
        gate=True,
    ),
    _live(
        "step_status_case",
        "open",
        (("{print}", " Started ", "pat"), ("{finishing}", "DONE", "finisher")),
        {"print": (S, "pat"), "finishing": (C, "finisher"), "delivery": (P, None)},
    ),
]

LIVE_EXCLUDED = [
    _out("no_steps", "open", R.NO_STEPS, payments=(Pay(3_000, R.PAYMENT_ORDER_EXCLUDED),)),
    _out(
        "generic_production",
        "in_production",
        R.GENERIC_PRODUCTION_STEP,
        (("{design}", "done", "dee"), ("Production", "pending", None)),
    ),
    _out(
        "generic_before_unknown",
        "open",
        R.GENERIC_PRODUCTION_STEP,
        (("production", "pending", None), ("laminate", "pending", None)),
    ),
    _out(
        "unknown_step",
        "open",
        R.UNKNOWN_STEP,
        (("{print}", "pending", None), ("laminate", "pending", None)),
    ),
    # Rows written in descending id order: the lower id (laminate) still decides.
    _out(
        "unknown_before_generic",
        "open",
        R.UNKNOWN_STEP,
        (("laminate", "pending", None), ("production", "pending", None)),
        reverse_rows=True,
    ),
    _out("sales_is_no_step", "open", R.UNKNOWN_STEP, (("{sales}", "done", "pat"),)),
    _out("null_step_name", "in_production", R.UNKNOWN_STEP, ((None, "pending", None),)),
    _out(
        "duplicate_step",
        "in_production",
        R.DUPLICATE_STEP,
        (("{print}", "done", "pat"), ("{print} ", "pending", None)),
    ),
    _out(
        "duplicate_before_status",
        "open",
        R.DUPLICATE_STEP,
        (("{print}", "pending", None), ("{PRINT}", "weird", None)),
    ),
    _out("unknown_step_status", "open", R.UNKNOWN_STEP_STATUS, (("{print}", "paused", "pat"),)),
    _out(
        "null_step_status",
        "in_production",
        R.UNKNOWN_STEP_STATUS,
        (("{design}", "done", "dee"), ("{finishing}", None, None)),
    ),
    _out("status_before_operator", "open", R.UNKNOWN_STEP_STATUS, (("{print}", "weird", "gone"),)),
    _out(
        "deleted_operator_started",
        "in_production",
        R.UNKNOWN_OPERATOR,
        (("{print}", "started", "gone"),),
    ),
    _out(
        "no_operator_started", "in_production", R.UNKNOWN_OPERATOR, (("{print}", "started", None),)
    ),
    _out("no_operator_done", "open", R.UNKNOWN_OPERATOR, (("{finishing}", "done", None),)),
    _out(
        "deleted_operator_pending", "open", R.UNKNOWN_OPERATOR, (("{print}", "pending", "gone2"),)
    ),
    _out(
        "bad_email_operator", "in_production", R.UNKNOWN_OPERATOR, (("{print}", "started", "bad"),)
    ),
    _out(
        "bad_name_operator",
        "in_production",
        R.UNKNOWN_OPERATOR,
        (("{print}", "started", "bad_name"),),
    ),
    _out(
        "operator_before_unknown_step",
        "in_production",
        R.UNKNOWN_OPERATOR,
        (("{print}", "started", "gone"), ("laminate", "pending", None)),
    ),
]

EVERY_ORDER_EXCLUDED = [
    _out(
        "null_status",
        None,
        R.UNKNOWN_STATUS,
        PRINT_PENDING,
        payments=(Pay(None, R.PAYMENT_ORDER_EXCLUDED),),
    ),
    _out("shipped_no_customer", "shipped", R.UNKNOWN_STATUS, customer=None),
    _out("blank_status", "  ", R.UNKNOWN_STATUS, PRINT_PENDING),
    _out("quote", "quote", R.QUOTE_ONLY),
    _out(
        "quote_before_customer_and_items",
        " Quote ",
        R.QUOTE_ONLY,
        customer=None,
        items="null_qty",
        payments=(Pay(0, R.PAYMENT_ORDER_EXCLUDED),),
    ),
    _out("null_customer", "done", R.MISSING_CUSTOMER, (("{print}", "done", "pat"),), customer=None),
    _out(
        "blank_customer_before_items_and_steps",
        "open",
        R.MISSING_CUSTOMER,
        customer="   ",
        items="neg_price",
    ),
    _out("null_qty", "done", R.BAD_LINE_ITEM, items="null_qty"),
    _out("null_price", "cancelled", R.BAD_LINE_ITEM, items="null_price"),
    _out(
        "negative_price_before_steps",
        "open",
        R.BAD_LINE_ITEM,
        (("production", "pending", None),),
        items="neg_price",
    ),
    _out("negative_qty_before_no_steps", "in_production", R.BAD_LINE_ITEM, items="neg_qty"),
    # Values the API would refuse: excluded whatever the order's status.
    _out("number_too_long", "done", R.BAD_ORDER_NUMBER, order_no="N{id:040d}"),
    _out(
        "number_bad_format",
        "open",
        R.BAD_ORDER_NUMBER,
        PRINT_PENDING,
        order_no="L {id}",
        payments=(Pay(2_000, R.PAYMENT_ORDER_EXCLUDED),),
    ),
    _out("number_formula", "cancelled", R.BAD_ORDER_NUMBER, order_no="=2+{id}"),
    _out(
        "customer_too_long",
        "done",
        R.BAD_CUSTOMER_NAME,
        (("{print}", "done", "pat"),),
        customer="Customer " * 23,
    ),
    _out(
        "customer_too_long_before_items",
        "open",
        R.BAD_CUSTOMER_NAME,
        customer="C" * 201,
        items="neg_qty",
    ),
    _out("notes_too_big", "cancelled", R.BAD_DETAILS, notes="Deliver to the back door. " * 700),
    _out(
        "items_too_big_before_steps",
        "in_production",
        R.BAD_DETAILS,
        (("production", "pending", None),),
        items="huge",
    ),
    _out("unmapped_steps_too_big", "done", R.BAD_DETAILS, (("laminate " * 2_000, "done", None),)),
]

HISTORY = [
    Case(
        "done_clean",
        "done",
        (
            ("{design}", "done", "dee"),
            ("{print}", "done", "pat"),
            ("{finishing}", "done", "finisher"),
            ("{delivery}", "done", "dispatch"),
        ),
        final=C,
        tasks={
            "design": (C, "dee"),
            "print": (C, "pat"),
            "finishing": (C, "finisher"),
            "delivery": (C, "dispatch"),
        },
        payments=(
            Pay(5_000),
            Pay(7_000, paid=False),
            Pay(-500, R.BAD_PAYMENT_AMOUNT),
            Pay(None, R.BAD_PAYMENT_AMOUNT),
            Pay(4_000, R.PAYMENT_ORDER_MISSING, target="missing"),
            Pay(4_000, R.PAYMENT_ORDER_MISSING, target="null"),
            Pay(None, R.PAYMENT_ORDER_MISSING, target="missing"),
        ),
    ),
    Case(
        "done_padded_status_unworked_steps",
        " Done",
        (("{print}", "pending", None), ("{finishing}", "started", "gone")),
        final=C,
        tasks={"print": (C, "system"), "finishing": (C, "system"), "delivery": (C, "system")},
    ),
    Case(
        "done_pending_step_with_operator",
        "DONE",
        (("{print}", "pending", "pat"),),
        final=C,
        tasks={"print": (C, "pat"), "delivery": (C, "system")},
    ),
    Case(
        "done_unmapped_steps",
        "done",
        (
            ("production", "done", "pat"),
            ("laminate", "done", None),
            (None, "done", None),
            ("{print}", "done", "printer"),
            ("{sales}", "done", None),
        ),
        final=C,
        tasks={"print": (C, "printer"), "delivery": (C, "system")},
        unmapped=("production", "laminate", None, "{sales}"),
    ),
    Case(
        "done_duplicate_steps_last_wins",
        "done",
        (("{print}", "done", "pat"), ("{Print}", "done", "printer")),
        final=C,
        tasks={"print": (C, "printer"), "delivery": (C, "system")},
    ),
    Case(
        "done_no_steps",
        "done",
        final=C,
        tasks={"delivery": (C, "system")},
        payments=(Pay(0, R.BAD_PAYMENT_AMOUNT),),
    ),
    Case(
        "done_odd_step_statuses",
        "done",
        (("{print}", "weird", "pat"), ("{finishing}", None, None)),
        final=C,
        tasks={"print": (C, "pat"), "finishing": (C, "system"), "delivery": (C, "system")},
    ),
    Case(
        "done_bad_email_operator",
        "done",
        (("{print}", "done", "bad"),),
        final=C,
        tasks={"print": (C, "system"), "delivery": (C, "system")},
    ),
    Case(
        "done_null_created_null_times",
        "done",
        (("{print}", "done", "pat"),),
        final=C,
        tasks={"print": (C, "pat"), "delivery": (C, "system")},
        created=False,
        flags=False,
        timestamps=False,
        items="none",
    ),
    Case(
        "done_mixed_case_steps",
        "done",
        (("{Print}", "done", "pat"), (" {FINISHING} ", "done", "finisher")),
        final=C,
        tasks={"print": (C, "pat"), "finishing": (C, "finisher"), "delivery": (C, "system")},
        items="big",
    ),
    Case(
        "cancelled_with_done_steps",
        "cancelled",
        (("{design}", "done", "dee"), ("{print}", "done", "pat"), ("{finishing}", "pending", None)),
        final=CANCELLED,
        tasks={
            "design": (C, "dee"),
            "print": (C, "pat"),
            "finishing": (P, None),
            "delivery": (P, None),
        },
        payments=(Pay(1_000),),
    ),
    Case(
        "cancelled_started_become_pending",
        "cancelled",
        (("{print}", "started", "pat"), ("{finishing}", "started", None)),
        final=CANCELLED,
        tasks={"print": (P, None), "finishing": (P, None), "delivery": (P, None)},
    ),
    Case(
        "cancelled_last_step_wins",
        "Cancelled",
        (("{print}", "done", "pat"), ("{print}", "pending", None)),
        final=CANCELLED,
        tasks={"print": (P, None), "delivery": (P, None)},
    ),
    Case(
        "cancelled_no_steps",
        "CANCELLED",
        final=CANCELLED,
        tasks={"delivery": (P, None)},
    ),
    Case(
        "cancelled_delivered",
        "cancelled",
        (("{print}", "done", "pat"), ("{delivery}", "done", "dispatch")),
        final=CANCELLED,
        tasks={"print": (C, "pat"), "delivery": (C, "dispatch")},
    ),
    Case(
        "cancelled_unmapped_steps",
        "cancelled",
        (
            ("production", "started", None),
            ("{finishing}", "done", "finisher"),
            ("laminate", "weird", None),
        ),
        final=CANCELLED,
        tasks={"finishing": (C, "finisher"), "delivery": (P, None)},
        unmapped=("production", "laminate"),
    ),
    Case(
        "done_bad_name_operator",
        "done",
        (("{print}", "done", "bad_name"),),
        final=C,
        tasks={"print": (C, "system"), "delivery": (C, "system")},
    ),
    # The longest number (40) and customer name (200) the API takes.
    Case(
        "done_longest_number_and_customer",
        "done",
        final=C,
        tasks={"delivery": (C, "system")},
        order_no="M{id:039d}",
        customer="Big " * 49 + "Shop",
    ),
    Case(
        "cancelled_deleted_operator",
        "cancelled",
        (("{print}", "done", "gone"),),
        final=CANCELLED,
        tasks={"print": (C, "system"), "delivery": (P, None)},
    ),
]

# The four characters that start a formula, in the numbers of the `formula_*` cases.
FORMULA_NUMBERS = {
    "eq": "=1+{cycle}",
    "plus": "+1+{cycle}",
    "minus": "-1-{cycle}",
    "at": "@SUM({cycle})",
}

NUMBERS = [
    # Two orders share a number (one padded with spaces): both excluded.
    (
        Case(
            "duplicate_pair_a",
            "open",
            PRINT_PENDING,
            reason=R.DUPLICATE_ORDER_NUMBER,
            order_no="D{cycle}-A",
            payments=(Pay(1_500, R.PAYMENT_ORDER_EXCLUDED),),
        ),
        Case("duplicate_pair_b", "done", reason=R.DUPLICATE_ORDER_NUMBER, order_no=" D{cycle}-A "),
    ),
    # The quote is a quote first; its twin is still a duplicate.
    (
        Case("duplicate_quote", "quote", reason=R.QUOTE_ONLY, order_no="D{cycle}-Q"),
        Case("duplicate_of_quote", "done", reason=R.DUPLICATE_ORDER_NUMBER, order_no="D{cycle}-Q"),
    ),
    # The unknown status first; its twin's number comes before its missing customer.
    (
        Case("duplicate_unknown_status", "shipped", reason=R.UNKNOWN_STATUS, order_no="D{cycle}-S"),
        Case(
            "duplicate_before_customer",
            "cancelled",
            reason=R.DUPLICATE_ORDER_NUMBER,
            order_no="D{cycle}-S",
            customer=None,
        ),
    ),
    # A missing number becomes LEGACY-<id>, which another order already uses.
    (
        Case("null_number_taken_by_other", "done", reason=R.DUPLICATE_ORDER_NUMBER, order_no=None),
        Case(
            "number_is_legacy_of_other",
            "open",
            PRINT_PENDING,
            reason=R.DUPLICATE_ORDER_NUMBER,
            order_no="LEGACY-{prev}",
        ),
    ),
    (
        Case(
            "null_number",
            "done",
            (("{print}", "done", "pat"),),
            final=C,
            tasks={"print": (C, "pat"), "delivery": (C, "system")},
            order_no=None,
        ),
    ),
    (
        Case(
            "padded_number",
            "cancelled",
            final=CANCELLED,
            tasks={"delivery": (P, None)},
            order_no="  P{id:07d}  ",
        ),
    ),
    (
        _live(
            "blank_number",
            "open",
            PRINT_PENDING,
            {"print": (P, None), "delivery": (P, None)},
            order_no="   ",
        ),
    ),
    # Numbers a spreadsheet would run as formulas, each shared by two orders: excluded as
    # duplicates, so the report lists them (and its detail starts with the number).
    *(
        (
            Case(
                f"formula_{name}_a",
                "done",
                reason=R.DUPLICATE_ORDER_NUMBER,
                order_no=number,
                payments=(Pay(1_000, R.PAYMENT_ORDER_EXCLUDED),),
            ),
            Case(
                f"formula_{name}_b",
                "open",
                PRINT_PENDING,
                reason=R.DUPLICATE_ORDER_NUMBER,
                order_no=number,
            ),
        )
        for name, number in FORMULA_NUMBERS.items()
    ),
]

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
