"""The legacy import's records, without rules: the old system's rows, the Pressroom
departments they map onto, why a row is excluded, and the rows the plan makes
(domain.legacy decides which)."""

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from domain.enums import DepartmentKind, TaskAction, TaskStatus, WorkOrderAction, WorkOrderStatus


class Reason(StrEnum):
    UNKNOWN_STATUS = "UNKNOWN_STATUS"
    QUOTE_ONLY = "QUOTE_ONLY"
    DUPLICATE_ORDER_NUMBER = "DUPLICATE_ORDER_NUMBER"
    BAD_ORDER_NUMBER = "BAD_ORDER_NUMBER"
    MISSING_CUSTOMER = "MISSING_CUSTOMER"
    BAD_CUSTOMER_NAME = "BAD_CUSTOMER_NAME"
    BAD_LINE_ITEM = "BAD_LINE_ITEM"
    BAD_DETAILS = "BAD_DETAILS"
    NO_STEPS = "NO_STEPS"
    GENERIC_PRODUCTION_STEP = "GENERIC_PRODUCTION_STEP"
    UNKNOWN_STEP = "UNKNOWN_STEP"
    DUPLICATE_STEP = "DUPLICATE_STEP"
    UNKNOWN_STEP_STATUS = "UNKNOWN_STEP_STATUS"
    UNKNOWN_OPERATOR = "UNKNOWN_OPERATOR"
    PAYMENT_ORDER_MISSING = "PAYMENT_ORDER_MISSING"
    PAYMENT_ORDER_EXCLUDED = "PAYMENT_ORDER_EXCLUDED"
    BAD_PAYMENT_AMOUNT = "BAD_PAYMENT_AMOUNT"
    BAD_EMAIL = "BAD_EMAIL"
    BAD_NAME = "BAD_NAME"


class Record(StrEnum):
    ORDER = "order"
    PAYMENT = "payment"
    USER = "user"


# --- the old system's rows ----------------------------------------------------------------


@dataclass(frozen=True)
class LegacyUser:
    id: int
    email: str | None
    name: str | None
    department: str | None
    is_admin: bool | None
    roles: tuple[str | None, ...] = ()


@dataclass(frozen=True)
class LegacyStep:
    id: int
    step: str | None
    status: str | None
    operator_id: int | None
    started_at: datetime | None
    finished_at: datetime | None


@dataclass(frozen=True)
class LegacyItem:
    description: str | None
    qty: int | None
    unit_price_cents: int | None


@dataclass(frozen=True)
class LegacyOrder:
    id: int
    order_no: str | None
    customer_name: str | None
    status: str | None
    created_at: datetime | None
    notes: str | None
    install: bool | None
    transport: bool | None
    repair: bool | None
    steps: tuple[LegacyStep, ...] = ()
    items: tuple[LegacyItem, ...] = ()


@dataclass(frozen=True)
class LegacyPayment:
    id: int
    order_id: int | None
    amount_cents: int | None
    paid_at: datetime | None


# --- what Pressroom already holds ------------------------------------------------------------


@dataclass(frozen=True)
class Department:
    id: int
    code: str
    kind: DepartmentKind
    gates_delivery: bool


@dataclass(frozen=True)
class Exclusion:
    record: Record
    legacy_id: int
    order_number: str | None
    reason: Reason
    detail: str


# --- the plan -----------------------------------------------------------------------------


@dataclass(frozen=True)
class PlannedTask:
    department_id: int
    status: TaskStatus
    operator_id: int | None  # a legacy user id; None means the import's system user
    available_at: datetime | None
    started_at: datetime | None
    completed_at: datetime | None

    @property
    def occurred_at(self) -> datetime | None:
        return self.completed_at or self.started_at

    @property
    def action(self) -> TaskAction | None:
        """The history row that explains how the task got its state (None for PENDING)."""
        return {
            TaskStatus.PENDING: None,
            TaskStatus.STARTED: TaskAction.START,
            TaskStatus.COMPLETED: TaskAction.OVERRIDE_COMPLETE,
        }[self.status]


@dataclass(frozen=True)
class OrderMove:
    action: WorkOrderAction
    from_state: str
    to_state: str
    occurred_at: datetime


@dataclass(frozen=True)
class PlannedOrder:
    legacy_id: int
    order_number: str
    customer_name: str
    status: WorkOrderStatus
    live: bool  # an active order: its tasks enter the queues, with events
    created_at: datetime
    details: dict[str, Any]
    needs_installation: bool
    needs_transport: bool
    needs_repair: bool
    quote_minor: int | None
    tasks: tuple[PlannedTask, ...]
    history: tuple[OrderMove, ...]


@dataclass(frozen=True)
class PlannedUser:
    email: str
    name: str
    is_admin: bool
    department_ids: frozenset[int]
    legacy_ids: tuple[int, ...]


@dataclass(frozen=True)
class PlannedPayment:
    legacy_id: int
    order_legacy_id: int
    amount_minor: int  # signed as stored: a payment lowers what is owed
    paid_at: datetime | None

    @property
    def idempotency_key(self) -> str:
        return payment_key(self.legacy_id)


def payment_key(legacy_id: int) -> str:
    return f"legacy-payment:{legacy_id}"


@dataclass
class UserPlan:
    users: list[PlannedUser] = field(default_factory=list)
    excluded: list[Exclusion] = field(default_factory=list)
    # Legacy user id -> lowercased email of the Pressroom user it became.
    email_of: dict[int, str] = field(default_factory=dict)
