"""SQLAlchemy Core tables. The Alembic revisions are the schema's source; a test
checks that these definitions and the migrated database agree."""

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg

from db.columns import (
    NAMING,
    TEXTS_ONLY,
    XID8,
    id_column,
    idempotency_columns,
    now_column,
    one_of,
)
from domain.enums import (
    DepartmentKind,
    EventType,
    LedgerEntryKind,
    ProofDecider,
    ProofStatus,
    TaskAction,
    TaskStatus,
    TimerPurpose,
    TokenKind,
    WorkOrderAction,
    WorkOrderPriority,
    WorkOrderStatus,
)
from domain.mail import MailKind
from domain.outbox import DeliveryStatus
from domain.transitions import SYSTEM_MOVES

metadata = sa.MetaData(naming_convention=NAMING)

SYSTEM_MOVES_NO_ACTOR = "actor_id IS NULL OR action NOT IN ({})".format(
    ", ".join(f"'{action.value}'" for action in sorted(SYSTEM_MOVES))
)

work_order_number_seq = sa.Sequence("work_order_number_seq", metadata=metadata)

departments = sa.Table(
    "departments",
    metadata,
    id_column(),
    sa.Column("code", sa.Text, nullable=False, unique=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("gates_delivery", sa.Boolean, nullable=False),
    # The departments whose tasks this one's waits for on an order (domain.routing).
    sa.Column("follows", pg.ARRAY(sa.BigInteger), nullable=False, server_default=sa.text("'{}'")),
    now_column("created_at"),
    sa.CheckConstraint(one_of("kind", DepartmentKind), name="kind"),
    sa.CheckConstraint("gates_delivery = false OR kind = 'PRODUCTION'", name="gates_production"),
    # Its tasks on an order that needs a proof wait for the latest proof's approval.
    sa.Column("needs_approved_proof", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.CheckConstraint(
        "needs_approved_proof = false OR kind = 'PRODUCTION'", name="proof_production"
    ),
    sa.Index(
        "uq_departments_one_delivery",
        sa.text("(true)"),
        unique=True,
        postgresql_where=sa.text("kind = 'DELIVERY'"),
    ),
)

users = sa.Table(
    "users",
    metadata,
    id_column(),
    sa.Column("email", sa.Text, nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("password_hash", sa.Text, nullable=True),
    sa.Column("is_admin", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("is_active", sa.Boolean, nullable=False, server_default=sa.true()),
    # Kept only for the legacy import to read; membership lives in user_departments.
    sa.Column("department", sa.Text, nullable=True),
    now_column("created_at"),
    *idempotency_columns(),
    # Stored as domain.validation.email() writes it (NFKC, case-folded): one form per address.
    sa.Index("uq_users_email", "email", unique=True),
)

user_departments = sa.Table(
    "user_departments",
    metadata,
    sa.Column(
        "user_id", sa.BigInteger, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("department_id", sa.BigInteger, sa.ForeignKey("departments.id"), primary_key=True),
    sa.Index("ix_user_departments_department_id", "department_id"),
)

tokens = sa.Table(
    "tokens",
    metadata,
    id_column(),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("token_hash", sa.LargeBinary, nullable=False, unique=True),
    # The user a session or API token acts as; for a display token, who created it.
    sa.Column("user_id", sa.BigInteger, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("department_ids", pg.ARRAY(sa.BigInteger), nullable=True),
    now_column("created_at"),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint(one_of("kind", TokenKind), name="kind"),
    sa.CheckConstraint(
        "(kind = 'DISPLAY') = (department_ids IS NOT NULL)", name="display_departments"
    ),
)

customers = sa.Table(
    "customers",
    metadata,
    id_column(),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("created_by", sa.BigInteger, sa.ForeignKey("users.id"), nullable=True),
    now_column("created_at"),
    # Whom to call and where to deliver (domain.contacts): each part optional.
    sa.Column("contact_name", sa.Text, nullable=True),
    sa.Column("email", sa.Text, nullable=True),
    sa.Column("phone", sa.Text, nullable=True),
    sa.Column("address_lines", pg.ARRAY(sa.Text), nullable=False, server_default=sa.text("'{}'")),
    sa.Column("postcode", sa.Text, nullable=True),
    sa.Column("city", sa.Text, nullable=True),
    sa.Column("country", sa.Text, nullable=True),
    sa.Column("notes", sa.Text, nullable=True),
    *idempotency_columns(),
    # Whether the customer is sent email about their orders (proofs, pickup, due dates).
    sa.Column("receives_email", sa.Boolean, nullable=False, server_default=sa.true()),
)

work_orders = sa.Table(
    "work_orders",
    metadata,
    id_column(),
    sa.Column("order_number", sa.Text, nullable=False, unique=True),
    sa.Column("customer_id", sa.BigInteger, sa.ForeignKey("customers.id"), nullable=False),
    sa.Column("details", pg.JSONB, nullable=False, server_default=sa.text("'{}'::jsonb")),
    sa.Column("needs_installation", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("needs_transport", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("needs_repair", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("quote_minor", sa.BigInteger, nullable=True),
    sa.Column("quote_currency", sa.Text, nullable=True),
    sa.Column("status", sa.Text, nullable=False, server_default=WorkOrderStatus.ACTIVE.value),
    sa.Column("version", sa.Integer, nullable=False, server_default="1"),
    sa.Column("created_by", sa.BigInteger, sa.ForeignKey("users.id"), nullable=True),
    now_column("created_at"),
    now_column("updated_at"),
    # The legacy order it was imported from (null for orders made here).
    sa.Column("legacy_id", sa.BigInteger, nullable=True, unique=True),
    # Completed or cancelled in the old system: imported history, which nothing changes.
    sa.Column("imported_closed", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("due_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("priority", sa.Text, nullable=False, server_default=WorkOrderPriority.NORMAL.value),
    # On hold: its pending tasks are out of every queue (a gate, not a status).
    sa.Column("held_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("held_by", sa.BigInteger, sa.ForeignKey("users.id"), nullable=True),
    sa.Column("hold_reason", sa.Text, nullable=True),
    # The flow projection's part (see department_tasks): the order's last completion,
    # kept by transition_work_order, derived from history by rebuild_flow.
    sa.Column("last_completed_at", sa.DateTime(timezone=True), nullable=True),
    *idempotency_columns(),
    # The departments that need an approved proof wait for the latest proof's approval.
    sa.Column("proof_required", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.CheckConstraint(one_of("status", WorkOrderStatus), name="status"),
    sa.CheckConstraint(one_of("priority", WorkOrderPriority), name="priority"),
    sa.CheckConstraint(
        "(held_at IS NULL) = (held_by IS NULL) AND (held_at IS NULL) = (hold_reason IS NULL)",
        name="hold_complete",
    ),
    sa.CheckConstraint(
        "(quote_minor IS NULL) = (quote_currency IS NULL)", name="quote_has_currency"
    ),
    sa.Index("ix_work_orders_customer_id", "customer_id"),
    sa.Index("ix_work_orders_status_id", "status", "id"),
    sa.Index("ix_work_orders_due_at_id", "due_at", "id"),
    sa.Index("ix_work_orders_last_completed_at", "last_completed_at"),
)

department_tasks = sa.Table(
    "department_tasks",
    metadata,
    id_column(),
    sa.Column("work_order_id", sa.BigInteger, sa.ForeignKey("work_orders.id"), nullable=False),
    sa.Column("department_id", sa.BigInteger, sa.ForeignKey("departments.id"), nullable=False),
    sa.Column("status", sa.Text, nullable=False, server_default=TaskStatus.PENDING.value),
    sa.Column("picked_up_by", sa.BigInteger, sa.ForeignKey("users.id"), nullable=True),
    sa.Column("available_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("version", sa.Integer, nullable=False, server_default="1"),
    now_column("created_at"),
    now_column("updated_at"),
    # The flow projection (docs/decisions.md, "Flow figures"): the final START and how long
    # the task had waited for it, the last completion and how long the work took from that
    # START. transition_task keeps them; rebuild_flow derives them from history.
    sa.Column("last_started_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("waited_seconds", sa.Double, nullable=True),
    sa.Column("last_completed_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("worked_seconds", sa.Double, nullable=True),
    sa.CheckConstraint(one_of("status", TaskStatus), name="status"),
    # A picker is who started the task (START alone writes it): none while pending, one
    # while started, and once completed whoever started it, or none when an admin
    # completed it without anyone starting it.
    sa.CheckConstraint(
        "CASE status WHEN 'PENDING' THEN picked_up_by IS NULL "
        "WHEN 'STARTED' THEN picked_up_by IS NOT NULL ELSE true END",
        name="picked_up_by_starting",
    ),
    sa.CheckConstraint(
        "(status = 'COMPLETED') = (completed_at IS NOT NULL)", name="completed_at_iff_completed"
    ),
    sa.Index("ix_department_tasks_work_order_id", "work_order_id", "department_id"),
    # One task per department on an order, but for removed ones (a department removed can
    # be added again).
    sa.Index(
        "uq_department_tasks_one_per_department",
        "work_order_id",
        "department_id",
        unique=True,
        postgresql_where=sa.text("status <> 'REMOVED'"),
    ),
    sa.Index(
        "ix_department_tasks_queue",
        "department_id",
        "available_at",
        "id",
        postgresql_where=sa.text("status <> 'COMPLETED'"),
    ),
    sa.Index("ix_department_tasks_last_started_at", "department_id", "last_started_at"),
    sa.Index("ix_department_tasks_last_completed_at", "department_id", "last_completed_at"),
)

task_transitions = sa.Table(
    "task_transitions",
    metadata,
    id_column(),
    sa.Column("task_id", sa.BigInteger, sa.ForeignKey("department_tasks.id"), nullable=False),
    sa.Column("from_status", sa.Text, nullable=False),
    sa.Column("to_status", sa.Text, nullable=False),
    sa.Column("action", sa.Text, nullable=False),
    sa.Column("actor_id", sa.BigInteger, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("reason", sa.Text, nullable=True),
    now_column("occurred_at"),
    sa.CheckConstraint(one_of("from_status", TaskStatus), name="from_status"),
    sa.CheckConstraint(one_of("to_status", TaskStatus), name="to_status"),
    sa.CheckConstraint(one_of("action", TaskAction), name="action"),
    sa.Index("ix_task_transitions_task_id_id", "task_id", "id"),
    # Flow figures and exports read a window of history by time.
    sa.Index("ix_task_transitions_occurred_at_id", "occurred_at", "id"),
)

work_order_transitions = sa.Table(
    "work_order_transitions",
    metadata,
    id_column(),
    sa.Column("work_order_id", sa.BigInteger, sa.ForeignKey("work_orders.id"), nullable=False),
    sa.Column("action", sa.Text, nullable=False),
    sa.Column("from_state", sa.Text, nullable=False),
    sa.Column("to_state", sa.Text, nullable=False),
    # Null when the system moved it (domain.transitions.SYSTEM_MOVES: the gate opening
    # because the last task finished is caused by that task's move, whose actor its own
    # history names); null too for a customer's proof decision through their link.
    sa.Column("actor_id", sa.BigInteger, sa.ForeignKey("users.id"), nullable=True),
    sa.Column("reason", sa.Text, nullable=True),
    now_column("occurred_at"),
    # The department whose task's gate moved, or which was added or removed.
    sa.Column("department_id", sa.BigInteger, sa.ForeignKey("departments.id"), nullable=True),
    # A DETAILS_CHANGED row's changed parts (domain.corrections.Change.stored), in order:
    # texts, booleans and nulls only, so it reads back from JSON as it was (db/rows.py).
    sa.Column("changes", pg.JSONB, nullable=True, info={TEXTS_ONLY: True}),
    sa.CheckConstraint(one_of("action", WorkOrderAction), name="action"),
    sa.CheckConstraint(SYSTEM_MOVES_NO_ACTOR, name="system_moves_no_actor"),
    sa.Index("ix_work_order_transitions_work_order_id_id", "work_order_id", "id"),
    sa.Index("ix_work_order_transitions_occurred_at_id", "occurred_at", "id"),
)

# Durable timers (db/timers.py): armed in the transaction of what arms them, fired once.
# `armed_for` is the moment they are about (the due date, the start): a timer whose
# subject moved since fires no event.
timers = sa.Table(
    "timers",
    metadata,
    id_column(),
    sa.Column("purpose", sa.Text, nullable=False),
    sa.Column("work_order_id", sa.BigInteger, sa.ForeignKey("work_orders.id"), nullable=False),
    sa.Column("task_id", sa.BigInteger, sa.ForeignKey("department_tasks.id"), nullable=True),
    sa.Column("armed_for", sa.DateTime(timezone=True), nullable=False),
    sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("fired_at", sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint(one_of("purpose", TimerPurpose), name="purpose"),
    sa.Index("ix_timers_due", "due_at", "id", postgresql_where=sa.text("fired_at IS NULL")),
    # Work order first: arming an order's due date finds its other timers by it.
    sa.Index(
        "ux_timers_once",
        "work_order_id",
        "purpose",
        sa.text("coalesce(task_id, 0)"),
        "armed_for",
        unique=True,
    ),
)

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

customer_ledger_entries = sa.Table(
    "customer_ledger_entries",
    metadata,
    id_column(),
    sa.Column("customer_id", sa.BigInteger, sa.ForeignKey("customers.id"), nullable=False),
    sa.Column("work_order_id", sa.BigInteger, sa.ForeignKey("work_orders.id"), nullable=True),
    sa.Column("kind", sa.Text, nullable=False),
    # Signed minor units: positive raises what the customer owes (domain.ledger.SIGNS).
    sa.Column("amount_minor", sa.BigInteger, nullable=False),
    sa.Column("currency", sa.Text, nullable=False),
    sa.Column("memo", sa.Text, nullable=True),
    sa.Column("idempotency_key", sa.Text, nullable=False, unique=True),
    sa.Column("posted_by", sa.BigInteger, sa.ForeignKey("users.id"), nullable=False),
    now_column("posted_at"),
    sa.CheckConstraint(one_of("kind", LedgerEntryKind), name="kind"),
    sa.CheckConstraint(
        "CASE WHEN kind IN ('CHARGE', 'REFUND') THEN amount_minor > 0 "
        "WHEN kind IN ('PAYMENT', 'CREDIT') THEN amount_minor < 0 "
        "ELSE amount_minor <> 0 END",
        name="sign_follows_kind",
    ),
    sa.CheckConstraint("currency ~ '^[A-Z]{3}$'", name="currency_code"),
    sa.Index("ix_customer_ledger_entries_customer_id_id", "customer_id", "id"),
    sa.Index("ix_customer_ledger_entries_work_order_id_id", "work_order_id", "id"),
)

# Sign-in attempts, counted in the database so every server process shares the counters
# (db/rate_limits.py): one row per attempt, kept while it is inside a window.
rate_limit_hits = sa.Table(
    "rate_limit_hits",
    metadata,
    id_column(),
    sa.Column("key", sa.Text, nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_rate_limit_hits_key_at", "key", "at"),
)

# Webhooks (db/webhooks.py): each follows the event log by its own cursor (cursor_xid,
# cursor_id); the process holding its lease sends its deliveries, in commit order.
webhooks = sa.Table(
    "webhooks",
    metadata,
    id_column(),
    sa.Column("url", sa.Text, nullable=False),
    sa.Column("description", sa.Text, nullable=True),
    sa.Column("event_kinds", pg.ARRAY(sa.Text), nullable=False),
    # Null: every department; events about no department pass either way.
    sa.Column("department_ids", pg.ARRAY(sa.BigInteger), nullable=True),
    sa.Column("secret", sa.Text, nullable=False),
    sa.Column("enabled", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("disabled_reason", sa.Text, nullable=True),
    sa.Column("created_by", sa.BigInteger, sa.ForeignKey("users.id"), nullable=False),
    now_column("created_at"),
    sa.Column("version", sa.Integer, nullable=False, server_default="1"),
    sa.Column("cursor_xid", XID8(), nullable=False),
    sa.Column("cursor_id", sa.BigInteger, nullable=False, server_default="0"),
    sa.Column("lease_owner", sa.Text, nullable=True),
    sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
    # Since when every attempt has failed (null: the last one went through, or none was
    # made): past PRESSROOM_WEBHOOK_DISABLE_AFTER_DAYS the webhook is turned off.
    sa.Column("failing_since", sa.DateTime(timezone=True), nullable=True),
)

webhook_deliveries = sa.Table(
    "webhook_deliveries",
    metadata,
    id_column(),
    sa.Column(
        "webhook_id",
        sa.BigInteger,
        sa.ForeignKey("webhooks.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("event_id", sa.BigInteger, nullable=False),
    sa.Column("event_xid", XID8(), nullable=False),
    sa.Column("event_type", sa.Text, nullable=False),
    sa.Column("status", sa.Text, nullable=False, server_default="PENDING"),
    sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
    now_column("next_attempt_at"),
    sa.Column("last_attempt_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("response_status", sa.Integer, nullable=True),
    sa.Column("error", sa.Text, nullable=True),
    sa.Column("duration_ms", sa.Integer, nullable=True),
    sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True),
    now_column("created_at"),
    # The bytes sent, fixed at the first attempt: every retry signs the same body.
    sa.Column("body", sa.Text, nullable=True),
    sa.CheckConstraint(one_of("status", DeliveryStatus), name="status"),
    sa.UniqueConstraint("webhook_id", "event_id"),
    sa.Index(
        "ix_webhook_deliveries_pending",
        "webhook_id",
        "event_xid",
        "event_id",
        postgresql_where=sa.text("status = 'PENDING'"),
    ),
    sa.Index("ix_webhook_deliveries_webhook_id_id", "webhook_id", "id"),
)

# Payment inboxes (db/payment_inboxes.py): a sender's door for payment notifications, and
# the requests that came to it signed with its secret, as they were answered.
payment_inboxes = sa.Table(
    "payment_inboxes",
    metadata,
    id_column(),
    sa.Column("name", sa.Text, nullable=False, unique=True),
    sa.Column("currency", sa.Text, nullable=False),
    sa.Column("secret", sa.Text, nullable=False),
    sa.Column("created_by", sa.BigInteger, sa.ForeignKey("users.id"), nullable=False),
    now_column("created_at"),
    sa.Column("enabled", sa.Boolean, nullable=False, server_default=sa.true()),
    # After a rotation, the secret before it, still good until then.
    sa.Column("previous_secret", sa.Text, nullable=True),
    sa.Column("previous_secret_until", sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint(
        "(previous_secret IS NULL) = (previous_secret_until IS NULL)",
        name="previous_secret_until",
    ),
)

payment_inbox_requests = sa.Table(
    "payment_inbox_requests",
    metadata,
    id_column(),
    sa.Column(
        "inbox_id",
        sa.BigInteger,
        sa.ForeignKey("payment_inboxes.id", ondelete="CASCADE"),
        nullable=False,
    ),
    now_column("received_at"),
    sa.Column("message_id", sa.Text, nullable=True),
    sa.Column("status", sa.Integer, nullable=False),
    sa.Column("error", sa.Text, nullable=True),
    sa.Column(
        "entry_id", sa.BigInteger, sa.ForeignKey("customer_ledger_entries.id"), nullable=True
    ),
    sa.Index("ix_payment_inbox_requests_inbox_id_id", "inbox_id", "id"),
)


# A proof: one version of the file the customer approves before production. Its bytes are
# in proof_chunks; the statuses are domain.enums.ProofStatus.
proofs = sa.Table(
    "proofs",
    metadata,
    id_column(),
    sa.Column("work_order_id", sa.BigInteger, sa.ForeignKey("work_orders.id"), nullable=False),
    # 1, 2, 3... per order: what the customer and the shop call it ("version 2").
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("file_name", sa.Text, nullable=False),
    # Read from the bytes, not the name: application/pdf, image/png or image/jpeg.
    sa.Column("media_type", sa.Text, nullable=False),
    sa.Column("size_bytes", sa.BigInteger, nullable=False),
    sa.Column("sha256", sa.LargeBinary, nullable=False),
    sa.Column("width", sa.Integer, nullable=True),
    sa.Column("height", sa.Integer, nullable=True),
    sa.Column("uploaded_by", sa.BigInteger, sa.ForeignKey("users.id"), nullable=False),
    now_column("uploaded_at"),
    sa.Column("status", sa.Text, nullable=False, server_default=ProofStatus.PENDING.value),
    sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("decided_through", sa.Text, nullable=True),
    # The approver as they gave their name (the customer's page asks for it).
    sa.Column("decided_by_name", sa.Text, nullable=True),
    # Sales recording the customer's word, or the link the customer decided through.
    sa.Column("decided_by", sa.BigInteger, sa.ForeignKey("users.id"), nullable=True),
    sa.Column("customer_link_id", sa.BigInteger, sa.ForeignKey("customer_links.id"), nullable=True),
    sa.Column("comment", sa.Text, nullable=True),
    sa.UniqueConstraint("work_order_id", "version"),
    sa.CheckConstraint(one_of("status", ProofStatus), name="status"),
    sa.CheckConstraint(
        f"decided_through IS NULL OR {one_of('decided_through', ProofDecider)}",
        name="decided_through",
    ),
    sa.CheckConstraint(
        "(status IN ('APPROVED', 'CHANGES_REQUESTED')) = (decided_at IS NOT NULL) "
        "AND (decided_at IS NULL) = (decided_through IS NULL) "
        "AND (decided_at IS NULL) = (decided_by_name IS NULL)",
        name="decision_complete",
    ),
    sa.CheckConstraint(
        "decided_through IS DISTINCT FROM 'SALES' OR decided_by IS NOT NULL", name="sales_named"
    ),
    sa.CheckConstraint(
        "status <> 'CHANGES_REQUESTED' OR comment IS NOT NULL", name="changes_say_what"
    ),
)

# A proof's bytes and its preview (a PNG of a PDF's first page, or the image re-encoded),
# in parts: streamed in and out without ever holding a whole file, and backed up,
# restored and replicated with the rest of the database.
proof_chunks = sa.Table(
    "proof_chunks",
    metadata,
    sa.Column(
        "proof_id", sa.BigInteger, sa.ForeignKey("proofs.id", ondelete="CASCADE"), primary_key=True
    ),
    # FILE or PREVIEW.
    sa.Column("part", sa.Text, primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("data", sa.LargeBinary, nullable=False),
    sa.CheckConstraint("part IN ('FILE', 'PREVIEW')", name="part"),
)

# A customer's way in to one order's page (/c/{secret}): the secret is shown once and kept
# only as its hash.
customer_links = sa.Table(
    "customer_links",
    metadata,
    id_column(),
    sa.Column("work_order_id", sa.BigInteger, sa.ForeignKey("work_orders.id"), nullable=False),
    sa.Column("secret_hash", sa.LargeBinary, nullable=False, unique=True),
    # Who made it; null for a link made for an email (the address is then kept).
    sa.Column("created_by", sa.BigInteger, sa.ForeignKey("users.id"), nullable=True),
    sa.Column("emailed_to", sa.Text, nullable=True),
    now_column("created_at"),
    # Null: 60 days after the order completes (PRESSROOM_CUSTOMER_LINK_DAYS).
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("revoked_by", sa.BigInteger, sa.ForeignKey("users.id"), nullable=True),
    sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("created_by IS NOT NULL OR emailed_to IS NOT NULL", name="made_by"),
    sa.Index("ix_customer_links_work_order_id", "work_order_id"),
)

# The mail outbox (db/mail.py): one row, made when a process first sends mail, with its
# cursor over the event log and the lease of the process that sends.
mail_outbox = sa.Table(
    "mail_outbox",
    metadata,
    sa.Column("singleton", sa.Boolean, primary_key=True, server_default=sa.true()),
    sa.Column("cursor_xid", XID8(), nullable=False),
    sa.Column("cursor_id", sa.BigInteger, nullable=False, server_default="0"),
    sa.Column("lease_owner", sa.Text, nullable=True),
    sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("singleton", name="singleton"),
)

# One email per event and recipient (domain.mail): what it is about is copied from the
# event (`payload`), so the log's retention does not touch what waits to be sent.
mail_messages = sa.Table(
    "mail_messages",
    metadata,
    id_column(),
    sa.Column("event_id", sa.BigInteger, nullable=False),
    sa.Column("event_type", sa.Text, nullable=False),
    sa.Column("work_order_id", sa.BigInteger, sa.ForeignKey("work_orders.id"), nullable=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("recipient", sa.Text, nullable=False),
    sa.Column("payload", pg.JSONB, nullable=False),
    sa.Column("status", sa.Text, nullable=False, server_default="PENDING"),
    sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
    now_column("next_attempt_at"),
    sa.Column("last_attempt_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("error", sa.Text, nullable=True),
    sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
    now_column("created_at"),
    sa.Column("subject", sa.Text, nullable=True),
    # The bytes sent, fixed at the first attempt so that every retry is the same message;
    # forgotten once it is sent or dead (a proof's message carries a customer link).
    sa.Column("message", sa.LargeBinary, nullable=True),
    sa.Column("customer_link_id", sa.BigInteger, sa.ForeignKey("customer_links.id"), nullable=True),
    sa.CheckConstraint(one_of("status", DeliveryStatus), name="status"),
    sa.CheckConstraint(one_of("kind", MailKind), name="kind"),
    sa.CheckConstraint("status = 'PENDING' OR message IS NULL", name="sent_forgotten"),
    sa.UniqueConstraint("event_id", "recipient"),
    sa.Index(
        "ix_mail_messages_due",
        "next_attempt_at",
        "id",
        postgresql_where=sa.text("status = 'PENDING'"),
    ),
    sa.Index("ix_mail_messages_status_id", "status", "id"),
    sa.Index("ix_mail_messages_work_order_id", "work_order_id"),
)
