"""The model's closed vocabularies as people read them: what a message shows instead of an
enum's name (the API's enums stay as they are)."""

from domain.enums import (
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


def either(words: list[str]) -> str:
    """ "waiting", "waiting or in progress", "a, b or c"."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def every(words: list[str]) -> str:
    """ "Print", "Print and Finishing", "Design, Print and Finishing"."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
