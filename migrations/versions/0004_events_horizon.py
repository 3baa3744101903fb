"""events_horizon(): how far the event log may be read, ignoring other databases.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 02:10:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Readers take events below the oldest transaction that could still write one. The
# snapshot's xmin was that bound, but transaction ids are shared by every database of a
# server: a long transaction in a neighbouring database held back this one's whole event
# stream. A running transaction is skipped only when pg_stat_activity places it in
# another database; one it cannot place (a prepared transaction, a backend gone since the
# snapshot) still holds the stream back, so the bound is never later than it should be.
HORIZON = """
CREATE FUNCTION events_horizon() RETURNS xid8
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce(min(running), pg_snapshot_xmax(pg_current_snapshot()))
    FROM pg_snapshot_xip(pg_current_snapshot()) AS running
    WHERE CAST(running AS xid) NOT IN (
        SELECT backend_xid FROM pg_stat_activity
        WHERE backend_xid IS NOT NULL
          AND datid <> (SELECT oid FROM pg_database WHERE datname = current_database())
    )
$$
"""


def upgrade() -> None:
    op.execute(HORIZON)


def downgrade() -> None:
    op.execute("DROP FUNCTION events_horizon()")
