"""The legacy import against a generated legacy database whose outcome is known case by
case (samples/legacy_data.py): counts, the rows written, the CSV report, re-running, the
dry run and the command line.

The target is the `shop` fixture's database, plus one work order made in Pressroom whose
number a legacy order also claims (`TAKEN`).
"""

import asyncio
import csv
import os
import subprocess
import sys
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from domain.enums import WorkOrderAction
from domain.legacy import IMPORT_REASON, SYSTEM_USER_EMAIL
from domain.transitions import by_system
from pressroom.legacy_import import REPORT_COLUMNS, import_legacy, write_report
from samples.legacy_data import Expected, build_legacy
from tests.support.database import scratch_database, table_snapshot
from tests.support.shop import Shop

ROOT = Path(__file__).resolve().parents[2]
ORDERS = 400
TAKEN = "TAKEN-1"


@pytest.fixture(scope="module")
async def source_db(server_url: str) -> AsyncIterator[tuple[str, Expected]]:
    """The legacy database and its known outcome, built once: the import only reads it."""
    async with scratch_database(server_url, "pressroom_legacy") as url:
        yield url, await build_legacy(url, orders=ORDERS, taken_numbers=(TAKEN,))


@dataclass
class Legacy:
    url: str
    expected: Expected
    shop: Shop
    target: str


@pytest.fixture
async def legacy(source_db: tuple[str, Expected], shop: Shop, database_url: str) -> Legacy:
    await shop.order(["print"], order_number=TAKEN)
    url, expected = source_db
    return Legacy(url, expected, shop, database_url)


def counts(summary: Any) -> dict[str, Any]:
    return {
        "orders_imported": summary.orders_imported,
        "orders_already": summary.orders_already,
        "orders_excluded": Counter(summary.orders_excluded),
        "payments_posted": summary.payments_posted,
        "payments_already": summary.payments_already,
        "payments_excluded": Counter(summary.payments_excluded),
        "users_created": summary.users_created,
        "users_updated": summary.users_updated,
        "users_unchanged": summary.users_unchanged,
        "users_excluded": Counter(summary.users_excluded),
        "customers_created": summary.customers_created,
    }


def first_run(e: Expected) -> dict[str, Any]:
    """What the first import into the shop reports."""
    return {
        "orders_imported": e.orders_imported,
        "orders_already": 0,
        "orders_excluded": e.orders_excluded,
        "payments_posted": e.payments_posted,
        "payments_already": 0,
        "payments_excluded": e.payments_excluded,
        "users_created": e.users_created,
        "users_updated": e.users_updated,
        "users_unchanged": e.users_unchanged,
        "users_excluded": e.users_excluded,
        "customers_created": e.customers_created,
    }


def exclusion_map(summary: Any) -> dict[tuple[str, int], str]:
    return {(x.record.value, x.legacy_id): x.reason.value for x in summary.exclusions}


async def rows(legacy: Legacy, sql: str) -> list[Any]:
    async with legacy.shop.engine.connect() as conn:
        return list(await conn.execute(text(sql)))


ORDERS_SQL = """
SELECT w.legacy_id, w.order_number, w.status, w.quote_minor, w.quote_currency,
       lower(trim(c.name)) AS customer, w.needs_installation, w.needs_transport,
       w.needs_repair, w.details, lower(u.email) AS created_by
FROM work_orders w
JOIN customers c ON c.id = w.customer_id
LEFT JOIN users u ON u.id = w.created_by
WHERE w.legacy_id IS NOT NULL
"""
TASKS_SQL = """
SELECT w.legacy_id, d.code, t.status, lower(u.email) AS picker, t.available_at
FROM department_tasks t
JOIN work_orders w ON w.id = t.work_order_id
JOIN departments d ON d.id = t.department_id
LEFT JOIN users u ON u.id = t.picked_up_by
WHERE w.legacy_id IS NOT NULL
"""
ORDER_MOVES_SQL = """
SELECT w.legacy_id, h.action, h.reason, lower(u.email) AS actor
FROM work_order_transitions h
JOIN work_orders w ON w.id = h.work_order_id
LEFT JOIN users u ON u.id = h.actor_id
WHERE w.legacy_id IS NOT NULL
ORDER BY h.id
"""
TASK_MOVES_SQL = """
SELECT w.legacy_id, d.code, h.from_status, h.to_status, h.action, h.reason,
       lower(u.email) AS actor
FROM task_transitions h
JOIN department_tasks t ON t.id = h.task_id
JOIN work_orders w ON w.id = t.work_order_id
JOIN departments d ON d.id = t.department_id
LEFT JOIN users u ON u.id = h.actor_id
WHERE w.legacy_id IS NOT NULL
"""
USERS_SQL = """
SELECT lower(u.email) AS email, u.is_admin, u.is_active, u.password_hash,
       array_remove(array_agg(d.code ORDER BY d.code), NULL) AS codes
FROM users u
LEFT JOIN user_departments ud ON ud.user_id = u.id
LEFT JOIN departments d ON d.id = ud.department_id
GROUP BY u.id
"""
LEDGER_SQL = """
SELECT e.idempotency_key, e.kind, e.amount_minor, e.currency, w.legacy_id,
       e.customer_id = w.customer_id AS same_customer, lower(u.email) AS posted_by
FROM customer_ledger_entries e
LEFT JOIN work_orders w ON w.id = e.work_order_id
JOIN users u ON u.id = e.posted_by
"""
EVENTS_SQL = """
SELECT e.type, w.legacy_id
FROM events e
JOIN work_orders w ON w.id = e.work_order_id
WHERE w.legacy_id IS NOT NULL
"""


async def test_the_import_does_what_each_generated_case_says(legacy: Legacy) -> None:
    e = legacy.expected
    summary = await import_legacy(legacy.url, legacy.target)

    assert counts(summary) == first_run(e)
    assert exclusion_map(summary) == e.exclusions
    # The case mix is what the tests rely on: every kind of order is there, several times.
    assert e.orders == ORDERS + 1 and e.cases["taken_number"] == 1
    assert all(n >= 2 for name, n in e.cases.items() if name != "taken_number")
    assert len(e.orders_excluded) == 14 and e.live and e.legacy_steps_by_legacy_id

    # Work orders: one per imported legacy order, as the case says.
    orders = {r.legacy_id: r for r in await rows(legacy, ORDERS_SQL)}
    assert set(orders) == set(e.status_by_legacy_id)
    assert {i: r.status for i, r in orders.items()} == e.status_by_legacy_id
    assert {i: r.quote_minor for i, r in orders.items()} == e.quote_by_legacy_id
    assert all((r.quote_currency == "EUR") == (r.quote_minor is not None) for r in orders.values())
    assert {i: r.order_number for i, r in orders.items()} == {
        i: e.number_by_legacy_id[i] for i in orders
    }
    assert {i: r.customer for i, r in orders.items()} == e.customer_by_legacy_id
    assert {
        i: (r.needs_installation, r.needs_transport, r.needs_repair) for i, r in orders.items()
    } == e.flags_by_legacy_id
    assert {i: r.details["legacyId"] for i, r in orders.items()} == {i: i for i in orders}
    assert {
        i: [s["step"] for s in r.details["legacySteps"]]
        for i, r in orders.items()
        if "legacySteps" in r.details
    } == e.legacy_steps_by_legacy_id
    assert {r.created_by for r in orders.values()} == {SYSTEM_USER_EMAIL}

    # Tasks: status and who picked each up (the system user where no operator is known).
    tasks: dict[int, dict[str, tuple[str, str | None]]] = {}
    delivery_open: dict[int, bool] = {}
    for r in await rows(legacy, TASKS_SQL):
        tasks.setdefault(r.legacy_id, {})[r.code] = (r.status, r.picker)
        if r.code == "delivery" and r.legacy_id in e.live:
            delivery_open[r.legacy_id] = r.available_at is not None
    assert tasks == e.tasks_by_legacy_id
    assert delivery_open == e.delivery_open

    # History: with the import's reason, written by the import's system user but for the
    # system's own moves (a gate, a completion), which name no one.
    moves: dict[int, list[str]] = {i: [] for i in orders}
    for r in await rows(legacy, ORDER_MOVES_SQL):
        by = None if by_system(WorkOrderAction(r.action)) else SYSTEM_USER_EMAIL
        assert (r.reason, r.actor) == (IMPORT_REASON, by)
        moves[r.legacy_id].append(r.action)
    assert moves == e.moves_by_legacy_id
    task_moves = await rows(legacy, TASK_MOVES_SQL)
    assert len(task_moves) == e.worked_task_count
    for r in task_moves:
        assert (r.reason, r.actor) == (IMPORT_REASON, SYSTEM_USER_EMAIL)
        assert r.from_status == "PENDING"
        assert r.to_status == e.tasks_by_legacy_id[r.legacy_id][r.code][0]
        assert r.action == {"STARTED": "START", "COMPLETED": "OVERRIDE_COMPLETE"}[r.to_status]

    # People: admins and workers as the legacy flags say (a manager role alone is no
    # admin), memberships from department texts and roles, no passwords.
    users = {r.email: r for r in await rows(legacy, USERS_SQL)}
    assert len(users) == len(legacy.shop.users) + e.users_created + 1  # + the system user
    assert {u for u in e.admins if users[u].is_admin} == e.admins
    assert {u for u in e.workers if not users[u].is_admin} == e.workers
    for email, codes in e.memberships.items():
        if email in e.existing_users:
            assert codes <= set(users[email].codes), email
        else:
            assert set(users[email].codes) == codes, email
            assert users[email].password_hash is None and users[email].is_active, email
    system = users[SYSTEM_USER_EMAIL]
    assert (system.is_active, system.is_admin, system.password_hash) == (False, False, None)

    # Customers: matched by name in any case (ACME), or made once.
    customers = await rows(legacy, "SELECT lower(trim(name)) AS name FROM customers")
    assert Counter(r.name for r in customers) == Counter(e.customers)

    # Payments: PAYMENT entries against their order, by their idempotency key.
    ledger = await rows(legacy, LEDGER_SQL)
    assert {r.idempotency_key: (r.legacy_id, r.amount_minor) for r in ledger} == {
        f"legacy-payment:{p}": v for p, v in e.posted_payments.items()
    }
    assert {(r.kind, r.currency, r.same_customer, r.posted_by) for r in ledger} == {
        ("PAYMENT", "EUR", True, SYSTEM_USER_EMAIL)
    }
    assert all(r.amount_minor < 0 for r in ledger)

    # Events: only live orders announce themselves (their order and every task).
    events = await rows(legacy, EVENTS_SQL)
    assert {r.legacy_id for r in events} == e.live
    assert Counter(r.type for r in events) == {
        "WORK_ORDER_CREATED": len(e.live),
        "TASK_CREATED": e.live_task_count,
    }
    per_order = Counter((r.legacy_id, r.type) for r in events if r.type == "TASK_CREATED")
    assert per_order == {(i, "TASK_CREATED"): len(e.tasks_by_legacy_id[i]) for i in e.live}


# Generated cases whose values the API would refuse: (record, case or legacy user id) ->
# the reason, and what the detail says (the API rule's own message).
REFUSED: dict[tuple[str, str | int], tuple[str, str]] = {
    ("order", "number_too_long"): ("BAD_ORDER_NUMBER", "An order number is 1 to 40 letters"),
    ("order", "number_bad_format"): ("BAD_ORDER_NUMBER", "An order number is 1 to 40 letters"),
    ("order", "number_formula"): ("BAD_ORDER_NUMBER", "beginning with a letter or digit"),
    ("order", "customer_too_long"): (
        "BAD_CUSTOMER_NAME",
        "Shorten the customer name to at most 200 characters.",
    ),
    ("order", "customer_too_long_before_items"): ("BAD_CUSTOMER_NAME", "at most 200 characters"),
    ("order", "notes_too_big"): (
        "BAD_DETAILS",
        "Shorten the job details to at most 16384 bytes. They would hold the notes, line items",
    ),
    ("order", "items_too_big_before_steps"): ("BAD_DETAILS", "at most 16384 bytes"),
    ("order", "unmapped_steps_too_big"): ("BAD_DETAILS", "at most 16384 bytes"),
    ("user", 21): ("BAD_NAME", "Shorten the name to at most 200 characters."),
    ("user", 22): ("BAD_NAME", "Shorten the name to at most 200 characters."),
}


async def test_values_the_api_would_refuse_are_excluded_with_its_rule(
    legacy: Legacy, tmp_path: Path
) -> None:
    e = legacy.expected
    summary = await import_legacy(legacy.url, legacy.target)
    report = tmp_path / "exclusions.csv"
    write_report(report, summary.exclusions)

    with report.open(newline="") as f:
        listed = {(r["record"], int(r["legacy_id"])): r for r in csv.DictReader(f)}
    seen: Counter[tuple[str, str | int]] = Counter()
    for (record, legacy_id), row in listed.items():
        key: tuple[str, str | int] = (
            (record, e.case_by_legacy_id[legacy_id]) if record == "order" else (record, legacy_id)
        )
        if key in REFUSED:
            reason, says = REFUSED[key]
            assert (row["reason"], row["order_number"]) == (
                reason,
                shown(e.number_by_legacy_id[legacy_id]) if record == "order" else "",
            ), row
            assert says in row["detail"], row
            seen[key] += 1
    # Every case, several times (users once each); and the summary counts them by reason.
    assert set(seen) == set(REFUSED)
    for reason, cases in [("BAD_ORDER_NUMBER", 3), ("BAD_CUSTOMER_NAME", 2), ("BAD_DETAILS", 3)]:
        assert summary.orders_excluded[reason] == e.orders_excluded[reason] >= 2 * cases
    assert summary.users_excluded["BAD_NAME"] == 2
    # The longest number and customer name the API takes come over whole.
    longest = await rows(
        legacy,
        "SELECT w.order_number, c.name FROM work_orders w JOIN customers c ON c.id = w.customer_id"
        " WHERE length(w.order_number) = 40",
    )
    assert longest and {(len(r.order_number), r.name) for r in longest} == {
        (40, "Big " * 49 + "Shop")
    }
    names = await rows(legacy, "SELECT name FROM users WHERE email = 'longest@legacy.test'")
    assert [r.name for r in names] == ["Lo" * 100]


async def test_the_report_lists_every_exclusion(legacy: Legacy, tmp_path: Path) -> None:
    e = legacy.expected
    summary = await import_legacy(legacy.url, legacy.target)
    report = tmp_path / "exclusions.csv"
    write_report(report, summary.exclusions)

    with report.open(newline="") as f:
        reader = csv.DictReader(f)
        listed = list(reader)
    assert reader.fieldnames == list(REPORT_COLUMNS)
    assert REPORT_COLUMNS == ("record", "legacy_id", "order_number", "reason", "detail")
    assert len(listed) == len(summary.exclusions) == len(e.exclusions)
    assert {(r["record"], int(r["legacy_id"])): r["reason"] for r in listed} == e.exclusions
    for r in listed:
        assert r["detail"].strip(), r
        if r["record"] == "order":
            assert r["order_number"] == shown(e.number_by_legacy_id[int(r["legacy_id"])]), r
        elif r["record"] == "payment":
            # A payment names its order's number, unless there is no such order.
            assert (r["order_number"] == "") == (r["reason"] == "PAYMENT_ORDER_MISSING"), r
        else:
            assert r["order_number"] == "", r


# A spreadsheet runs a cell that starts with one of these as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def shown(text: str) -> str:
    """A text cell as the report writes it: a formula's start behind a quote."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


async def test_the_report_shows_formulas_as_text(legacy: Legacy, tmp_path: Path) -> None:
    e = legacy.expected
    summary = await import_legacy(legacy.url, legacy.target)
    report = tmp_path / "exclusions.csv"
    write_report(report, summary.exclusions)

    with report.open(newline="") as f:
        _, *listed = list(csv.reader(f))
    assert not [cell for row in listed for cell in row if cell.startswith(FORMULA_STARTS)]
    formulas = {
        i: n
        for i, n in e.number_by_legacy_id.items()
        if e.case_by_legacy_id[i].startswith("formula_")
    }
    assert {n[0] for n in formulas.values()} == {"=", "+", "-", "@"}
    orders = {int(r[1]): r for r in listed if r[0] == "order"}
    for i, number in formulas.items():
        assert orders[i][2:] == [
            f"'{number}",
            "DUPLICATE_ORDER_NUMBER",
            f"'{number} is used by other legacy orders",
        ]
    # A payment of such an order names its number the same way.
    paid = [r[2] for r in listed if r[0] == "payment" and r[2][1:] in formulas.values()]
    assert paid and all(cell.startswith("'") for cell in paid)


async def test_running_it_again_changes_nothing(legacy: Legacy) -> None:
    e = legacy.expected
    first = await import_legacy(legacy.url, legacy.target)
    assert counts(first) == first_run(e)
    before = await table_snapshot(legacy.shop.engine)

    second = await import_legacy(legacy.url, legacy.target)

    assert await table_snapshot(legacy.shop.engine) == before
    assert counts(second) == {
        "orders_imported": 0,
        "orders_already": e.orders_imported,
        "orders_excluded": e.orders_excluded,
        "payments_posted": 0,
        "payments_already": e.payments_posted,
        "payments_excluded": e.payments_excluded,
        "users_created": 0,
        "users_updated": 0,
        "users_unchanged": e.users_created + e.users_updated + e.users_unchanged,
        "users_excluded": e.users_excluded,
        "customers_created": 0,
    }
    assert exclusion_map(second) == e.exclusions


async def test_a_dry_run_reports_the_same_and_writes_nothing(legacy: Legacy) -> None:
    e = legacy.expected
    before = await table_snapshot(legacy.shop.engine)

    dry = await import_legacy(legacy.url, legacy.target, dry_run=True)

    assert await table_snapshot(legacy.shop.engine) == before
    assert counts(dry) == first_run(e)
    assert exclusion_map(dry) == e.exclusions
    real = await import_legacy(legacy.url, legacy.target)
    assert counts(real) == counts(dry)
    assert exclusion_map(real) == exclusion_map(dry)


def summary_rows(output: str) -> dict[tuple[str, str], int]:
    """The summary table the command prints: (record, outcome) -> count. A row is
    `│ record │ outcome │ count │`, the record only on the first row of its group."""
    found: dict[tuple[str, str], int] = {}
    record = ""
    for line in output.splitlines():
        cells = [c.strip() for c in line.replace("|", "│").split("│")]
        if len(cells) != 5 or not cells[3].isdigit():
            continue
        record = cells[1] or record
        found[(record, cells[2])] = int(cells[3])
    return found


async def test_the_command_imports_and_reports(legacy: Legacy, tmp_path: Path) -> None:
    e = legacy.expected
    report = tmp_path / "report.csv"
    env = {**os.environ, "DATABASE_URL": legacy.target, "COLUMNS": "200"}
    env["PYTHONIOENCODING"] = "utf-8"
    args = ["import-legacy", "--source-url", legacy.url, "--report", str(report)]
    result = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "pressroom.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr

    shown = summary_rows(result.stdout)
    assert shown[("orders", "imported")] == e.orders_imported
    assert shown[("orders", "already imported")] == 0
    assert shown[("payments", "imported")] == e.payments_posted
    assert shown[("users", "imported: new")] == e.users_created
    assert shown[("users", "imported: updated")] == e.users_updated
    assert shown[("customers", "imported: new")] == e.customers_created
    excluded = {k: n for k, n in shown.items() if k[1].startswith("excluded: ")}
    assert excluded == {
        (record, f"excluded: {reason}"): n
        for record, counter in [
            ("orders", e.orders_excluded),
            ("payments", e.payments_excluded),
            ("users", e.users_excluded),
        ]
        for reason, n in counter.items()
    }
    assert f"Exclusion report ({len(e.exclusions)} rows)" in result.stdout

    with report.open(newline="") as f:
        listed = list(csv.DictReader(f))
    assert {(r["record"], int(r["legacy_id"])): r["reason"] for r in listed} == e.exclusions
    imported = await rows(legacy, "SELECT legacy_id FROM work_orders WHERE legacy_id IS NOT NULL")
    assert {r.legacy_id for r in imported} == set(e.status_by_legacy_id)
