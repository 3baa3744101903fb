"""Payment inboxes: a door per sender of payment notifications, with its secret, and every
request it received, answered as it was.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03 16:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NOW = sa.text("pressroom_now()")


def upgrade() -> None:
    op.create_table(
        "payment_inboxes",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column("name", sa.Text(), nullable=False, unique=True),
        sa.Column("currency", sa.Text(), nullable=False),
        sa.Column("secret", sa.Text(), nullable=False),
        sa.Column("created_by", sa.BigInteger(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=NOW),
    )
    op.create_table(
        "payment_inbox_requests",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column(
            "inbox_id",
            sa.BigInteger(),
            sa.ForeignKey("payment_inboxes.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False, server_default=NOW),
        sa.Column("message_id", sa.Text(), nullable=True),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column(
            "entry_id",
            sa.BigInteger(),
            sa.ForeignKey("customer_ledger_entries.id"),
            nullable=True,
        ),
    )
    op.create_index(
        "ix_payment_inbox_requests_inbox_id_id", "payment_inbox_requests", ["inbox_id", "id"]
    )


def downgrade() -> None:
    op.drop_table("payment_inbox_requests")
    op.drop_table("payment_inboxes")
