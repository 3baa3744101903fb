"""Both histories indexed by time: flow figures and exports read a window of them.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03 14:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEXES = {
    "ix_task_transitions_occurred_at_id": "task_transitions",
    "ix_work_order_transitions_occurred_at_id": "work_order_transitions",
}


def upgrade() -> None:
    for name, table in INDEXES.items():
        op.create_index(name, table, ["occurred_at", "id"])


def downgrade() -> None:
    for name, table in INDEXES.items():
        op.drop_index(name, table_name=table)
