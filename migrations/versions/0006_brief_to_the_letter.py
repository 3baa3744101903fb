"""pickedUpBy is written by START alone; imported closed orders are history.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02 20:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PICKER = (
    "CASE status WHEN 'PENDING' THEN picked_up_by IS NULL "
    "WHEN 'STARTED' THEN picked_up_by IS NOT NULL ELSE true END"
)

# Tasks an admin completed while they were pending got the admin as their picker. Their
# history says so: their last move into COMPLETED is an OVERRIDE_COMPLETE from PENDING.
# A data repair, not a change of state: no history row, no event.
UNPICK = """
UPDATE department_tasks t SET picked_up_by = NULL
WHERE t.status = 'COMPLETED' AND t.picked_up_by IS NOT NULL
  AND (SELECT h.action = 'OVERRIDE_COMPLETE' AND h.from_status = 'PENDING'
       FROM task_transitions h
       WHERE h.task_id = t.id AND h.to_status = 'COMPLETED'
       ORDER BY h.occurred_at DESC, h.id DESC LIMIT 1)
"""

# Orders the legacy import brought over completed or cancelled: their only history is the
# import's (every row by the import's system user), unlike live orders finished here.
IMPORTED_CLOSED = """
UPDATE work_orders w SET imported_closed = true
WHERE w.legacy_id IS NOT NULL AND w.status IN ('COMPLETED', 'CANCELLED')
  AND NOT EXISTS (SELECT 1 FROM work_order_transitions h
                  WHERE h.work_order_id = w.id AND h.actor_id IS DISTINCT FROM w.created_by)
"""


def upgrade() -> None:
    op.drop_constraint(
        op.f("ck_department_tasks_picked_up_iff_not_pending"), "department_tasks", type_="check"
    )
    op.execute(UNPICK)
    op.create_check_constraint(
        op.f("ck_department_tasks_picked_up_by_starting"), "department_tasks", PICKER
    )
    op.add_column(
        "work_orders",
        sa.Column("imported_closed", sa.Boolean(), server_default=sa.false(), nullable=False),
    )
    op.execute(IMPORTED_CLOSED)


def downgrade() -> None:
    op.drop_column("work_orders", "imported_closed")
    op.drop_constraint(
        op.f("ck_department_tasks_picked_up_by_starting"), "department_tasks", type_="check"
    )
    # The admin who completed a pending task is its picker again, as before.
    op.execute(
        """
        UPDATE department_tasks t SET picked_up_by = (
            SELECT h.actor_id FROM task_transitions h
            WHERE h.task_id = t.id AND h.to_status = 'COMPLETED'
            ORDER BY h.occurred_at DESC, h.id DESC LIMIT 1)
        WHERE t.status = 'COMPLETED' AND t.picked_up_by IS NULL
        """
    )
    op.create_check_constraint(
        op.f("ck_department_tasks_picked_up_iff_not_pending"),
        "department_tasks",
        "(status = 'PENDING') = (picked_up_by IS NULL)",
    )
