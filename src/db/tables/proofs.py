"""What a customer sees and decides: proofs with their bytes, and the links to their
order's page they decide through."""

import sqlalchemy as sa

from db.tables.columns import id_column, metadata, now_column, one_of
from domain.enums import ProofDecider, ProofStatus

# A proof: one version of the file the customer approves before production. Its bytes are
# in proof_chunks; the statuses are domain.enums.ProofStatus.
proofs = sa.Table(
    "proofs",
    metadata,
    id_column(),
    sa.Column("work_order_id", sa.BigInteger, sa.ForeignKey("work_orders.id"), nullable=False),
    # 1, 2, 3... per order: what the customer and the shop call it ("version 2").
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("file_name", sa.Text, nullable=False),
    # Read from the bytes, not the name: application/pdf, image/png or image/jpeg.
    sa.Column("media_type", sa.Text, nullable=False),
    sa.Column("size_bytes", sa.BigInteger, nullable=False),
    sa.Column("sha256", sa.LargeBinary, nullable=False),
    sa.Column("width", sa.Integer, nullable=True),
    sa.Column("height", sa.Integer, nullable=True),
    sa.Column("uploaded_by", sa.BigInteger, sa.ForeignKey("users.id"), nullable=False),
    now_column("uploaded_at"),
    sa.Column("status", sa.Text, nullable=False, server_default=ProofStatus.PENDING.value),
    sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("decided_through", sa.Text, nullable=True),
    # The approver as they gave their name (the customer's page asks for it).
    sa.Column("decided_by_name", sa.Text, nullable=True),
    # Sales recording the customer's word, or the link the customer decided through.
    sa.Column("decided_by", sa.BigInteger, sa.ForeignKey("users.id"), nullable=True),
    sa.Column("customer_link_id", sa.BigInteger, sa.ForeignKey("customer_links.id"), nullable=True),
    sa.Column("comment", sa.Text, nullable=True),
    sa.UniqueConstraint("work_order_id", "version"),
    sa.CheckConstraint(one_of("status", ProofStatus), name="status"),
    sa.CheckConstraint(
        f"decided_through IS NULL OR {one_of('decided_through', ProofDecider)}",
        name="decided_through",
    ),
    sa.CheckConstraint(
        "(status IN ('APPROVED', 'CHANGES_REQUESTED')) = (decided_at IS NOT NULL) "
        "AND (decided_at IS NULL) = (decided_through IS NULL) "
        "AND (decided_at IS NULL) = (decided_by_name IS NULL)",
        name="decision_complete",
    ),
    sa.CheckConstraint(
        "decided_through IS DISTINCT FROM 'SALES' OR decided_by IS NOT NULL", name="sales_named"
    ),
    sa.CheckConstraint(
        "status <> 'CHANGES_REQUESTED' OR comment IS NOT NULL", name="changes_say_what"
    ),
)

# A proof's bytes and its preview (a PNG of a PDF's first page, or the image re-encoded),
# in parts: streamed in and out without ever holding a whole file, and backed up,
# restored and replicated with the rest of the database.
proof_chunks = sa.Table(
    "proof_chunks",
    metadata,
    sa.Column(
        "proof_id", sa.BigInteger, sa.ForeignKey("proofs.id", ondelete="CASCADE"), primary_key=True
    ),
    # FILE or PREVIEW.
    sa.Column("part", sa.Text, primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("data", sa.LargeBinary, nullable=False),
    sa.CheckConstraint("part IN ('FILE', 'PREVIEW')", name="part"),
)

# A customer's way in to one order's page (/c/{secret}): the secret is shown once and kept
# only as its hash.
customer_links = sa.Table(
    "customer_links",
    metadata,
    id_column(),
    sa.Column("work_order_id", sa.BigInteger, sa.ForeignKey("work_orders.id"), nullable=False),
    sa.Column("secret_hash", sa.LargeBinary, nullable=False, unique=True),
    # Who made it; null for a link made for an email (the address is then kept).
    sa.Column("created_by", sa.BigInteger, sa.ForeignKey("users.id"), nullable=True),
    sa.Column("emailed_to", sa.Text, nullable=True),
    now_column("created_at"),
    # Null: 60 days after the order completes (PRESSROOM_CUSTOMER_LINK_DAYS).
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("revoked_by", sa.BigInteger, sa.ForeignKey("users.id"), nullable=True),
    sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("created_by IS NOT NULL OR emailed_to IS NOT NULL", name="made_by"),
    sa.Index("ix_customer_links_work_order_id", "work_order_id"),
)
