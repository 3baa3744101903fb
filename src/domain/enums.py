"""The closed vocabularies of the model. The database CHECK constraints use these values."""

from enum import StrEnum


class DepartmentKind(StrEnum):
    SALES = "SALES"
    ACCOUNTS = "ACCOUNTS"
    PRODUCTION = "PRODUCTION"
    DELIVERY = "DELIVERY"


class WorkOrderStatus(StrEnum):
    ACTIVE = "ACTIVE"
    COMPLETED = "COMPLETED"
    CANCELLED = "CANCELLED"


class TaskStatus(StrEnum):
    PENDING = "PENDING"
    STARTED = "STARTED"
    COMPLETED = "COMPLETED"
    # Taken off its work order (removeWorkOrderDepartment): kept with its history, in no
    # queue, waited for by no task.
    REMOVED = "REMOVED"


class WorkOrderPriority(StrEnum):
    NORMAL = "NORMAL"
    RUSH = "RUSH"  # first in every queue


class WorkOrderOrder(StrEnum):
    """How a list of work orders is sorted."""

    CREATED_AT = "CREATED_AT"  # newest first
    DUE_AT = "DUE_AT"  # earliest due date first, none last


class TimerPurpose(StrEnum):
    """What a durable timer fires (its event's type)."""

    WORK_ORDER_DUE_SOON = "WORK_ORDER_DUE_SOON"
    WORK_ORDER_LATE = "WORK_ORDER_LATE"
    TASK_STALE = "TASK_STALE"


class QueueLane(StrEnum):
    """The two parts of a department's queue, in their order."""

    WAITING = "WAITING"  # PENDING and available: oldest available first
    IN_PROGRESS = "IN_PROGRESS"  # STARTED: oldest start first


class TaskAction(StrEnum):
    START = "START"
    FINISH = "FINISH"
    RELEASE = "RELEASE"
    OVERRIDE_COMPLETE = "OVERRIDE_COMPLETE"
    REOPEN = "REOPEN"
    REMOVE = "REMOVE"


class WorkOrderAction(StrEnum):
    """What moved a work order's own history: its status, a task's gate, its quote, its
    details or its departments."""

    COMPLETE = "COMPLETE"
    REACTIVATE = "REACTIVATE"
    CANCEL = "CANCEL"
    OPEN_GATE = "OPEN_GATE"
    CLOSE_GATE = "CLOSE_GATE"
    # The quote changed (never a posting): Sales, Accounts and admins see these entries.
    QUOTE_CHANGED = "QUOTE_CHANGED"
    # The due date or the priority changed.
    SCHEDULE_CHANGED = "SCHEDULE_CHANGED"
    # Put on hold, and resumed: its pending tasks left the queues, and came back.
    HELD = "HELD"
    RESUMED = "RESUMED"
    # Corrected: its details, flags or customer; a department's task added or removed.
    DETAILS_CHANGED = "DETAILS_CHANGED"
    DEPARTMENT_ADDED = "DEPARTMENT_ADDED"
    DEPARTMENT_REMOVED = "DEPARTMENT_REMOVED"
    # The customer (or Sales on their word) decided the order's latest proof version.
    PROOF_APPROVED = "PROOF_APPROVED"
    PROOF_CHANGES_REQUESTED = "PROOF_CHANGES_REQUESTED"


class LedgerEntryKind(StrEnum):
    CHARGE = "CHARGE"
    PAYMENT = "PAYMENT"
    CREDIT = "CREDIT"
    REFUND = "REFUND"
    ADJUSTMENT = "ADJUSTMENT"


class AgeingBucket(StrEnum):
    """How long what a customer owes has been unpaid, by its oldest unpaid charge."""

    CURRENT = "CURRENT"
    DAYS_31_60 = "DAYS_31_60"
    DAYS_61_90 = "DAYS_61_90"
    OVER_90 = "OVER_90"


class WorkOrderCommand(StrEnum):
    """What a person may ask of a work order itself (besides its tasks' moves)."""

    CANCEL = "CANCEL"
    EDIT_QUOTE = "EDIT_QUOTE"
    RESCHEDULE = "RESCHEDULE"
    HOLD = "HOLD"
    RESUME = "RESUME"
    # Correct its details, flags or customer (updateWorkOrder); add or remove a
    # production department's task.
    EDIT_DETAILS = "EDIT_DETAILS"
    CHANGE_DEPARTMENTS = "CHANGE_DEPARTMENTS"
    # Post a CHARGE of its quote (chargeWorkOrderQuote): Accounts.
    CHARGE_QUOTE = "CHARGE_QUOTE"
    # Add a proof version (uploadProof); record the customer's decision on the latest one,
    # while it waits (approveProof, requestProofChanges); make a customer link.
    UPLOAD_PROOF = "UPLOAD_PROOF"
    DECIDE_PROOF = "DECIDE_PROOF"
    LINK_CUSTOMER = "LINK_CUSTOMER"


class CustomerCommand(StrEnum):
    """What a person may ask of a customer."""

    # Correct its name, contact or address (updateCustomer).
    EDIT = "EDIT"


class TokenKind(StrEnum):
    SESSION = "SESSION"
    API = "API"
    DISPLAY = "DISPLAY"


class EventType(StrEnum):
    TASK_CREATED = "TASK_CREATED"
    TASK_CHANGED = "TASK_CHANGED"
    # A task left its department's queue because its work order was cancelled or held.
    TASK_WITHDRAWN = "TASK_WITHDRAWN"
    # A task's place in its queue changed without a move of its own: its work order was
    # resumed (the task is back) or rescheduled (it sorts elsewhere).
    TASK_REQUEUED = "TASK_REQUEUED"
    # A production task's gate: it entered its queue once every task it waits for
    # completed (domain.routing), or left it again when one of those was reopened.
    TASK_GATE_OPENED = "TASK_GATE_OPENED"
    TASK_GATE_CLOSED = "TASK_GATE_CLOSED"
    DELIVERY_GATE_OPENED = "DELIVERY_GATE_OPENED"
    DELIVERY_GATE_CLOSED = "DELIVERY_GATE_CLOSED"
    WORK_ORDER_CREATED = "WORK_ORDER_CREATED"
    WORK_ORDER_CHANGED = "WORK_ORDER_CHANGED"
    # A token was revoked: every process closes the live connections that use it.
    TOKEN_REVOKED = "TOKEN_REVOKED"
    LEDGER_ENTRY_POSTED = "LEDGER_ENTRY_POSTED"
    # A user's memberships or active flag changed: every process re-checks that user's
    # live subscriptions before delivering anything later.
    USER_ACCESS_CHANGED = "USER_ACCESS_CHANGED"
    # Timers (db/timers.py), each once: a work order's due date is near, or passed; a
    # task has been STARTED and untouched for long.
    WORK_ORDER_DUE_SOON = "WORK_ORDER_DUE_SOON"
    WORK_ORDER_LATE = "WORK_ORDER_LATE"
    TASK_STALE = "TASK_STALE"
    # A webhook stopped by itself (its receiver said 410 Gone, or failed for days).
    WEBHOOK_DISABLED = "WEBHOOK_DISABLED"
    # A proof version was added to a work order, approved by the customer (or by Sales on
    # the customer's word), or sent back with changes asked for.
    PROOF_UPLOADED = "PROOF_UPLOADED"
    PROOF_APPROVED = "PROOF_APPROVED"
    PROOF_CHANGES_REQUESTED = "PROOF_CHANGES_REQUESTED"


class ProofStatus(StrEnum):
    """A proof version's decision. Each version is decided once; a newer version withdraws
    an undecided one."""

    PENDING = "PENDING"
    APPROVED = "APPROVED"
    CHANGES_REQUESTED = "CHANGES_REQUESTED"
    WITHDRAWN = "WITHDRAWN"


class ProofDecider(StrEnum):
    """Who decided a proof version: the customer through their link, or Sales recording the
    customer's word (the Sales person is named too)."""

    CUSTOMER = "CUSTOMER"
    SALES = "SALES"
