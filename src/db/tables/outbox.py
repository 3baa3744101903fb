"""What follows the event log to tell the outside world, each by its own cursor under a
lease: webhooks and their deliveries, the mail outbox and its messages."""

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg

from db.tables.columns import XID8, id_column, metadata, now_column, one_of
from domain.mail import MailKind
from domain.outbox import DeliveryStatus

# Webhooks (db/webhooks.py): each follows the event log by its own cursor (cursor_xid,
# cursor_id); the process holding its lease sends its deliveries, in commit order.
webhooks = sa.Table(
    "webhooks",
    metadata,
    id_column(),
    sa.Column("url", sa.Text, nullable=False),
    sa.Column("description", sa.Text, nullable=True),
    sa.Column("event_kinds", pg.ARRAY(sa.Text), nullable=False),
    # Null: every department; events about no department pass either way.
    sa.Column("department_ids", pg.ARRAY(sa.BigInteger), nullable=True),
    sa.Column("secret", sa.Text, nullable=False),
    sa.Column("enabled", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("disabled_reason", sa.Text, nullable=True),
    sa.Column("created_by", sa.BigInteger, sa.ForeignKey("users.id"), nullable=False),
    now_column("created_at"),
    sa.Column("version", sa.Integer, nullable=False, server_default="1"),
    sa.Column("cursor_xid", XID8(), nullable=False),
    sa.Column("cursor_id", sa.BigInteger, nullable=False, server_default="0"),
    sa.Column("lease_owner", sa.Text, nullable=True),
    sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
    # Since when every attempt has failed (null: the last one went through, or none was
    # made): past PRESSROOM_WEBHOOK_DISABLE_AFTER_DAYS the webhook is turned off.
    sa.Column("failing_since", sa.DateTime(timezone=True), nullable=True),
)

webhook_deliveries = sa.Table(
    "webhook_deliveries",
    metadata,
    id_column(),
    sa.Column(
        "webhook_id",
        sa.BigInteger,
        sa.ForeignKey("webhooks.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("event_id", sa.BigInteger, nullable=False),
    sa.Column("event_xid", XID8(), nullable=False),
    sa.Column("event_type", sa.Text, nullable=False),
    sa.Column("status", sa.Text, nullable=False, server_default="PENDING"),
    sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
    now_column("next_attempt_at"),
    sa.Column("last_attempt_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("response_status", sa.Integer, nullable=True),
    sa.Column("error", sa.Text, nullable=True),
    sa.Column("duration_ms", sa.Integer, nullable=True),
    sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True),
    now_column("created_at"),
    # The bytes sent, fixed at the first attempt: every retry signs the same body.
    sa.Column("body", sa.Text, nullable=True),
    sa.CheckConstraint(one_of("status", DeliveryStatus), name="status"),
    sa.UniqueConstraint("webhook_id", "event_id"),
    sa.Index(
        "ix_webhook_deliveries_pending",
        "webhook_id",
        "event_xid",
        "event_id",
        postgresql_where=sa.text("status = 'PENDING'"),
    ),
    sa.Index("ix_webhook_deliveries_webhook_id_id", "webhook_id", "id"),
)

# The mail outbox (db/mail.py): one row, made when a process first sends mail, with its
# cursor over the event log and the lease of the process that sends.
mail_outbox = sa.Table(
    "mail_outbox",
    metadata,
    sa.Column("singleton", sa.Boolean, primary_key=True, server_default=sa.true()),
    sa.Column("cursor_xid", XID8(), nullable=False),
    sa.Column("cursor_id", sa.BigInteger, nullable=False, server_default="0"),
    sa.Column("lease_owner", sa.Text, nullable=True),
    sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("singleton", name="singleton"),
)

# One email per event and recipient (domain.mail): what it is about is copied from the
# event (`payload`), so the log's retention does not touch what waits to be sent.
mail_messages = sa.Table(
    "mail_messages",
    metadata,
    id_column(),
    sa.Column("event_id", sa.BigInteger, nullable=False),
    sa.Column("event_type", sa.Text, nullable=False),
    sa.Column("work_order_id", sa.BigInteger, sa.ForeignKey("work_orders.id"), nullable=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("recipient", sa.Text, nullable=False),
    sa.Column("payload", pg.JSONB, nullable=False),
    sa.Column("status", sa.Text, nullable=False, server_default="PENDING"),
    sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
    now_column("next_attempt_at"),
    sa.Column("last_attempt_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("error", sa.Text, nullable=True),
    sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
    now_column("created_at"),
    sa.Column("subject", sa.Text, nullable=True),
    # The bytes sent, fixed at the first attempt so that every retry is the same message;
    # forgotten once it is sent or dead (a proof's message carries a customer link).
    sa.Column("message", sa.LargeBinary, nullable=True),
    sa.Column("customer_link_id", sa.BigInteger, sa.ForeignKey("customer_links.id"), nullable=True),
    sa.CheckConstraint(one_of("status", DeliveryStatus), name="status"),
    sa.CheckConstraint(one_of("kind", MailKind), name="kind"),
    sa.CheckConstraint("status = 'PENDING' OR message IS NULL", name="sent_forgotten"),
    sa.UniqueConstraint("event_id", "recipient"),
    sa.Index(
        "ix_mail_messages_due",
        "next_attempt_at",
        "id",
        postgresql_where=sa.text("status = 'PENDING'"),
    ),
    sa.Index("ix_mail_messages_status_id", "status", "id"),
    sa.Index("ix_mail_messages_work_order_id", "work_order_id"),
)
