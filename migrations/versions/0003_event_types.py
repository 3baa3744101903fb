"""events.type is one of the event types (domain.enums.EventType).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 20:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TYPES = (
    "TASK_CREATED",
    "TASK_CHANGED",
    "TASK_WITHDRAWN",
    "DELIVERY_GATE_OPENED",
    "DELIVERY_GATE_CLOSED",
    "WORK_ORDER_CREATED",
    "WORK_ORDER_CHANGED",
    "TOKEN_REVOKED",
    "LEDGER_ENTRY_POSTED",
    "USER_ACCESS_CHANGED",
)


def upgrade() -> None:
    listed = ", ".join(f"'{t}'" for t in TYPES)
    op.create_check_constraint(op.f("ck_events_type"), "events", f"type IN ({listed})")


def downgrade() -> None:
    op.drop_constraint(op.f("ck_events_type"), "events")
