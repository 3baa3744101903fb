"""The event log, and where it now starts: the last event pruned and the retention the
owner recorded."""

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg

from db.tables.columns import XID8, id_column, metadata, now_column, one_of
from domain.enums import EventType

events = sa.Table(
    "events",
    metadata,
    id_column(),
    # Readers order by (xid, id) and only read below the oldest running transaction of
    # this database, so an event that commits late is never skipped (docs/realtime.md).
    sa.Column("xid", XID8(), nullable=False, server_default=sa.text("pg_current_xact_id()")),
    sa.Column("type", sa.Text, nullable=False),
    sa.Column("schema_version", sa.SmallInteger, nullable=False, server_default="1"),
    sa.Column("work_order_id", sa.BigInteger, nullable=True),
    sa.Column("department_id", sa.BigInteger, nullable=True),
    sa.Column("payload", pg.JSONB, nullable=False),
    now_column("occurred_at"),
    sa.CheckConstraint(one_of("type", EventType), name="type"),
    sa.Index("ix_events_xid_id", "xid", "id"),
)

# Where the event log now starts: the last event pruned (prune_events(), migration 0015).
# No row: nothing was ever pruned. A cursor before it has expired (db/retention.py).
events_pruned = sa.Table(
    "events_pruned",
    metadata,
    sa.Column("singleton", sa.Boolean, primary_key=True, server_default=sa.true()),
    sa.Column("xid", XID8(), nullable=False),
    sa.Column("id", sa.BigInteger, nullable=False),
    sa.Column("occurred_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("pruned_at", sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("singleton", name="singleton"),
)

# The retention the owner recorded (PRESSROOM_EVENT_RETENTION_DAYS when it migrated): the
# shortest the server's role may prune at (prune_events(), migration 0017). One row.
event_retention = sa.Table(
    "event_retention",
    metadata,
    sa.Column("singleton", sa.Boolean, primary_key=True, server_default=sa.true()),
    sa.Column("keep", sa.Interval, nullable=False),
    sa.CheckConstraint("singleton", name="singleton"),
    sa.CheckConstraint("keep >= interval '1 day'", name="a_day"),
)
