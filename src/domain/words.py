"""The model's closed vocabularies as people read them: what a message shows instead of an
enum's name (the API's enums stay as they are)."""

from domain.enums import (
    EventType,
    LedgerEntryKind,
    TaskAction,
    TaskStatus,
    WorkOrderAction,
    WorkOrderPriority,
    WorkOrderStatus,
)

TASK_STATUS = {
    TaskStatus.PENDING: "waiting",
    TaskStatus.STARTED: "in progress",
    TaskStatus.COMPLETED: "done",
    TaskStatus.REMOVED: "removed",
}
TASK_ACTION = {
    TaskAction.START: "start",
    TaskAction.FINISH: "finish",
    TaskAction.RELEASE: "release",
    TaskAction.OVERRIDE_COMPLETE: "complete",
    TaskAction.REOPEN: "reopen",
    TaskAction.REMOVE: "remove",
}
ORDER_STATUS = {
    WorkOrderStatus.ACTIVE: "active",
    WorkOrderStatus.COMPLETED: "completed",
    WorkOrderStatus.CANCELLED: "cancelled",
}
ORDER_ACTION = {
    WorkOrderAction.COMPLETE: "complete",
    WorkOrderAction.REACTIVATE: "reactivate",
    WorkOrderAction.CANCEL: "cancel",
}
PRIORITY = {WorkOrderPriority.NORMAL: "normal priority", WorkOrderPriority.RUSH: "rush"}
LEDGER_KIND = {
    LedgerEntryKind.CHARGE: "charge",
    LedgerEntryKind.PAYMENT: "payment",
    LedgerEntryKind.CREDIT: "credit",
    LedgerEntryKind.REFUND: "refund",
    LedgerEntryKind.ADJUSTMENT: "adjustment",
}

EVENT_KIND = {
    EventType.TASK_CREATED: "A task was added to a work order",
    EventType.TASK_CHANGED: "A task moved (started, finished, released, completed, reopened)",
    EventType.TASK_WITHDRAWN: "A task left its queue (its order was cancelled or put on hold)",
    EventType.TASK_REQUEUED: "A task came back to its queue or moved in it",
    EventType.TASK_GATE_OPENED: "A task's turn came (what it waits for is done)",
    EventType.TASK_GATE_CLOSED: "A task waits again",
    EventType.DELIVERY_GATE_OPENED: "Delivery may start",
    EventType.DELIVERY_GATE_CLOSED: "Delivery waits again",
    EventType.WORK_ORDER_CREATED: "A work order was created",
    EventType.WORK_ORDER_CHANGED: "A work order changed",
    EventType.TOKEN_REVOKED: "A token was revoked",
    EventType.LEDGER_ENTRY_POSTED: "A ledger entry was posted",
    EventType.USER_ACCESS_CHANGED: "Someone's access changed",
    EventType.WORK_ORDER_DUE_SOON: "A work order is due soon",
    EventType.WORK_ORDER_LATE: "A work order is late",
    EventType.TASK_STALE: "A started task was left untouched",
    EventType.WEBHOOK_DISABLED: "A webhook stopped by itself",
    EventType.PROOF_UPLOADED: "A proof was uploaded for the customer's approval",
    EventType.PROOF_APPROVED: "The customer approved a proof",
    EventType.PROOF_CHANGES_REQUESTED: "The customer asked for changes to a proof",
}


def either(words: list[str]) -> str:
    """ "waiting", "waiting or in progress", "a, b or c"."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def every(words: list[str]) -> str:
    """ "Print", "Print and Finishing", "Design, Print and Finishing"."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
