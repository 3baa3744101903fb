"""What customers owe and pay: the ledger's entries, and the payment inboxes whose
notifications post to it with the requests they answered."""

import sqlalchemy as sa

from db.tables.columns import id_column, metadata, now_column, one_of
from domain.enums import LedgerEntryKind

customer_ledger_entries = sa.Table(
    "customer_ledger_entries",
    metadata,
    id_column(),
    sa.Column("customer_id", sa.BigInteger, sa.ForeignKey("customers.id"), nullable=False),
    sa.Column("work_order_id", sa.BigInteger, sa.ForeignKey("work_orders.id"), nullable=True),
    sa.Column("kind", sa.Text, nullable=False),
    # Signed minor units: positive raises what the customer owes (domain.ledger.SIGNS).
    sa.Column("amount_minor", sa.BigInteger, nullable=False),
    sa.Column("currency", sa.Text, nullable=False),
    sa.Column("memo", sa.Text, nullable=True),
    sa.Column("idempotency_key", sa.Text, nullable=False, unique=True),
    sa.Column("posted_by", sa.BigInteger, sa.ForeignKey("users.id"), nullable=False),
    now_column("posted_at"),
    sa.CheckConstraint(one_of("kind", LedgerEntryKind), name="kind"),
    sa.CheckConstraint(
        "CASE WHEN kind IN ('CHARGE', 'REFUND') THEN amount_minor > 0 "
        "WHEN kind IN ('PAYMENT', 'CREDIT') THEN amount_minor < 0 "
        "ELSE amount_minor <> 0 END",
        name="sign_follows_kind",
    ),
    sa.CheckConstraint("currency ~ '^[A-Z]{3}$'", name="currency_code"),
    sa.Index("ix_customer_ledger_entries_customer_id_id", "customer_id", "id"),
    sa.Index("ix_customer_ledger_entries_work_order_id_id", "work_order_id", "id"),
)

# Payment inboxes (db/payment_inboxes.py): a sender's door for payment notifications, and
# the requests that came to it signed with its secret, as they were answered.
payment_inboxes = sa.Table(
    "payment_inboxes",
    metadata,
    id_column(),
    sa.Column("name", sa.Text, nullable=False, unique=True),
    sa.Column("currency", sa.Text, nullable=False),
    sa.Column("secret", sa.Text, nullable=False),
    sa.Column("created_by", sa.BigInteger, sa.ForeignKey("users.id"), nullable=False),
    now_column("created_at"),
    sa.Column("enabled", sa.Boolean, nullable=False, server_default=sa.true()),
    # After a rotation, the secret before it, still good until then.
    sa.Column("previous_secret", sa.Text, nullable=True),
    sa.Column("previous_secret_until", sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint(
        "(previous_secret IS NULL) = (previous_secret_until IS NULL)",
        name="previous_secret_until",
    ),
)

payment_inbox_requests = sa.Table(
    "payment_inbox_requests",
    metadata,
    id_column(),
    sa.Column(
        "inbox_id",
        sa.BigInteger,
        sa.ForeignKey("payment_inboxes.id", ondelete="CASCADE"),
        nullable=False,
    ),
    now_column("received_at"),
    sa.Column("message_id", sa.Text, nullable=True),
    sa.Column("status", sa.Integer, nullable=False),
    sa.Column("error", sa.Text, nullable=True),
    sa.Column(
        "entry_id", sa.BigInteger, sa.ForeignKey("customer_ledger_entries.id"), nullable=True
    ),
    sa.Index("ix_payment_inbox_requests_inbox_id_id", "inbox_id", "id"),
)
