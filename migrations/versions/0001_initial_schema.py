"""Initial schema: departments, people, tokens, customers, work orders, tasks, history, events.

Revision ID: 0001
Revises:
Create Date: 2026-11-30 06:33:23.107024
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


class XID8(sa.types.UserDefinedType[int]):
    cache_ok = True

    def get_col_spec(self, **kw: object) -> str:
        return "xid8"


def upgrade() -> None:
    op.execute("CREATE SEQUENCE work_order_number_seq")
    op.create_table(
        "departments",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("gates_delivery", sa.Boolean(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "gates_delivery = false OR kind = 'PRODUCTION'",
            name=op.f("ck_departments_gates_production"),
        ),
        sa.CheckConstraint(
            "kind IN ('SALES', 'ACCOUNTS', 'PRODUCTION', 'DELIVERY')",
            name=op.f("ck_departments_kind"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_departments")),
        sa.UniqueConstraint("code", name=op.f("uq_departments_code")),
    )
    op.create_index(
        "uq_departments_one_delivery",
        "departments",
        [sa.literal_column("(true)")],
        unique=True,
        postgresql_where=sa.text("kind = 'DELIVERY'"),
    )
    op.create_table(
        "events",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("xid", XID8(), server_default=sa.text("pg_current_xact_id()"), nullable=False),
        sa.Column("type", sa.Text(), nullable=False),
        sa.Column("schema_version", sa.SmallInteger(), server_default="1", nullable=False),
        sa.Column("work_order_id", sa.BigInteger(), nullable=True),
        sa.Column("department_id", sa.BigInteger(), nullable=True),
        sa.Column("payload", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column(
            "occurred_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
    )
    op.create_index("ix_events_xid_id", "events", ["xid", "id"], unique=False)
    op.create_table(
        "users",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("email", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("password_hash", sa.Text(), nullable=True),
        sa.Column("is_admin", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column("is_active", sa.Boolean(), server_default=sa.text("true"), nullable=False),
        sa.Column("department", sa.Text(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
    )
    op.create_index(
        "uq_users_email_lower", "users", [sa.literal_column("lower(email)")], unique=True
    )
    op.create_table(
        "customers",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("created_by", sa.BigInteger(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["created_by"], ["users.id"], name=op.f("fk_customers_created_by_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_customers")),
    )
    op.create_table(
        "tokens",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("token_hash", sa.LargeBinary(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("department_ids", postgresql.ARRAY(sa.BigInteger()), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "(kind = 'DISPLAY') = (department_ids IS NOT NULL)",
            name=op.f("ck_tokens_display_departments"),
        ),
        sa.CheckConstraint("kind IN ('SESSION', 'API', 'DISPLAY')", name=op.f("ck_tokens_kind")),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_tokens_user_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_tokens_token_hash")),
    )
    op.create_table(
        "user_departments",
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("department_id", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["department_id"],
            ["departments.id"],
            name=op.f("fk_user_departments_department_id_departments"),
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_user_departments_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", "department_id", name=op.f("pk_user_departments")),
    )
    op.create_index(
        "ix_user_departments_department_id", "user_departments", ["department_id"], unique=False
    )
    op.create_table(
        "work_orders",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("order_number", sa.Text(), nullable=False),
        sa.Column("customer_id", sa.BigInteger(), nullable=False),
        sa.Column(
            "details",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'{}'::jsonb"),
            nullable=False,
        ),
        sa.Column(
            "needs_installation", sa.Boolean(), server_default=sa.text("false"), nullable=False
        ),
        sa.Column("needs_transport", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column("needs_repair", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column("quote_minor", sa.BigInteger(), nullable=True),
        sa.Column("quote_currency", sa.Text(), nullable=True),
        sa.Column("status", sa.Text(), server_default="ACTIVE", nullable=False),
        sa.Column("version", sa.Integer(), server_default="1", nullable=False),
        sa.Column("created_by", sa.BigInteger(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "status IN ('ACTIVE', 'COMPLETED', 'CANCELLED')", name=op.f("ck_work_orders_status")
        ),
        sa.CheckConstraint(
            "(quote_minor IS NULL) = (quote_currency IS NULL)",
            name=op.f("ck_work_orders_quote_has_currency"),
        ),
        sa.ForeignKeyConstraint(
            ["created_by"], ["users.id"], name=op.f("fk_work_orders_created_by_users")
        ),
        sa.ForeignKeyConstraint(
            ["customer_id"], ["customers.id"], name=op.f("fk_work_orders_customer_id_customers")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_work_orders")),
        sa.UniqueConstraint("order_number", name=op.f("uq_work_orders_order_number")),
    )
    op.create_index("ix_work_orders_customer_id", "work_orders", ["customer_id"], unique=False)
    op.create_index("ix_work_orders_status_id", "work_orders", ["status", "id"], unique=False)
    op.create_table(
        "department_tasks",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("work_order_id", sa.BigInteger(), nullable=False),
        sa.Column("department_id", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.Text(), server_default="PENDING", nullable=False),
        sa.Column("picked_up_by", sa.BigInteger(), nullable=True),
        sa.Column("available_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("version", sa.Integer(), server_default="1", nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "(status = 'COMPLETED') = (completed_at IS NOT NULL)",
            name=op.f("ck_department_tasks_completed_at_iff_completed"),
        ),
        sa.CheckConstraint(
            "(status = 'PENDING') = (picked_up_by IS NULL)",
            name=op.f("ck_department_tasks_picked_up_iff_not_pending"),
        ),
        sa.CheckConstraint(
            "status IN ('PENDING', 'STARTED', 'COMPLETED')", name=op.f("ck_department_tasks_status")
        ),
        sa.ForeignKeyConstraint(
            ["department_id"],
            ["departments.id"],
            name=op.f("fk_department_tasks_department_id_departments"),
        ),
        sa.ForeignKeyConstraint(
            ["picked_up_by"], ["users.id"], name=op.f("fk_department_tasks_picked_up_by_users")
        ),
        sa.ForeignKeyConstraint(
            ["work_order_id"],
            ["work_orders.id"],
            name=op.f("fk_department_tasks_work_order_id_work_orders"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_department_tasks")),
        sa.UniqueConstraint(
            "work_order_id",
            "department_id",
            name=op.f("uq_department_tasks_work_order_id_department_id"),
        ),
    )
    op.create_index(
        "ix_department_tasks_queue",
        "department_tasks",
        ["department_id", "available_at", "id"],
        unique=False,
        postgresql_where=sa.text("status <> 'COMPLETED'"),
    )
    op.create_table(
        "work_order_transitions",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("work_order_id", sa.BigInteger(), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("from_state", sa.Text(), nullable=False),
        sa.Column("to_state", sa.Text(), nullable=False),
        sa.Column("actor_id", sa.BigInteger(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column(
            "occurred_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "action IN ('COMPLETE', 'REACTIVATE', 'CANCEL', 'OPEN_GATE', 'CLOSE_GATE')",
            name=op.f("ck_work_order_transitions_action"),
        ),
        sa.ForeignKeyConstraint(
            ["actor_id"], ["users.id"], name=op.f("fk_work_order_transitions_actor_id_users")
        ),
        sa.ForeignKeyConstraint(
            ["work_order_id"],
            ["work_orders.id"],
            name=op.f("fk_work_order_transitions_work_order_id_work_orders"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_work_order_transitions")),
    )
    op.create_index(
        "ix_work_order_transitions_work_order_id_id",
        "work_order_transitions",
        ["work_order_id", "id"],
        unique=False,
    )
    op.create_table(
        "task_transitions",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("task_id", sa.BigInteger(), nullable=False),
        sa.Column("from_status", sa.Text(), nullable=False),
        sa.Column("to_status", sa.Text(), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("actor_id", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column(
            "occurred_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "action IN ('START', 'FINISH', 'RELEASE', 'OVERRIDE_COMPLETE', 'REOPEN')",
            name=op.f("ck_task_transitions_action"),
        ),
        sa.CheckConstraint(
            "from_status IN ('PENDING', 'STARTED', 'COMPLETED')",
            name=op.f("ck_task_transitions_from_status"),
        ),
        sa.CheckConstraint(
            "to_status IN ('PENDING', 'STARTED', 'COMPLETED')",
            name=op.f("ck_task_transitions_to_status"),
        ),
        sa.ForeignKeyConstraint(
            ["actor_id"], ["users.id"], name=op.f("fk_task_transitions_actor_id_users")
        ),
        sa.ForeignKeyConstraint(
            ["task_id"],
            ["department_tasks.id"],
            name=op.f("fk_task_transitions_task_id_department_tasks"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_task_transitions")),
    )
    op.create_index(
        "ix_task_transitions_task_id_id", "task_transitions", ["task_id", "id"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_task_transitions_task_id_id", table_name="task_transitions")
    op.drop_table("task_transitions")
    op.drop_index("ix_work_order_transitions_work_order_id_id", table_name="work_order_transitions")
    op.drop_table("work_order_transitions")
    op.drop_index(
        "ix_department_tasks_queue",
        table_name="department_tasks",
        postgresql_where=sa.text("status <> 'COMPLETED'"),
    )
    op.drop_table("department_tasks")
    op.drop_index("ix_work_orders_status_id", table_name="work_orders")
    op.drop_index("ix_work_orders_customer_id", table_name="work_orders")
    op.drop_table("work_orders")
    op.drop_index("ix_user_departments_department_id", table_name="user_departments")
    op.drop_table("user_departments")
    op.drop_table("tokens")
    op.drop_table("customers")
    op.drop_index("uq_users_email_lower", table_name="users")
    op.drop_table("users")
    op.drop_index("ix_events_xid_id", table_name="events")
    op.drop_table("events")
    op.drop_index(
        "uq_departments_one_delivery",
        table_name="departments",
        postgresql_where=sa.text("kind = 'DELIVERY'"),
    )
    op.drop_table("departments")
    op.execute("DROP SEQUENCE work_order_number_seq")
