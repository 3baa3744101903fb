"""Webhooks: each follows the event log by its own cursor; a delivery per event it sends,
with its attempts, claimed by one process at a time through a lease on the webhook.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03 16:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql as pg

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NOW = sa.text("pressroom_now()")


class XID8(sa.types.UserDefinedType[int]):
    """PostgreSQL's 64-bit transaction id: a position in the event log is (xid, id)."""

    cache_ok = True

    def get_col_spec(self, **kw: object) -> str:
        return "xid8"


def upgrade() -> None:
    op.create_table(
        "webhooks",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("event_kinds", pg.ARRAY(sa.Text()), nullable=False),
        sa.Column("department_ids", pg.ARRAY(sa.BigInteger()), nullable=True),
        sa.Column("secret", sa.Text(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("disabled_reason", sa.Text(), nullable=True),
        sa.Column("created_by", sa.BigInteger(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=NOW),
        sa.Column("version", sa.Integer(), nullable=False, server_default="1"),
        sa.Column("cursor_xid", XID8(), nullable=False),
        sa.Column("cursor_id", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("lease_owner", sa.Text(), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column(
            "webhook_id",
            sa.BigInteger(),
            sa.ForeignKey("webhooks.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("event_id", sa.BigInteger(), nullable=False),
        sa.Column("event_xid", XID8(), nullable=False),
        sa.Column("event_type", sa.Text(), nullable=False),
        sa.Column("status", sa.Text(), nullable=False, server_default="PENDING"),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.Column(
            "next_attempt_at", sa.DateTime(timezone=True), nullable=False, server_default=NOW
        ),
        sa.Column("last_attempt_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("response_status", sa.Integer(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("duration_ms", sa.Integer(), nullable=True),
        sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=NOW),
        sa.Column("body", sa.Text(), nullable=True),
        sa.CheckConstraint(
            "status IN ('PENDING', 'DELIVERED', 'DEAD')",
            name=op.f("ck_webhook_deliveries_status"),
        ),
        sa.UniqueConstraint(
            "webhook_id", "event_id", name=op.f("uq_webhook_deliveries_webhook_id_event_id")
        ),
    )
    # The relay's next deliveries of a webhook, in commit order.
    op.create_index(
        "ix_webhook_deliveries_pending",
        "webhook_deliveries",
        ["webhook_id", "event_xid", "event_id"],
        postgresql_where=sa.text("status = 'PENDING'"),
    )
    # The admin's list, newest first.
    op.create_index(
        "ix_webhook_deliveries_webhook_id_id", "webhook_deliveries", ["webhook_id", "id"]
    )


def downgrade() -> None:
    op.drop_table("webhook_deliveries")
    op.drop_table("webhooks")
