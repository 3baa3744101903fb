"""Registers the domain's vocabularies as GraphQL enums, under the names clients rely on.

Annotations use the domain enums themselves; importing this module makes them
GraphQL enums (strawberry.enum marks the class and returns it unchanged).
"""

from collections.abc import Mapping
from enum import Enum

import strawberry

from domain import enums
from domain.errors import ErrorCode
from domain.mail import MailCommand, MailKind
from domain.outbox import DeliveryStatus
from domain.warnings import WarningCode


def describe_values(enum: type[Enum], descriptions: Mapping[Enum, str]) -> None:
    """Gives each value of `enum`, registered as a GraphQL enum, its description: every
    value, so that a value added later cannot go undescribed."""
    if set(descriptions) != set(enum):
        raise ValueError(f"{enum.__name__}: describe exactly its values")
    for value in enum.__strawberry_definition__.values:  # type: ignore[attr-defined]
        value.description = descriptions[enum(value.value)]


for _enum, _description in {
    enums.DepartmentKind: "What a department does.",
    enums.WorkOrderStatus: "Where a work order stands.",
    enums.TaskStatus: "Where a department's task stands.",
    enums.QueueLane: "The two parts of a department's queue, in their order.",
    enums.WorkOrderPriority: "How urgent a work order is: it orders the queues.",
    enums.WorkOrderOrder: "How a list of work orders is sorted.",
    enums.TaskAction: "A move of a task (the transition table says who may make it, from where).",
    enums.WorkOrderAction: "What moved in a work order's own history.",
    enums.WorkOrderCommand: "What a caller may ask of a work order (`allowedActions`).",
    enums.CustomerCommand: "What a caller may ask of a customer (`allowedActions`).",
    enums.AgeingBucket: "How long what a customer owes has been unpaid, by its oldest "
    "unpaid charge.",
    enums.ProofStatus: "A proof version's decision; each version is decided once.",
    enums.ProofDecider: "Through whom a proof version was decided.",
}.items():
    strawberry.enum(_enum, description=_description)

strawberry.enum(
    ErrorCode, name="UserErrorCode", description="What kind of expected failure a `UserError` is."
)
strawberry.enum(
    WarningCode, name="UserWarningCode", description="What kind of warning a `UserWarning` is."
)
strawberry.enum(
    enums.EventType,
    name="EventKind",
    description="What happened, in an event of a subscription or a webhook.",
)
strawberry.enum(
    DeliveryStatus,
    name="WebhookDeliveryStatus",
    description="A webhook delivery's or an email's state.",
)
strawberry.enum(MailCommand, description="What a caller may ask of an email (`allowedActions`).")
strawberry.enum(
    MailKind,
    description="What an email tells, and to whom.",
)

describe_values(
    enums.DepartmentKind,
    {
        enums.DepartmentKind.SALES: "Takes orders from customers; sets quotes and due dates.",
        enums.DepartmentKind.ACCOUNTS: "Keeps the customers' ledgers: charges, payments, refunds.",
        enums.DepartmentKind.PRODUCTION: "Does a step of the work (design, print, finish); its "
        "tasks wait for the departments it follows.",
        enums.DepartmentKind.DELIVERY: "Hands the finished order over; its task waits for every "
        "production task of the order.",
    },
)
describe_values(
    enums.WorkOrderStatus,
    {
        enums.WorkOrderStatus.ACTIVE: "Being worked on (possibly on hold).",
        enums.WorkOrderStatus.COMPLETED: "Every task is done; reopening one makes it ACTIVE.",
        enums.WorkOrderStatus.CANCELLED: "Cancelled for good: its tasks left every queue.",
    },
)
describe_values(
    enums.TaskStatus,
    {
        enums.TaskStatus.PENDING: "Not started: in its queue's WAITING lane once available.",
        enums.TaskStatus.STARTED: "Someone works on it (`pickedBy`).",
        enums.TaskStatus.COMPLETED: "Done.",
        enums.TaskStatus.REMOVED: "Taken off its work order: kept with its history, in no queue, "
        "waited for by no task.",
    },
)
describe_values(
    enums.QueueLane,
    {
        enums.QueueLane.WAITING: "PENDING tasks that may start, rush first, then by due date.",
        enums.QueueLane.IN_PROGRESS: "STARTED tasks, oldest start first.",
    },
)
describe_values(
    enums.WorkOrderPriority,
    {
        enums.WorkOrderPriority.NORMAL: "Sorted by due date in its queues.",
        enums.WorkOrderPriority.RUSH: "Before every NORMAL task in each queue.",
    },
)
describe_values(
    enums.WorkOrderOrder,
    {
        enums.WorkOrderOrder.CREATED_AT: "Newest first.",
        enums.WorkOrderOrder.DUE_AT: "Earliest due date first; orders without one last.",
    },
)
describe_values(
    enums.TaskAction,
    {
        enums.TaskAction.START: "A member of the task's department takes it (PENDING to STARTED).",
        enums.TaskAction.FINISH: "Whoever started it is done (STARTED to COMPLETED).",
        enums.TaskAction.RELEASE: "An admin puts a started task back (STARTED to PENDING).",
        enums.TaskAction.OVERRIDE_COMPLETE: "An admin marks a pending or started task done.",
        enums.TaskAction.REOPEN: "An admin sends a completed task back (COMPLETED to PENDING).",
        enums.TaskAction.REMOVE: "Sales or an admin takes a pending production task off its order.",
    },
)
describe_values(
    enums.WorkOrderAction,
    {
        enums.WorkOrderAction.COMPLETE: "Its last task completed: the order is COMPLETED.",
        enums.WorkOrderAction.REACTIVATE: "A task of a completed order was reopened: ACTIVE again.",
        enums.WorkOrderAction.CANCEL: "Cancelled (`reason` says why).",
        enums.WorkOrderAction.OPEN_GATE: "Every production task is done: delivery may start.",
        enums.WorkOrderAction.CLOSE_GATE: "Its delivery task may no longer start: a production "
        "task was reopened or added.",
        enums.WorkOrderAction.QUOTE_CHANGED: "The quote changed (old and new in `fromState` and "
        "`toState`); never a posting.",
        enums.WorkOrderAction.SCHEDULE_CHANGED: "The due date or the priority changed.",
        enums.WorkOrderAction.HELD: "Put on hold: its pending tasks left the queues.",
        enums.WorkOrderAction.RESUMED: "Taken off hold: its pending tasks came back.",
        enums.WorkOrderAction.DETAILS_CHANGED: "Its details, flags or customer were corrected.",
        enums.WorkOrderAction.DEPARTMENT_ADDED: "A production department's task was added.",
        enums.WorkOrderAction.DEPARTMENT_REMOVED: "A production department's task was removed.",
        enums.WorkOrderAction.PROOF_APPROVED: "The customer (or Sales on their word) approved the "
        "latest proof.",
        enums.WorkOrderAction.PROOF_CHANGES_REQUESTED: "The customer (or Sales on their word) sent "
        "the latest proof back with changes.",
    },
)
describe_values(
    enums.WorkOrderCommand,
    {
        enums.WorkOrderCommand.CANCEL: "Cancel it (`cancelWorkOrder`).",
        enums.WorkOrderCommand.EDIT_QUOTE: "Set or clear its quote (`updateWorkOrderQuote`).",
        enums.WorkOrderCommand.RESCHEDULE: "Move its due date or priority (`rescheduleWorkOrder`).",
        enums.WorkOrderCommand.HOLD: "Put it on hold (`holdWorkOrder`).",
        enums.WorkOrderCommand.RESUME: "Take it off hold (`resumeWorkOrder`).",
        enums.WorkOrderCommand.EDIT_DETAILS: "Correct its details, flags or customer "
        "(`updateWorkOrder`).",
        enums.WorkOrderCommand.CHANGE_DEPARTMENTS: "Add or remove a production department's task.",
        enums.WorkOrderCommand.CHARGE_QUOTE: "Post a CHARGE of its quote (`chargeWorkOrderQuote`).",
        enums.WorkOrderCommand.UPLOAD_PROOF: "Add a proof version (`uploadProof`).",
        enums.WorkOrderCommand.DECIDE_PROOF: "Record the customer's decision on the latest proof.",
        enums.WorkOrderCommand.LINK_CUSTOMER: "Make a link to the order's page for its customer.",
    },
)
describe_values(
    enums.CustomerCommand,
    {enums.CustomerCommand.EDIT: "Correct its name, contact or address (`updateCustomer`)."},
)
describe_values(
    enums.AgeingBucket,
    {
        enums.AgeingBucket.CURRENT: "The oldest unpaid charge is up to 30 days old.",
        enums.AgeingBucket.DAYS_31_60: "The oldest unpaid charge is 31 to 60 days old.",
        enums.AgeingBucket.DAYS_61_90: "The oldest unpaid charge is 61 to 90 days old.",
        enums.AgeingBucket.OVER_90: "The oldest unpaid charge is over 90 days old.",
    },
)
describe_values(
    enums.ProofStatus,
    {
        enums.ProofStatus.PENDING: "Waits for the customer's decision.",
        enums.ProofStatus.APPROVED: "The customer approved it: the tasks waiting for it may start.",
        enums.ProofStatus.CHANGES_REQUESTED: "The customer asked for changes: the design task "
        "is reopened.",
        enums.ProofStatus.WITHDRAWN: "A newer version replaced it before it was decided.",
    },
)
describe_values(
    enums.ProofDecider,
    {
        enums.ProofDecider.CUSTOMER: "The customer, through their link.",
        enums.ProofDecider.SALES: "Sales, recording the customer's word (the person is named).",
    },
)
describe_values(
    ErrorCode,
    {
        ErrorCode.ALREADY_TAKEN: "Someone else started the task (named).",
        ErrorCode.INVALID_TRANSITION: "Not a move the table allows from the current state, "
        "or already done.",
        ErrorCode.NOT_AVAILABLE: "The task's gate is closed (see `waitingFor`).",
        ErrorCode.NOT_TASK_HOLDER: "Only the worker who started the task (named) can do this.",
        ErrorCode.WORK_ORDER_CLOSED: "The order is cancelled, not ACTIVE, or imported history.",
        ErrorCode.NOT_FOUND: "An id or code that names nothing (or a token not yours).",
        ErrorCode.INVALID_INPUT: "A value breaks a rule; `field` names it.",
        ErrorCode.STALE_OBJECT: "`expectedVersion` did not match: reload and try again.",
        ErrorCode.DUPLICATE: "A code, email, order number or idempotency key already used.",
        ErrorCode.ON_HOLD: "The order is on hold: its pending tasks cannot start.",
        ErrorCode.UNSUPPORTED_FILE: "A proof file that is not a PDF, PNG or JPEG.",
        ErrorCode.DAMAGED_FILE: "A proof file cut short or that cannot be decoded.",
        ErrorCode.FILE_TOO_LARGE: "A proof file over the server's size or pixel limit.",
        ErrorCode.PROOF_NOT_APPROVED: "The task waits for the customer's approval of the "
        "latest proof.",
        ErrorCode.PROOF_SUPERSEDED: "A newer proof version replaced this one: only the latest "
        "is decided.",
        ErrorCode.ALREADY_DECIDED: "The proof version was already decided the other way.",
    },
)
describe_values(
    WarningCode,
    {WarningCode.DUE_IN_PAST: "The due date has already passed: the order is late from now."},
)
describe_values(
    enums.EventType,
    {
        enums.EventType.TASK_CREATED: "A task was made (with its work order, or added to it).",
        enums.EventType.TASK_CHANGED: "A task moved (started, finished, released, reopened...).",
        enums.EventType.TASK_WITHDRAWN: "A task left its queue: its order was cancelled or held.",
        enums.EventType.TASK_REQUEUED: "A task's place in its queue changed: its order was "
        "resumed or rescheduled.",
        enums.EventType.TASK_GATE_OPENED: "A production task entered its queue: every task it "
        "waits for is done.",
        enums.EventType.TASK_GATE_CLOSED: "A production task left its queue: a task it waits for "
        "was reopened.",
        enums.EventType.DELIVERY_GATE_OPENED: "An order's delivery task may start.",
        enums.EventType.DELIVERY_GATE_CLOSED: "An order's delivery task may no longer start.",
        enums.EventType.WORK_ORDER_CREATED: "A work order was taken.",
        enums.EventType.WORK_ORDER_CHANGED: "A work order changed (status, schedule, details...).",
        enums.EventType.TOKEN_REVOKED: "A token was revoked: its live connections close.",
        enums.EventType.LEDGER_ENTRY_POSTED: "An entry was posted to a customer's ledger.",
        enums.EventType.USER_ACCESS_CHANGED: "A user's departments or active flag changed.",
        enums.EventType.WORK_ORDER_DUE_SOON: "A work order's due date is near (once per order).",
        enums.EventType.WORK_ORDER_LATE: "A work order's due date passed unfinished (once).",
        enums.EventType.TASK_STALE: "A task has been STARTED and untouched for long (once).",
        enums.EventType.WEBHOOK_DISABLED: "A webhook stopped: its receiver said 410 Gone, or "
        "failed for days.",
        enums.EventType.PROOF_UPLOADED: "A proof version was added to a work order.",
        enums.EventType.PROOF_APPROVED: "A proof version was approved.",
        enums.EventType.PROOF_CHANGES_REQUESTED: "A proof version was sent back with changes.",
    },
)
describe_values(
    DeliveryStatus,
    {
        DeliveryStatus.PENDING: "Waiting for its first attempt or its next retry.",
        DeliveryStatus.DELIVERED: "The receiver answered 2xx (an email: the mail server took it).",
        DeliveryStatus.DEAD: "Every attempt failed, or the receiver refused it for good (410 "
        "Gone; a mail server's 5xx for the recipient).",
    },
)
describe_values(MailCommand, {MailCommand.RESEND: "Send it again (`resendMailMessage`)."})
describe_values(
    MailKind,
    {
        MailKind.PROOF_READY: "To the customer: a proof waits for their approval (with a "
        "link to their page).",
        MailKind.CHANGES_REQUESTED: "To Sales: a customer asked for changes to a proof.",
        MailKind.READY_FOR_PICKUP: "To the customer: the order is done, to be picked up.",
        MailKind.OUT_FOR_DELIVERY: "To the customer: the order is on its way.",
        MailKind.DUE_LATER: "To the customer: the due date moved later.",
    },
)
