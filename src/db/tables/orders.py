"""The shop's work: customers, their work orders, each order's department tasks, the
history of orders and tasks, and the timers armed on them."""

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg

from db.tables.columns import (
    TEXTS_ONLY,
    id_column,
    idempotency_columns,
    metadata,
    now_column,
    one_of,
)
from domain.enums import (
    TaskAction,
    TaskStatus,
    TimerPurpose,
    WorkOrderAction,
    WorkOrderPriority,
    WorkOrderStatus,
)
from domain.transitions import SYSTEM_MOVES

SYSTEM_MOVES_NO_ACTOR = "actor_id IS NULL OR action NOT IN ({})".format(
    ", ".join(f"'{action.value}'" for action in sorted(SYSTEM_MOVES))
)

work_order_number_seq = sa.Sequence("work_order_number_seq", metadata=metadata)

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
    # texts, booleans and nulls only, so it reads back from JSON as it was (db/table_row.py).
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
