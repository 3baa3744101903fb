"""The history credits the system's moves to no one, and a details change keeps its
changed parts: a gate's opening or closing and the status that follows the tasks
(OPEN_GATE, CLOSE_GATE, COMPLETE, REACTIVATE) name no actor, which a check keeps so; a
DETAILS_CHANGED row keeps each changed part (`changes`), read here from its two texts
for the rows written before.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-06 03:00:00
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql as pg

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLE = "work_order_transitions"
SYSTEM_MOVES_NO_ACTOR = (
    "actor_id IS NULL OR action NOT IN ('CLOSE_GATE', 'COMPLETE', 'OPEN_GATE', 'REACTIVATE')"
)
# The parts of an order other than its details, as the texts name them.
NOT_DETAILS = {"installation", "transport", "repair", "customer", "proof required"}
ABSENT = "(none)"


def _side(text: str) -> list[tuple[str, str | None]] | None:
    parts = [part.split(": ", 1) for part in text.split("; ")]
    if any(len(part) != 2 for part in parts):
        return None
    return [(key, None if value == ABSENT else value) for key, value in parts]


def _changes(from_state: str, to_state: str) -> list[dict[str, Any]]:
    """The parts of the two texts "key: value; key: value", paired by key; texts whose
    values hold "; " themselves cannot be split apart: one part, the whole texts."""
    before, after = _side(from_state), _side(to_state)
    if before is None or after is None or [key for key, _ in before] != [key for key, _ in after]:
        return [{"key": "details", "detail": False, "before": from_state, "after": to_state}]
    return [
        {"key": key, "detail": key not in NOT_DETAILS, "before": was, "after": now}
        for (key, was), (_, now) in zip(before, after, strict=True)
    ]


def upgrade() -> None:
    op.add_column(TABLE, sa.Column("changes", pg.JSONB, nullable=True))
    rows = op.get_bind().execute(
        sa.text(f"SELECT id, from_state, to_state FROM {TABLE} WHERE action = 'DETAILS_CHANGED'")
    )
    done = [{"id": row.id, "changes": _changes(row.from_state, row.to_state)} for row in rows]
    # Rewritten by the owner, the append-only trigger held off (as in 0009).
    op.execute(f"ALTER TABLE {TABLE} DISABLE TRIGGER {TABLE}_append_only")
    if done:
        op.get_bind().execute(
            sa.text(f"UPDATE {TABLE} SET changes = :changes WHERE id = :id").bindparams(
                sa.bindparam("changes", type_=pg.JSONB)
            ),
            done,
        )
    op.execute(
        f"UPDATE {TABLE} SET actor_id = NULL "
        "WHERE action IN ('CLOSE_GATE', 'COMPLETE', 'OPEN_GATE', 'REACTIVATE')"
    )
    op.execute(f"ALTER TABLE {TABLE} ENABLE TRIGGER {TABLE}_append_only")
    op.create_check_constraint(
        op.f(f"ck_{TABLE}_system_moves_no_actor"), TABLE, SYSTEM_MOVES_NO_ACTOR
    )


def downgrade() -> None:
    # Who caused a system move is not kept: its rows stay without an actor.
    op.drop_constraint(op.f(f"ck_{TABLE}_system_moves_no_actor"), TABLE, type_="check")
    op.drop_column(TABLE, "changes")
