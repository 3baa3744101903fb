"""Payment inboxes can be turned off, and rotate their secret with the old one still good
for a while; requests that did not prove the secret are no longer kept (only counted).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-05 15:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "payment_inboxes",
        sa.Column("enabled", sa.Boolean(), nullable=False, server_default=sa.true()),
    )
    op.add_column("payment_inboxes", sa.Column("previous_secret", sa.Text(), nullable=True))
    op.add_column(
        "payment_inboxes",
        sa.Column("previous_secret_until", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_check_constraint(
        op.f("ck_payment_inboxes_previous_secret_until"),
        "payment_inboxes",
        "(previous_secret IS NULL) = (previous_secret_until IS NULL)",
    )
    # Anyone could write these (no signature, or a wrong one): the door only counts them now.
    op.execute("DELETE FROM payment_inbox_requests WHERE status = 401")


def downgrade() -> None:
    op.drop_constraint(op.f("ck_payment_inboxes_previous_secret_until"), "payment_inboxes")
    op.drop_column("payment_inboxes", "previous_secret_until")
    op.drop_column("payment_inboxes", "previous_secret")
    op.drop_column("payment_inboxes", "enabled")
