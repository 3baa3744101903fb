"""pressroom_now(): the one clock every stored time is stamped with; the transaction's
time unless it set `pressroom.as_of` to a moment already past (the demo seed lays out
a shop's last day with it).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03 13:10:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

STAMPED = {
    "department_tasks": ("created_at", "updated_at"),
    "work_orders": ("created_at", "updated_at"),
    "customer_ledger_entries": ("posted_at",),
    "customers": ("created_at",),
    "departments": ("created_at",),
    "events": ("occurred_at",),
    "task_transitions": ("occurred_at",),
    "tokens": ("created_at",),
    "users": ("created_at",),
    "work_order_transitions": ("occurred_at",),
}

CLOCK = """
CREATE FUNCTION pressroom_now() RETURNS timestamptz
LANGUAGE plpgsql STABLE AS $$
DECLARE
    as_of timestamptz := CAST(nullif(current_setting('pressroom.as_of', true), '') AS timestamptz);
BEGIN
    IF as_of IS NULL THEN
        RETURN now();
    END IF;
    -- A time set by hand may lay history out in the past, never stamp the future.
    IF as_of > now() THEN
        RAISE EXCEPTION 'pressroom.as_of % is in the future', as_of
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN as_of;
END
$$
"""


def _default(expression: str) -> None:
    for table, columns in STAMPED.items():
        for column in columns:
            op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} SET DEFAULT {expression}")


def upgrade() -> None:
    op.execute(CLOCK)
    _default("pressroom_now()")


def downgrade() -> None:
    _default("now()")
    op.execute("DROP FUNCTION pressroom_now()")
