"""Flow figures: the flow projection on department_tasks (the final START and its wait,
the last completion and its work), filled from history; both histories indexed by time
(exports read a window of them).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03 14:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEXES = {
    "ix_task_transitions_occurred_at_id": "task_transitions",
    "ix_work_order_transitions_occurred_at_id": "work_order_transitions",
}


PROJECTION = {
    "last_started_at": sa.DateTime(timezone=True),
    "waited_seconds": sa.Double(),
    "last_completed_at": sa.DateTime(timezone=True),
    "worked_seconds": sa.Double(),
}

# queries.sql's rebuild_flow as it stood, for every task and order.
REBUILD = """
WITH facts AS (
    SELECT t.id, s.occurred_at AS last_started_at,
           CAST(extract(epoch FROM s.occurred_at - greatest(
               t.created_at,
               (SELECT max(g.occurred_at) FROM work_order_transitions g
                WHERE g.work_order_id = t.work_order_id AND g.department_id = t.department_id
                  AND g.action = 'OPEN_GATE' AND g.occurred_at <= s.occurred_at),
               (SELECT max(r.occurred_at) FROM task_transitions r
                WHERE r.task_id = t.id AND r.action = 'REOPEN' AND r.id < s.id)
           )) AS double precision) AS waited_seconds,
           c.occurred_at AS last_completed_at,
           CASE WHEN c.from_status = 'STARTED' THEN CAST(extract(epoch FROM c.occurred_at - (
               SELECT p.occurred_at FROM task_transitions p
               WHERE p.task_id = t.id AND p.action = 'START' AND p.id < c.id
               ORDER BY p.id DESC LIMIT 1)) AS double precision) END AS worked_seconds
    FROM department_tasks t
    LEFT JOIN LATERAL (
        SELECT h.id, h.occurred_at FROM task_transitions h
        WHERE h.task_id = t.id AND h.action = 'START' ORDER BY h.id DESC LIMIT 1
    ) AS s ON true
    LEFT JOIN LATERAL (
        SELECT h.id, h.occurred_at, h.from_status FROM task_transitions h
        WHERE h.task_id = t.id AND h.to_status = 'COMPLETED' ORDER BY h.id DESC LIMIT 1
    ) AS c ON true
)
UPDATE department_tasks t SET
    last_started_at = f.last_started_at, waited_seconds = f.waited_seconds,
    last_completed_at = f.last_completed_at, worked_seconds = f.worked_seconds
FROM facts f
WHERE t.id = f.id
"""
REBUILD_ORDERS = """
UPDATE work_orders w SET last_completed_at = (
    SELECT max(h.occurred_at) FROM work_order_transitions h
    WHERE h.work_order_id = w.id AND h.action = 'COMPLETE')
"""


def upgrade() -> None:
    for name, table in INDEXES.items():
        op.create_index(name, table, ["occurred_at", "id"])
    for column, kind in PROJECTION.items():
        op.add_column("department_tasks", sa.Column(column, kind, nullable=True))
    op.add_column(
        "work_orders", sa.Column("last_completed_at", sa.DateTime(timezone=True), nullable=True)
    )
    # A year of history takes longer than a request may (db.engine's statement_timeout);
    # the migration's transaction is not a request.
    op.execute("SET LOCAL statement_timeout = 0")
    op.execute(REBUILD)
    op.execute(REBUILD_ORDERS)
    for column in ("last_started_at", "last_completed_at"):
        op.create_index(
            f"ix_department_tasks_{column}", "department_tasks", ["department_id", column]
        )
    op.create_index("ix_work_orders_last_completed_at", "work_orders", ["last_completed_at"])


def downgrade() -> None:
    op.drop_index("ix_work_orders_last_completed_at", table_name="work_orders")
    op.drop_column("work_orders", "last_completed_at")
    for column in ("last_started_at", "last_completed_at"):
        op.drop_index(f"ix_department_tasks_{column}", table_name="department_tasks")
    for column in PROJECTION:
        op.drop_column("department_tasks", column)
    for name, table in INDEXES.items():
        op.drop_index(name, table_name=table)
