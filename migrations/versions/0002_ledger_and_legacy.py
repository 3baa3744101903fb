"""The customer ledger (append-only), quote changes in work order history, legacy ids.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 19:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD_ACTIONS = "'COMPLETE', 'REACTIVATE', 'CANCEL', 'OPEN_GATE', 'CLOSE_GATE'"


def upgrade() -> None:
    op.create_table(
        "customer_ledger_entries",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("customer_id", sa.BigInteger(), nullable=False),
        sa.Column("work_order_id", sa.BigInteger(), nullable=True),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("amount_minor", sa.BigInteger(), nullable=False),
        sa.Column("currency", sa.Text(), nullable=False),
        sa.Column("memo", sa.Text(), nullable=True),
        sa.Column("idempotency_key", sa.Text(), nullable=False),
        sa.Column("posted_by", sa.BigInteger(), nullable=False),
        sa.Column(
            "posted_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "kind IN ('CHARGE', 'PAYMENT', 'CREDIT', 'REFUND', 'ADJUSTMENT')",
            name=op.f("ck_customer_ledger_entries_kind"),
        ),
        sa.CheckConstraint(
            "CASE WHEN kind IN ('CHARGE', 'REFUND') THEN amount_minor > 0 "
            "WHEN kind IN ('PAYMENT', 'CREDIT') THEN amount_minor < 0 "
            "ELSE amount_minor <> 0 END",
            name=op.f("ck_customer_ledger_entries_sign_follows_kind"),
        ),
        sa.CheckConstraint(
            "currency ~ '^[A-Z]{3}$'", name=op.f("ck_customer_ledger_entries_currency_code")
        ),
        sa.ForeignKeyConstraint(
            ["customer_id"],
            ["customers.id"],
            name=op.f("fk_customer_ledger_entries_customer_id_customers"),
        ),
        sa.ForeignKeyConstraint(
            ["work_order_id"],
            ["work_orders.id"],
            name=op.f("fk_customer_ledger_entries_work_order_id_work_orders"),
        ),
        sa.ForeignKeyConstraint(
            ["posted_by"], ["users.id"], name=op.f("fk_customer_ledger_entries_posted_by_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_customer_ledger_entries")),
        sa.UniqueConstraint(
            "idempotency_key", name=op.f("uq_customer_ledger_entries_idempotency_key")
        ),
    )
    op.create_index(
        "ix_customer_ledger_entries_customer_id_id",
        "customer_ledger_entries",
        ["customer_id", "id"],
    )
    op.create_index(
        "ix_customer_ledger_entries_work_order_id_id",
        "customer_ledger_entries",
        ["work_order_id", "id"],
    )
    # Append-only even for a careless script: a correction is a new entry.
    op.execute(
        """
        CREATE FUNCTION refuse_ledger_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'customer_ledger_entries is append-only: post a correcting entry'
                USING ERRCODE = 'restrict_violation';
        END
        $$
        """
    )
    op.execute(
        "CREATE TRIGGER customer_ledger_entries_append_only "
        "BEFORE UPDATE OR DELETE ON customer_ledger_entries "
        "FOR EACH ROW EXECUTE FUNCTION refuse_ledger_change()"
    )
    # Every entry with the customer's balance in its currency after it. Partitioned by
    # customer, so a filter on customer_id is applied before the window.
    op.execute(
        """
        CREATE VIEW customer_ledger AS
        SELECT e.*, CAST(sum(e.amount_minor) OVER (
                   PARTITION BY e.customer_id, e.currency ORDER BY e.id) AS bigint)
               AS balance_after_minor
        FROM customer_ledger_entries e
        """
    )
    op.drop_constraint("ck_work_order_transitions_action", "work_order_transitions")
    op.create_check_constraint(
        op.f("ck_work_order_transitions_action"),
        "work_order_transitions",
        f"action IN ({OLD_ACTIONS}, 'QUOTE_CHANGED')",
    )
    # One definition of what a task event says about its task, for every statement
    # that writes one (transitions, gate moves, creation, withdrawal, the legacy import).
    op.execute(
        """
        CREATE FUNCTION task_event_payload(t department_tasks) RETURNS jsonb
        LANGUAGE sql STABLE AS $$
            SELECT jsonb_build_object(
                'taskId', t.id, 'workOrderId', t.work_order_id,
                'departmentId', t.department_id, 'status', t.status,
                'pickedUpBy', t.picked_up_by, 'availableAt', t.available_at,
                'startedAt', t.started_at, 'completedAt', t.completed_at, 'version', t.version)
        $$
        """
    )
    op.execute(
        """
        CREATE FUNCTION work_order_created_payload(w work_orders) RETURNS jsonb
        LANGUAGE sql STABLE AS $$
            SELECT jsonb_build_object('workOrderId', w.id, 'orderNumber', w.order_number,
                                      'status', w.status, 'version', w.version)
        $$
        """
    )
    # The legacy order a work order was imported from: re-running the import skips it.
    op.add_column("work_orders", sa.Column("legacy_id", sa.BigInteger(), nullable=True))
    op.create_unique_constraint(op.f("uq_work_orders_legacy_id"), "work_orders", ["legacy_id"])


def downgrade() -> None:
    op.drop_constraint(op.f("uq_work_orders_legacy_id"), "work_orders")
    op.drop_column("work_orders", "legacy_id")
    op.execute("DELETE FROM work_order_transitions WHERE action = 'QUOTE_CHANGED'")
    op.drop_constraint("ck_work_order_transitions_action", "work_order_transitions")
    op.create_check_constraint(
        op.f("ck_work_order_transitions_action"),
        "work_order_transitions",
        f"action IN ({OLD_ACTIONS})",
    )
    op.execute("DROP FUNCTION work_order_created_payload(work_orders)")
    op.execute("DROP FUNCTION task_event_payload(department_tasks)")
    op.execute("DROP VIEW customer_ledger")
    op.drop_table("customer_ledger_entries")
    op.execute("DROP FUNCTION refuse_ledger_change()")
