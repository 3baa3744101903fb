"""Event-log retention: prune_events() deletes the oldest events past a retention, a batch
at a time and one process at a time, and events_pruned records where the log now starts
(a cursor before it has expired).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03 22:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


class XID8(sa.types.UserDefinedType[int]):
    """PostgreSQL's 64-bit transaction id: a position in the event log is (xid, id)."""

    cache_ok = True

    def get_col_spec(self, **kw: object) -> str:
        return "xid8"


# As migration 0007 made it, but for events: a DELETE passes while prune_events() has
# marked its own transaction. The server's role has no DELETE right on events, so it
# cannot get here but through that function; for the owner, the mark is a deliberate act.
REFUSE = """
CREATE OR REPLACE FUNCTION refuse_history_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'events' AND TG_OP = 'DELETE'
       AND current_setting('pressroom.pruning_events', true) = 'on' THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$
"""

REFUSE_0007 = """
CREATE OR REPLACE FUNCTION refuse_history_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
                USING ERRCODE = 'restrict_violation';
        END
        $$
"""

# Runs as its owner (the schema's), so the server's role, which may only read and append
# to events, prunes through it and nothing else. It deletes from the start of the log, in
# (xid, id) order, up to :batch events, and stops at the first one it must keep: one that
# is younger than :keep, not yet below the horizon (a transaction still running could
# commit an event before it), after an enabled webhook's cursor, or carried by a pending
# delivery of an enabled webhook. What is left is therefore whole after the last event
# pruned, which events_pruned records: a cursor at or past it replays with no gap. Pending
# deliveries of disabled webhooks hold nothing back; those whose event is pruned die.
# NULL when another process holds the pruning lock (it prunes meanwhile).
PRUNE = """
CREATE FUNCTION prune_events(keep interval, batch integer) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    hook_xid xid8;
    hook_id bigint;
    wait_xid xid8;
    wait_id bigint;
    last_xid xid8;
    last_id bigint;
    last_at timestamptz;
    pruned integer;
BEGIN
    -- A bug or an injected statement in the server cannot empty the live log with it.
    IF keep < interval '1 day' THEN
        RAISE EXCEPTION 'events are kept at least a day, not %', keep
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF batch NOT BETWEEN 1 AND 10000 THEN
        RAISE EXCEPTION 'a batch is 1 to 10000 events, not %', batch
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF NOT pg_try_advisory_xact_lock(482956635749) THEN  -- "prune" in ASCII
        RETURN NULL;
    END IF;
    SELECT cursor_xid, cursor_id INTO hook_xid, hook_id
    FROM webhooks WHERE enabled ORDER BY cursor_xid, cursor_id LIMIT 1;
    SELECT d.event_xid, d.event_id INTO wait_xid, wait_id
    FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
    WHERE d.status = 'PENDING' AND w.enabled
    ORDER BY d.event_xid, d.event_id LIMIT 1;
    PERFORM set_config('pressroom.pruning_events', 'on', true);
    WITH head AS (
        SELECT id, xid, occurred_at FROM events
        WHERE xid < events_horizon()
        ORDER BY xid, id
        LIMIT batch
    ), judged AS (
        SELECT id, bool_and(occurred_at < now() - keep
                            AND (hook_xid IS NULL OR (xid, id) <= (hook_xid, hook_id))
                            AND (wait_xid IS NULL OR (xid, id) < (wait_xid, wait_id)))
                   OVER (ORDER BY xid, id) AS goes
        FROM head
    ), gone AS (
        DELETE FROM events e USING judged j
        WHERE j.goes AND e.id = j.id
        RETURNING e.xid, e.id, e.occurred_at
    )
    SELECT g.xid, g.id, g.occurred_at, (SELECT count(*) FROM gone)
    INTO last_xid, last_id, last_at, pruned
    FROM gone g ORDER BY g.xid DESC, g.id DESC LIMIT 1;
    PERFORM set_config('pressroom.pruning_events', '', true);
    IF last_id IS NULL THEN
        RETURN 0;
    END IF;
    INSERT INTO events_pruned (xid, id, occurred_at, pruned_at)
    VALUES (last_xid, last_id, last_at, now())
    ON CONFLICT (singleton) DO UPDATE
    SET xid = excluded.xid, id = excluded.id, occurred_at = excluded.occurred_at,
        pruned_at = excluded.pruned_at;
    UPDATE webhook_deliveries d
    SET status = 'DEAD', next_attempt_at = now(),
        error = 'Its event was pruned from the log (older than the retention) while the '
                'webhook was off.'
    FROM webhooks w
    WHERE w.id = d.webhook_id AND NOT w.enabled AND d.status = 'PENDING'
      AND (d.event_xid, d.event_id) <= (last_xid, last_id);
    RETURN pruned;
END
$$
"""


def upgrade() -> None:
    op.create_table(
        "events_pruned",
        sa.Column("singleton", sa.Boolean(), primary_key=True, server_default=sa.true()),
        sa.Column("xid", XID8(), nullable=False),
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("occurred_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("pruned_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("singleton", name=op.f("ck_events_pruned_singleton")),
    )
    op.execute(REFUSE)
    op.execute(PRUNE)


def downgrade() -> None:
    op.execute("DROP FUNCTION prune_events(interval, integer)")
    op.execute(REFUSE_0007)
    op.drop_table("events_pruned")
