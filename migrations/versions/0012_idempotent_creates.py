"""Idempotent creates: work orders, customers and users made with an idempotency key keep
it (unique per table) and the fingerprint of what they were asked (domain.idempotency).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-04 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("work_orders", "customers", "users")


def upgrade() -> None:
    for table in TABLES:
        op.add_column(table, sa.Column("idempotency_key", sa.Text(), nullable=True))
        op.add_column(table, sa.Column("idempotency_fingerprint", sa.Text(), nullable=True))
        op.create_unique_constraint(op.f(f"uq_{table}_idempotency_key"), table, ["idempotency_key"])
        op.create_check_constraint(
            op.f(f"ck_{table}_idempotency_fingerprinted"),
            table,
            "(idempotency_key IS NULL) = (idempotency_fingerprint IS NULL)",
        )


def downgrade() -> None:
    for table in TABLES:
        op.drop_constraint(op.f(f"ck_{table}_idempotency_fingerprinted"), table, type_="check")
        op.drop_constraint(op.f(f"uq_{table}_idempotency_key"), table, type_="unique")
        op.drop_column(table, "idempotency_fingerprint")
        op.drop_column(table, "idempotency_key")
