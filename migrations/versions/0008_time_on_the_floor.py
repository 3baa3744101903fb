"""Work orders get a due date, a priority and a hold; durable timers; their new history
and event kinds.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03 01:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ACTIONS_BEFORE = (
    "COMPLETE",
    "REACTIVATE",
    "CANCEL",
    "OPEN_GATE",
    "CLOSE_GATE",
    "QUOTE_CHANGED",
)
ACTIONS = (*ACTIONS_BEFORE, "SCHEDULE_CHANGED", "HELD", "RESUMED")
TYPES_BEFORE = (
    "TASK_CREATED",
    "TASK_CHANGED",
    "TASK_WITHDRAWN",
    "DELIVERY_GATE_OPENED",
    "DELIVERY_GATE_CLOSED",
    "WORK_ORDER_CREATED",
    "WORK_ORDER_CHANGED",
    "TOKEN_REVOKED",
    "LEDGER_ENTRY_POSTED",
    "USER_ACCESS_CHANGED",
)
PURPOSES = ("WORK_ORDER_DUE_SOON", "WORK_ORDER_LATE", "TASK_STALE")
TYPES = (*TYPES_BEFORE[:3], "TASK_REQUEUED", *TYPES_BEFORE[3:], *PURPOSES)


def _one_of(column: str, values: Sequence[str]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def _replace_check(table: str, name: str, condition: str) -> None:
    op.drop_constraint(op.f(f"ck_{table}_{name}"), table, type_="check")
    op.create_check_constraint(op.f(f"ck_{table}_{name}"), table, condition)


def _forget(table: str, where: str) -> None:
    """Rows of the kinds the older revision cannot hold, deleted from an append-only
    table: a downgrade is the owner's act, and loses what the older schema cannot say
    (as it loses the dropped columns)."""
    op.execute(f"ALTER TABLE {table} DISABLE TRIGGER {table}_append_only")
    op.execute(f"DELETE FROM {table} WHERE {where}")
    op.execute(f"ALTER TABLE {table} ENABLE TRIGGER {table}_append_only")


# The payload of a WORK_ORDER_CHANGED event: which part of the order changed, and what
# every follower sees of it (quote, schedule and hold changes say it the same way).
CHANGED_PAYLOAD = """
CREATE FUNCTION work_order_changed_payload(w work_orders, field text) RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT jsonb_build_object('workOrderId', w.id, 'field', field, 'status', w.status,
                              'version', w.version)
$$
"""


def upgrade() -> None:
    op.execute(CHANGED_PAYLOAD)
    op.add_column("work_orders", sa.Column("due_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column(
        "work_orders",
        sa.Column("priority", sa.Text(), server_default="NORMAL", nullable=False),
    )
    op.add_column("work_orders", sa.Column("held_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column(
        "work_orders",
        sa.Column("held_by", sa.BigInteger(), sa.ForeignKey("users.id"), nullable=True),
    )
    op.add_column("work_orders", sa.Column("hold_reason", sa.Text(), nullable=True))
    op.create_check_constraint(
        op.f("ck_work_orders_priority"), "work_orders", _one_of("priority", ("NORMAL", "RUSH"))
    )
    op.create_check_constraint(
        op.f("ck_work_orders_hold_complete"),
        "work_orders",
        "(held_at IS NULL) = (held_by IS NULL) AND (held_at IS NULL) = (hold_reason IS NULL)",
    )
    op.create_index("ix_work_orders_due_at_id", "work_orders", ["due_at", "id"])
    _replace_check("work_order_transitions", "action", _one_of("action", ACTIONS))
    _replace_check("events", "type", _one_of("type", TYPES))
    op.create_table(
        "timers",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column("purpose", sa.Text(), nullable=False),
        sa.Column(
            "work_order_id", sa.BigInteger(), sa.ForeignKey("work_orders.id"), nullable=False
        ),
        sa.Column("task_id", sa.BigInteger(), sa.ForeignKey("department_tasks.id"), nullable=True),
        sa.Column("armed_for", sa.DateTime(timezone=True), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("fired_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(_one_of("purpose", PURPOSES), name=op.f("ck_timers_purpose")),
    )
    op.create_index(
        "ix_timers_due", "timers", ["due_at", "id"], postgresql_where=sa.text("fired_at IS NULL")
    )
    # Work order first: arming an order's due date finds its other timers by it.
    op.create_index(
        "ux_timers_once",
        "timers",
        ["work_order_id", "purpose", sa.text("coalesce(task_id, 0)"), "armed_for"],
        unique=True,
    )


def downgrade() -> None:
    op.drop_table("timers")
    op.execute("DROP FUNCTION work_order_changed_payload(work_orders, text)")
    _forget("events", f"NOT ({_one_of('type', TYPES_BEFORE)})")
    _replace_check("events", "type", _one_of("type", TYPES_BEFORE))
    _forget("work_order_transitions", f"NOT ({_one_of('action', ACTIONS_BEFORE)})")
    _replace_check("work_order_transitions", "action", _one_of("action", ACTIONS_BEFORE))
    op.drop_index("ix_work_orders_due_at_id", "work_orders")
    op.drop_constraint(op.f("ck_work_orders_hold_complete"), "work_orders", type_="check")
    op.drop_constraint(op.f("ck_work_orders_priority"), "work_orders", type_="check")
    for column in ("hold_reason", "held_by", "held_at", "priority", "due_at"):
        op.drop_column("work_orders", column)
