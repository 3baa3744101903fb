"""Routing: departments follow others, every gate moves by one rule; orders can be
corrected (their new history kinds), a task removed from its order (REMOVED, kept);
customers get a contact and an address.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql as pg

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ACTIONS_BEFORE = (
    "COMPLETE",
    "REACTIVATE",
    "CANCEL",
    "OPEN_GATE",
    "CLOSE_GATE",
    "QUOTE_CHANGED",
    "SCHEDULE_CHANGED",
    "HELD",
    "RESUMED",
)
ACTIONS = (*ACTIONS_BEFORE, "DETAILS_CHANGED", "DEPARTMENT_ADDED", "DEPARTMENT_REMOVED")
TYPES_BEFORE = (
    "TASK_CREATED",
    "TASK_CHANGED",
    "TASK_WITHDRAWN",
    "TASK_REQUEUED",
    "DELIVERY_GATE_OPENED",
    "DELIVERY_GATE_CLOSED",
    "WORK_ORDER_CREATED",
    "WORK_ORDER_CHANGED",
    "TOKEN_REVOKED",
    "LEDGER_ENTRY_POSTED",
    "USER_ACCESS_CHANGED",
    "WORK_ORDER_DUE_SOON",
    "WORK_ORDER_LATE",
    "TASK_STALE",
)
TYPES = (*TYPES_BEFORE[:4], "TASK_GATE_OPENED", "TASK_GATE_CLOSED", *TYPES_BEFORE[4:])
STATUSES_BEFORE = ("PENDING", "STARTED", "COMPLETED")
STATUSES = (*STATUSES_BEFORE, "REMOVED")
TASK_ACTIONS_BEFORE = ("START", "FINISH", "RELEASE", "OVERRIDE_COMPLETE", "REOPEN")
TASK_ACTIONS = (*TASK_ACTIONS_BEFORE, "REMOVE")


def _one_of(column: str, values: Sequence[str]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def _replace_check(table: str, name: str, condition: str) -> None:
    op.drop_constraint(op.f(f"ck_{table}_{name}"), table, type_="check")
    op.create_check_constraint(op.f(f"ck_{table}_{name}"), table, condition)


def _rewriting(table: str, statement: str) -> None:
    """A statement run on an append-only table by the owner, the trigger held off."""
    op.execute(f"ALTER TABLE {table} DISABLE TRIGGER {table}_append_only")
    op.execute(statement)
    op.execute(f"ALTER TABLE {table} ENABLE TRIGGER {table}_append_only")


def upgrade() -> None:
    op.add_column(
        "departments",
        sa.Column(
            "follows", pg.ARRAY(sa.BigInteger()), server_default=sa.text("'{}'"), nullable=False
        ),
    )
    op.add_column(
        "work_order_transitions",
        sa.Column("department_id", sa.BigInteger(), sa.ForeignKey("departments.id"), nullable=True),
    )
    # Every gate so far was the delivery task's.
    _rewriting(
        "work_order_transitions",
        "UPDATE work_order_transitions SET department_id = "
        "(SELECT id FROM departments WHERE kind = 'DELIVERY') "
        "WHERE action IN ('OPEN_GATE', 'CLOSE_GATE')",
    )
    _replace_check("work_order_transitions", "action", _one_of("action", ACTIONS))
    _replace_check("events", "type", _one_of("type", TYPES))
    _task_states(STATUSES, TASK_ACTIONS)
    # One task per department on an order, but for removed ones: a department removed can
    # be added again.
    op.drop_constraint(
        "uq_department_tasks_work_order_id_department_id", "department_tasks", type_="unique"
    )
    op.create_index(
        "ix_department_tasks_work_order_id", "department_tasks", ["work_order_id", "department_id"]
    )
    op.create_index(
        "uq_department_tasks_one_per_department",
        "department_tasks",
        ["work_order_id", "department_id"],
        unique=True,
        postgresql_where=sa.text("status <> 'REMOVED'"),
    )
    for column in CUSTOMER_TEXTS[:3]:
        op.add_column("customers", sa.Column(column, sa.Text(), nullable=True))
    op.add_column(
        "customers",
        sa.Column(
            "address_lines", pg.ARRAY(sa.Text()), server_default=sa.text("'{}'"), nullable=False
        ),
    )
    for column in CUSTOMER_TEXTS[3:]:
        op.add_column("customers", sa.Column(column, sa.Text(), nullable=True))


CUSTOMER_TEXTS = ("contact_name", "email", "phone", "postcode", "city", "country", "notes")


def _task_states(statuses: Sequence[str], actions: Sequence[str]) -> None:
    _replace_check("department_tasks", "status", _one_of("status", statuses))
    for column in ("from_status", "to_status"):
        _replace_check("task_transitions", column, _one_of(column, statuses))
    _replace_check("task_transitions", "action", _one_of("action", actions))


def downgrade() -> None:
    # The older schema cannot say "removed": rather than lose those tasks' history, refuse.
    op.execute(
        "DO $$ BEGIN IF EXISTS (SELECT 1 FROM department_tasks WHERE status = 'REMOVED') THEN "
        "RAISE EXCEPTION 'removed tasks exist: revision 0008 cannot hold them'; END IF; END $$"
    )
    for column in (*CUSTOMER_TEXTS, "address_lines"):
        op.drop_column("customers", column)
    op.drop_index("uq_department_tasks_one_per_department", "department_tasks")
    op.drop_index("ix_department_tasks_work_order_id", "department_tasks")
    op.create_unique_constraint(
        "uq_department_tasks_work_order_id_department_id",
        "department_tasks",
        ["work_order_id", "department_id"],
    )
    _task_states(STATUSES_BEFORE, TASK_ACTIONS_BEFORE)
    _rewriting("events", f"DELETE FROM events WHERE NOT ({_one_of('type', TYPES_BEFORE)})")
    _replace_check("events", "type", _one_of("type", TYPES_BEFORE))
    # The older schema has one gate per order: the production tasks' gate rows go.
    _rewriting(
        "work_order_transitions",
        f"DELETE FROM work_order_transitions WHERE NOT ({_one_of('action', ACTIONS_BEFORE)}) "
        "OR (action IN ('OPEN_GATE', 'CLOSE_GATE') AND department_id <> "
        "(SELECT id FROM departments WHERE kind = 'DELIVERY'))",
    )
    _replace_check("work_order_transitions", "action", _one_of("action", ACTIONS_BEFORE))
    op.drop_column("work_order_transitions", "department_id")
    op.drop_column("departments", "follows")
