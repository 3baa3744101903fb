"""The mail outbox: its cursor over the event log and its lease (one row, made when a
process first sends mail), and the messages it made, one per event and recipient, each
sent at least once.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-05 21:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql as pg

revision: str = "0019"
down_revision: str | None = "0018"
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
        "mail_outbox",
        sa.Column("singleton", sa.Boolean(), primary_key=True, server_default=sa.true()),
        sa.Column("cursor_xid", XID8(), nullable=False),
        sa.Column("cursor_id", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("lease_owner", sa.Text(), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("singleton", name=op.f("ck_mail_outbox_singleton")),
    )
    op.create_table(
        "mail_messages",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column("event_id", sa.BigInteger(), nullable=False),
        sa.Column("event_type", sa.Text(), nullable=False),
        sa.Column(
            "work_order_id", sa.BigInteger(), sa.ForeignKey("work_orders.id"), nullable=False
        ),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("recipient", sa.Text(), nullable=False),
        sa.Column("payload", pg.JSONB(), nullable=False),
        sa.Column("status", sa.Text(), nullable=False, server_default="PENDING"),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.Column(
            "next_attempt_at", sa.DateTime(timezone=True), nullable=False, server_default=NOW
        ),
        sa.Column("last_attempt_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=NOW),
        sa.Column("subject", sa.Text(), nullable=True),
        sa.Column("message", sa.LargeBinary(), nullable=True),
        sa.Column(
            "customer_link_id",
            sa.BigInteger(),
            sa.ForeignKey("customer_links.id"),
            nullable=True,
        ),
        sa.CheckConstraint(
            "status IN ('PENDING', 'DELIVERED', 'DEAD')", name=op.f("ck_mail_messages_status")
        ),
        sa.CheckConstraint(
            "kind IN ('PROOF_READY', 'CHANGES_REQUESTED', 'READY_FOR_PICKUP', "
            "'OUT_FOR_DELIVERY', 'DUE_LATER')",
            name=op.f("ck_mail_messages_kind"),
        ),
        sa.CheckConstraint(
            "status = 'PENDING' OR message IS NULL", name=op.f("ck_mail_messages_sent_forgotten")
        ),
        sa.UniqueConstraint(
            "event_id", "recipient", name=op.f("uq_mail_messages_event_id_recipient")
        ),
    )
    op.create_index(
        "ix_mail_messages_due",
        "mail_messages",
        ["next_attempt_at", "id"],
        postgresql_where=sa.text("status = 'PENDING'"),
    )
    op.create_index("ix_mail_messages_status_id", "mail_messages", ["status", "id"])
    op.create_index("ix_mail_messages_work_order_id", "mail_messages", ["work_order_id"])


def downgrade() -> None:
    op.drop_table("mail_messages")
    op.drop_table("mail_outbox")
