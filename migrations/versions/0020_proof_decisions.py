"""Proof decisions: the order's history names each (PROOF_APPROVED, PROOF_CHANGES_REQUESTED),
and every proof event is written with one payload function.

Revision ID: 0020
Revises: 0018
Create Date: 2026-12-05 21:30:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0020"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ACTIONS_BEFORE = (
    "COMPLETE",
    "REACTIVATE",
    "CANCEL",
    "OPEN_GATE",
    "CLOSE_GATE",
    "QUOTE_CHANGED",
    "SCHEDULE_CHANGED",
    "HELD",
    "RESUMED",
    "DETAILS_CHANGED",
    "DEPARTMENT_ADDED",
    "DEPARTMENT_REMOVED",
)
ACTIONS = (*ACTIONS_BEFORE, "PROOF_APPROVED", "PROOF_CHANGES_REQUESTED")

# The payload of every proof event (PROOF_UPLOADED, PROOF_APPROVED, PROOF_CHANGES_REQUESTED):
# the version as it stands after the change, never its bytes.
PROOF_PAYLOAD = """
CREATE FUNCTION proof_event_payload(p proofs) RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT jsonb_build_object(
        'proofId', p.id, 'workOrderId', p.work_order_id, 'version', p.version,
        'fileName', p.file_name, 'mediaType', p.media_type, 'sizeBytes', p.size_bytes,
        'uploadedBy', p.uploaded_by, 'uploadedAt', p.uploaded_at, 'status', p.status,
        'decidedAt', p.decided_at, 'decidedThrough', p.decided_through,
        'decidedByName', p.decided_by_name, 'decidedBy', p.decided_by, 'comment', p.comment)
$$
"""


def _one_of(column: str, values: Sequence[str]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def _replace_actions(values: Sequence[str]) -> None:
    name = op.f("ck_work_order_transitions_action")
    op.drop_constraint(name, "work_order_transitions", type_="check")
    op.create_check_constraint(name, "work_order_transitions", _one_of("action", values))


def upgrade() -> None:
    op.execute(PROOF_PAYLOAD)
    _replace_actions(ACTIONS)


def downgrade() -> None:
    # The older schema cannot say these: a downgrade is the owner's act (as in 0018).
    table = "work_order_transitions"
    op.execute(f"ALTER TABLE {table} DISABLE TRIGGER {table}_append_only")
    op.execute(f"DELETE FROM {table} WHERE NOT ({_one_of('action', ACTIONS_BEFORE)})")
    op.execute(f"ALTER TABLE {table} ENABLE TRIGGER {table}_append_only")
    _replace_actions(ACTIONS_BEFORE)
    op.execute("DROP FUNCTION proof_event_payload(proofs)")
