"""One row type per table: what every read of src/db hands out for that table, whichever
way the row was read (db/table_row.py), and what the GraphQL types are made of.

Each type lists its table's columns (tests/unit/test_rows.py holds them to db/tables),
then what some statement reads along with them (`extra`: a join's department kind, a
view's running balance). A text column that holds an enum's values is typed as that enum:
its members are str, equal to the text, and hash and serialize as it, so the text stands
for the member wherever it is compared with == or answered (never with `is`, never ask a
column for `.value`: convert it first, `TaskStatus(row.status)`).
Converting each value on the way in would cost a dashboard page about a millisecond.
"""

from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from db.table_row import TableRow
from db.tables.ledger import customer_ledger_entries, payment_inbox_requests, payment_inboxes
from db.tables.orders import (
    customers,
    department_tasks,
    task_transitions,
    work_order_transitions,
    work_orders,
)
from db.tables.outbox import mail_messages, webhook_deliveries, webhooks
from db.tables.people import departments, tokens, user_departments, users
from db.tables.proofs import customer_links, proofs
from domain.enums import (
    DepartmentKind,
    LedgerEntryKind,
    ProofDecider,
    ProofStatus,
    TaskAction,
    TaskStatus,
    TokenKind,
    WorkOrderAction,
    WorkOrderPriority,
    WorkOrderStatus,
)
from domain.outbox import DeliveryStatus


@dataclass(slots=True, eq=False)
class DepartmentRow(TableRow):
    table = departments
    id: int
    code: str
    name: str
    kind: DepartmentKind
    gates_delivery: bool
    follows: list[int]
    created_at: datetime
    needs_approved_proof: bool


@dataclass(slots=True, eq=False)
class UserRow(TableRow):
    table = users
    id: int
    email: str
    name: str
    password_hash: str | None
    is_admin: bool
    is_active: bool
    department: str | None
    created_at: datetime
    idempotency_key: str | None
    idempotency_fingerprint: str | None


@dataclass(slots=True, eq=False)
class MembershipRow(TableRow):
    table = user_departments
    user_id: int
    department_id: int


@dataclass(slots=True, eq=False)
class TokenRow(TableRow):
    table = tokens
    id: int
    kind: TokenKind
    name: str
    token_hash: bytes
    user_id: int
    department_ids: list[int] | None
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None


@dataclass(slots=True, eq=False)
class CustomerRow(TableRow):
    table = customers
    id: int
    name: str
    created_by: int | None
    created_at: datetime
    contact_name: str | None
    email: str | None
    phone: str | None
    address_lines: list[str]
    postcode: str | None
    city: str | None
    country: str | None
    notes: str | None
    idempotency_key: str | None
    idempotency_fingerprint: str | None
    receives_email: bool


@dataclass(slots=True, eq=False)
class WorkOrderRow(TableRow):
    table = work_orders
    id: int
    order_number: str
    customer_id: int
    details: dict[str, Any]
    needs_installation: bool
    needs_transport: bool
    needs_repair: bool
    quote_minor: int | None
    quote_currency: str | None
    status: WorkOrderStatus
    version: int
    created_by: int | None
    created_at: datetime
    updated_at: datetime
    legacy_id: int | None
    imported_closed: bool
    due_at: datetime | None
    priority: WorkOrderPriority
    held_at: datetime | None
    held_by: int | None
    hold_reason: str | None
    last_completed_at: datetime | None
    idempotency_key: str | None
    idempotency_fingerprint: str | None
    proof_required: bool


@dataclass(slots=True, eq=False)
class TaskColumns:
    """A task's first columns: the start of its row, and all an event carries of it
    (db.events.TaskSnapshot)."""

    id: int
    work_order_id: int
    department_id: int
    status: TaskStatus
    picked_up_by: int | None
    available_at: datetime | None
    started_at: datetime | None
    completed_at: datetime | None
    version: int


@dataclass(slots=True, eq=False)
class TaskRow(TableRow, TaskColumns):
    table = department_tasks
    created_at: datetime
    updated_at: datetime
    last_started_at: datetime | None
    waited_seconds: float | None
    last_completed_at: datetime | None
    worked_seconds: float | None
    extra = ("department_kind",)
    # Where the statement joins it: a work order's tasks, delivery last.
    department_kind: DepartmentKind | None = None


@dataclass(slots=True, eq=False)
class TaskTransitionRow(TableRow):
    table = task_transitions
    id: int
    task_id: int
    from_status: TaskStatus
    to_status: TaskStatus
    action: TaskAction
    actor_id: int
    reason: str | None
    occurred_at: datetime


@dataclass(slots=True, eq=False)
class WorkOrderTransitionRow(TableRow):
    table = work_order_transitions
    id: int
    work_order_id: int
    action: WorkOrderAction
    from_state: str
    to_state: str
    actor_id: int | None
    reason: str | None
    occurred_at: datetime
    department_id: int | None
    changes: list[dict[str, Any]] | None


@dataclass(slots=True, eq=False)
class LedgerEntryRow(TableRow):
    """An entry as the customer_ledger view reads it: with the balance after it."""

    table = customer_ledger_entries
    extra = ("balance_after_minor",)
    id: int
    customer_id: int
    work_order_id: int | None
    kind: LedgerEntryKind
    amount_minor: int
    currency: str
    memo: str | None
    idempotency_key: str
    posted_by: int
    posted_at: datetime
    # The customer's balance in this currency after this entry.
    balance_after_minor: int


class BalanceRow(NamedTuple):
    """A customer's sum in one currency, not a table's row: its balance (customer_balances)
    or what it is owed back on cancelled orders (refunds_due_of_customers)."""

    customer_id: int
    currency: str
    minor: int


class RefundDueRow(NamedTuple):
    """What a cancelled order's customer is owed back in one currency (the refunds_due
    view)."""

    work_order_id: int
    currency: str
    minor: int


class AgeingRow(NamedTuple):
    """What a customer owes in one currency, and since when (receivables_ageing)."""

    customer_id: int
    currency: str
    balance_minor: int
    oldest_unpaid_at: datetime


@dataclass(slots=True, eq=False)
class WebhookRow(TableRow):
    table = webhooks
    id: int
    url: str
    description: str | None
    event_kinds: list[str]
    department_ids: list[int] | None
    secret: str
    enabled: bool
    disabled_reason: str | None
    created_by: int
    created_at: datetime
    version: int
    cursor_xid: int
    cursor_id: int
    lease_owner: str | None
    lease_until: datetime | None
    failing_since: datetime | None


@dataclass(slots=True, eq=False)
class WebhookDeliveryRow(TableRow):
    """A delivery, with when its event happened (null once the event is gone from the log)."""

    table = webhook_deliveries
    extra = ("event_occurred_at",)
    id: int
    webhook_id: int
    event_id: int
    event_xid: int
    event_type: str
    status: DeliveryStatus
    attempts: int
    next_attempt_at: datetime
    last_attempt_at: datetime | None
    response_status: int | None
    error: str | None
    duration_ms: int | None
    delivered_at: datetime | None
    created_at: datetime
    body: str | None
    event_occurred_at: datetime | None


@dataclass(slots=True, eq=False)
class MailMessageRow(TableRow):
    """A message, with its order's number."""

    table = mail_messages
    extra = ("order_number",)
    id: int
    event_id: int
    event_type: str
    work_order_id: int
    kind: str
    recipient: str
    payload: dict[str, Any]
    status: DeliveryStatus
    attempts: int
    next_attempt_at: datetime
    last_attempt_at: datetime | None
    error: str | None
    sent_at: datetime | None
    created_at: datetime
    subject: str | None
    message: bytes | None
    customer_link_id: int | None
    order_number: str


@dataclass(slots=True, eq=False)
class PaymentInboxRow(TableRow):
    table = payment_inboxes
    id: int
    name: str
    currency: str
    secret: str
    created_by: int
    created_at: datetime
    enabled: bool
    previous_secret: str | None
    previous_secret_until: datetime | None


@dataclass(slots=True, eq=False)
class PaymentInboxRequestRow(TableRow):
    table = payment_inbox_requests
    id: int
    inbox_id: int
    received_at: datetime
    message_id: str | None
    status: int
    error: str | None
    entry_id: int | None


@dataclass(slots=True, eq=False)
class ProofRow(TableRow):
    table = proofs
    id: int
    work_order_id: int
    version: int
    file_name: str
    media_type: str
    size_bytes: int
    sha256: bytes
    width: int | None
    height: int | None
    uploaded_by: int
    uploaded_at: datetime
    status: ProofStatus
    decided_at: datetime | None
    decided_through: ProofDecider | None
    decided_by_name: str | None
    decided_by: int | None
    customer_link_id: int | None
    comment: str | None


@dataclass(slots=True, eq=False)
class CustomerLinkRow(TableRow):
    table = customer_links
    id: int
    work_order_id: int
    secret_hash: bytes
    created_by: int | None
    emailed_to: str | None
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    revoked_by: int | None
    last_used_at: datetime | None
    # Every statement reading links joins its order: whether and when it ended (completed
    # or cancelled), which a link without its own expiry ends some days after.
    extra = ("order_status", "order_ended_at", "ends_at")
    order_status: WorkOrderStatus | None = None
    order_ended_at: datetime | None = None
    # When it stops working (null: not while the order is open), which db/customer_links.py
    # works out from the above and PRESSROOM_CUSTOMER_LINK_DAYS.
    ends_at: datetime | None = None
