"""Who works in the shop and how they get in: departments, users and their departments,
tokens, and the sign-in attempts counted against them."""

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg

from db.tables.columns import id_column, idempotency_columns, metadata, now_column, one_of
from domain.enums import DepartmentKind, TokenKind

departments = sa.Table(
    "departments",
    metadata,
    id_column(),
    sa.Column("code", sa.Text, nullable=False, unique=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("gates_delivery", sa.Boolean, nullable=False),
    # The departments whose tasks this one's waits for on an order (domain.routing).
    sa.Column("follows", pg.ARRAY(sa.BigInteger), nullable=False, server_default=sa.text("'{}'")),
    now_column("created_at"),
    sa.CheckConstraint(one_of("kind", DepartmentKind), name="kind"),
    sa.CheckConstraint("gates_delivery = false OR kind = 'PRODUCTION'", name="gates_production"),
    # Its tasks on an order that needs a proof wait for the latest proof's approval.
    sa.Column("needs_approved_proof", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.CheckConstraint(
        "needs_approved_proof = false OR kind = 'PRODUCTION'", name="proof_production"
    ),
    sa.Index(
        "uq_departments_one_delivery",
        sa.text("(true)"),
        unique=True,
        postgresql_where=sa.text("kind = 'DELIVERY'"),
    ),
)

users = sa.Table(
    "users",
    metadata,
    id_column(),
    sa.Column("email", sa.Text, nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("password_hash", sa.Text, nullable=True),
    sa.Column("is_admin", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("is_active", sa.Boolean, nullable=False, server_default=sa.true()),
    # Kept only for the legacy import to read; membership lives in user_departments.
    sa.Column("department", sa.Text, nullable=True),
    now_column("created_at"),
    *idempotency_columns(),
    # Stored as domain.validation.email() writes it (NFKC, case-folded): one form per address.
    sa.Index("uq_users_email", "email", unique=True),
)

user_departments = sa.Table(
    "user_departments",
    metadata,
    sa.Column(
        "user_id", sa.BigInteger, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("department_id", sa.BigInteger, sa.ForeignKey("departments.id"), primary_key=True),
    sa.Index("ix_user_departments_department_id", "department_id"),
)

tokens = sa.Table(
    "tokens",
    metadata,
    id_column(),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("token_hash", sa.LargeBinary, nullable=False, unique=True),
    # The user a session or API token acts as; for a display token, who created it.
    sa.Column("user_id", sa.BigInteger, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("department_ids", pg.ARRAY(sa.BigInteger), nullable=True),
    now_column("created_at"),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint(one_of("kind", TokenKind), name="kind"),
    sa.CheckConstraint(
        "(kind = 'DISPLAY') = (department_ids IS NOT NULL)", name="display_departments"
    ),
)

# Sign-in attempts, counted in the database so every server process shares the counters
# (db/rate_limits.py): one row per attempt, kept while it is inside a window.
rate_limit_hits = sa.Table(
    "rate_limit_hits",
    metadata,
    id_column(),
    sa.Column("key", sa.Text, nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_rate_limit_hits_key_at", "key", "at"),
)
