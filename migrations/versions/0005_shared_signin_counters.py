"""Sign-in counters in the database; emails in one normalised form.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02 19:30:00
"""

import unicodedata
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _normalized(email: str) -> str:
    # domain.validation.email()'s form as of this revision (NFKC_Casefold), kept here so
    # the revision does what it did whatever that function becomes.
    folded = unicodedata.normalize("NFKC", email.strip()).casefold()
    return unicodedata.normalize("NFKC", folded)


def upgrade() -> None:
    op.create_table(
        "rate_limit_hits",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_rate_limit_hits_key_at", "rate_limit_hits", ["key", "at"])

    conn = op.get_bind()
    users = conn.execute(sa.text("SELECT id, email FROM users ORDER BY id")).all()
    owners: dict[str, list[int]] = {}
    for user_id, email in users:
        owners.setdefault(_normalized(email), []).append(user_id)
    shared = {email: ids for email, ids in owners.items() if len(ids) > 1}
    if shared:
        listed = "; ".join(f"{email}: users {ids}" for email, ids in sorted(shared.items()))
        raise RuntimeError(
            "These accounts' emails are one address once normalised (NFKC, case-folded); "
            f"give all but one another email, then migrate again: {listed}"
        )
    for user_id, email in users:
        if _normalized(email) != email:
            conn.execute(
                sa.text("UPDATE users SET email = :email WHERE id = :id"),
                {"email": _normalized(email), "id": user_id},
            )
    op.drop_index("uq_users_email_lower", table_name="users")
    op.create_index("uq_users_email", "users", ["email"], unique=True)


def downgrade() -> None:
    op.drop_index("uq_users_email", table_name="users")
    op.create_index(
        "uq_users_email_lower", "users", [sa.literal_column("lower(email)")], unique=True
    )
    op.drop_table("rate_limit_hits")
