"""The customer's side: proof versions (their bytes in parts) that an order may need
approved before the departments that say so start; links that let a customer see one
order's page; whether a customer receives email; three proof events.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-05 21:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql as pg

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TYPES_BEFORE = (
    "TASK_CREATED",
    "TASK_CHANGED",
    "TASK_WITHDRAWN",
    "TASK_REQUEUED",
    "TASK_GATE_OPENED",
    "TASK_GATE_CLOSED",
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
    "WEBHOOK_DISABLED",
)
PROOF_TYPES = ("PROOF_UPLOADED", "PROOF_APPROVED", "PROOF_CHANGES_REQUESTED")
TYPES = (*TYPES_BEFORE, *PROOF_TYPES)


def _replace_types(values: Sequence[str]) -> None:
    op.drop_constraint(op.f("ck_events_type"), "events", type_="check")
    listed = ", ".join(repr(v) for v in values)
    op.create_check_constraint(op.f("ck_events_type"), "events", f"type IN ({listed})")


def _now() -> sa.TextClause:
    return sa.text("pressroom_now()")


def upgrade() -> None:
    op.add_column(
        "departments",
        sa.Column("needs_approved_proof", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.create_check_constraint(
        op.f("ck_departments_proof_production"),
        "departments",
        "needs_approved_proof = false OR kind = 'PRODUCTION'",
    )
    op.add_column(
        "customers",
        sa.Column("receives_email", sa.Boolean(), nullable=False, server_default=sa.true()),
    )
    op.add_column(
        "work_orders",
        sa.Column("proof_required", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.create_table(
        "customer_links",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column(
            "work_order_id", sa.BigInteger(), sa.ForeignKey("work_orders.id"), nullable=False
        ),
        sa.Column("secret_hash", sa.LargeBinary(), nullable=False),
        sa.Column("created_by", sa.BigInteger(), sa.ForeignKey("users.id"), nullable=True),
        sa.Column("emailed_to", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=_now()),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_by", sa.BigInteger(), sa.ForeignKey("users.id"), nullable=True),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("secret_hash", name=op.f("uq_customer_links_secret_hash")),
        sa.CheckConstraint(
            "created_by IS NOT NULL OR emailed_to IS NOT NULL",
            name=op.f("ck_customer_links_made_by"),
        ),
    )
    op.create_index("ix_customer_links_work_order_id", "customer_links", ["work_order_id"])
    op.create_table(
        "proofs",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column(
            "work_order_id", sa.BigInteger(), sa.ForeignKey("work_orders.id"), nullable=False
        ),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("file_name", sa.Text(), nullable=False),
        sa.Column("media_type", sa.Text(), nullable=False),
        sa.Column("size_bytes", sa.BigInteger(), nullable=False),
        sa.Column("sha256", sa.LargeBinary(), nullable=False),
        sa.Column("width", sa.Integer(), nullable=True),
        sa.Column("height", sa.Integer(), nullable=True),
        sa.Column("uploaded_by", sa.BigInteger(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("uploaded_at", sa.DateTime(timezone=True), nullable=False, server_default=_now()),
        sa.Column("status", sa.Text(), nullable=False, server_default="PENDING"),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("decided_through", sa.Text(), nullable=True),
        sa.Column("decided_by_name", sa.Text(), nullable=True),
        sa.Column("decided_by", sa.BigInteger(), sa.ForeignKey("users.id"), nullable=True),
        sa.Column(
            "customer_link_id",
            sa.BigInteger(),
            sa.ForeignKey("customer_links.id"),
            nullable=True,
        ),
        sa.Column("comment", sa.Text(), nullable=True),
        sa.UniqueConstraint(
            "work_order_id", "version", name=op.f("uq_proofs_work_order_id_version")
        ),
        sa.CheckConstraint(
            "status IN ('PENDING', 'APPROVED', 'CHANGES_REQUESTED', 'WITHDRAWN')",
            name=op.f("ck_proofs_status"),
        ),
        sa.CheckConstraint(
            "decided_through IS NULL OR decided_through IN ('CUSTOMER', 'SALES')",
            name=op.f("ck_proofs_decided_through"),
        ),
        sa.CheckConstraint(
            "(status IN ('APPROVED', 'CHANGES_REQUESTED')) = (decided_at IS NOT NULL) "
            "AND (decided_at IS NULL) = (decided_through IS NULL) "
            "AND (decided_at IS NULL) = (decided_by_name IS NULL)",
            name=op.f("ck_proofs_decision_complete"),
        ),
        sa.CheckConstraint(
            "decided_through IS DISTINCT FROM 'SALES' OR decided_by IS NOT NULL",
            name=op.f("ck_proofs_sales_named"),
        ),
        sa.CheckConstraint(
            "status <> 'CHANGES_REQUESTED' OR comment IS NOT NULL",
            name=op.f("ck_proofs_changes_say_what"),
        ),
    )
    op.create_table(
        "proof_chunks",
        sa.Column(
            "proof_id",
            sa.BigInteger(),
            sa.ForeignKey("proofs.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("part", sa.Text(), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("data", pg.BYTEA(), nullable=False),
        sa.CheckConstraint("part IN ('FILE', 'PREVIEW')", name=op.f("ck_proof_chunks_part")),
    )
    _replace_types(TYPES)


def downgrade() -> None:
    # The older schema cannot say these: a downgrade is the owner's act (as in 0008).
    op.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
    listed = ", ".join(repr(v) for v in PROOF_TYPES)
    op.execute(f"DELETE FROM events WHERE type IN ({listed})")
    op.execute("ALTER TABLE events ENABLE TRIGGER events_append_only")
    _replace_types(TYPES_BEFORE)
    op.drop_table("proof_chunks")
    op.drop_table("proofs")
    op.drop_index("ix_customer_links_work_order_id", "customer_links")
    op.drop_table("customer_links")
    op.drop_column("work_orders", "proof_required")
    op.drop_column("customers", "receives_email")
    op.drop_constraint(op.f("ck_departments_proof_production"), "departments")
    op.drop_column("departments", "needs_approved_proof")
