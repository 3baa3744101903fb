"""Hardening: the server's role prunes events only past the retention the owner recorded
(event_retention), not past any interval it names; a webhook remembers since when it has
failed without a break (failing_since), and its stop is an event (WEBHOOK_DISABLED).

Revision ID: 0017
Revises: 0015
Create Date: 2026-12-05 15:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TYPES_BEFORE = (
    "TASK_CREATED",
    "TASK_CHANGED",
    "TASK_WITHDRAWN",
    "TASK_REQUEUED",
    "TASK_GATE_OPENED",
    "TASK_GATE_CLOSED",
    "DELIVERY_GATE_OPENED",
    "DELIVERY_GATE_CLOSED",
    "WORK_ORDER_CREATED",
    "WORK_ORDER_CHANGED",
    "TOKEN_REVOKED",
    "LEDGER_ENTRY_POSTED",
    "USER_ACCESS_CHANGED",
    "WORK_ORDER_DUE_SOON",
    "WORK_ORDER_LATE",
    "TASK_STALE",
)
TYPES = (*TYPES_BEFORE, "WEBHOOK_DISABLED")


def _types(values: Sequence[str]) -> str:
    return f"type IN ({', '.join(repr(v) for v in values)})"


def _replace_types(values: Sequence[str]) -> None:
    op.drop_constraint(op.f("ck_events_type"), "events", type_="check")
    op.create_check_constraint(op.f("ck_events_type"), "events", _types(values))


# Migration 0015's function, under a name only its owner may call: the one below checks
# who asks for what, then calls it.
HIDE = [
    "ALTER FUNCTION prune_events(interval, integer) RENAME TO prune_events_past",
    "REVOKE EXECUTE ON FUNCTION prune_events_past(interval, integer) FROM PUBLIC",
]

UNHIDE = [
    "DROP FUNCTION prune_events(interval, integer)",
    "ALTER FUNCTION prune_events_past(interval, integer) RENAME TO prune_events",
    "GRANT EXECUTE ON FUNCTION prune_events(interval, integer) TO PUBLIC",
]

# Runs as its owner. Inside it current_user is the owner and session_user the role that
# signed in: the owner (or a superuser) may name any interval of a day or more, as before;
# any other role, the server's, none shorter than the retention the owner recorded.
PRUNE = """
CREATE FUNCTION prune_events(keep interval, batch integer) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    shortest interval;
BEGIN
    IF NOT pg_has_role(session_user, current_user, 'USAGE') THEN
        SELECT r.keep INTO shortest FROM event_retention r;
        IF keep < shortest THEN
            RAISE EXCEPTION 'events are kept %, the retention the owner recorded, not %',
                shortest, keep
                USING ERRCODE = 'insufficient_privilege';
        END IF;
    END IF;
    RETURN prune_events_past(keep, batch);
END
$$
"""


def upgrade() -> None:
    op.create_table(
        "event_retention",
        sa.Column("singleton", sa.Boolean(), primary_key=True, server_default=sa.true()),
        sa.Column("keep", sa.Interval(), nullable=False),
        sa.CheckConstraint("singleton", name=op.f("ck_event_retention_singleton")),
        sa.CheckConstraint("keep >= interval '1 day'", name=op.f("ck_event_retention_a_day")),
    )
    # PRESSROOM_EVENT_RETENTION_DAYS' default until the owner records the one it runs with.
    op.execute("INSERT INTO event_retention (keep) VALUES (interval '90 days')")
    for statement in HIDE:
        op.execute(statement)
    op.execute(PRUNE)
    op.add_column("webhooks", sa.Column("failing_since", sa.DateTime(timezone=True), nullable=True))
    _replace_types(TYPES)


def downgrade() -> None:
    # The older schema cannot say these: a downgrade is the owner's act (as in 0008).
    op.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
    op.execute("DELETE FROM events WHERE type = 'WEBHOOK_DISABLED'")
    op.execute("ALTER TABLE events ENABLE TRIGGER events_append_only")
    _replace_types(TYPES_BEFORE)
    op.drop_column("webhooks", "failing_since")
    for statement in UNHIDE:
        op.execute(statement)
    op.drop_table("event_retention")
