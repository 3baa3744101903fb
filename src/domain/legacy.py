"""How the old system's rows map onto Pressroom, decided without I/O.

The import never guesses. Each legacy order either becomes a planned work order or
is excluded with one reason (the first that applies, in the order of `Reason`):

Every order:
- `UNKNOWN_STATUS`: status (trimmed, any case) is not open, in_production, done,
  cancelled or quote.
- `QUOTE_ONLY`: status quote; it was never ordered, so it puts no work in a queue.
- `DUPLICATE_ORDER_NUMBER`: another legacy order has the same number (all of them are
  excluded), or a work order made in Pressroom has it. A missing number becomes
  `LEGACY-<id>`.
- `BAD_ORDER_NUMBER`: the number (trimmed) breaks the API's rule for one: 1-40 letters,
  digits, '.', '_', '/' or '-', starting with a letter or digit.
- `MISSING_CUSTOMER`: no customer name.
- `BAD_CUSTOMER_NAME`: the name breaks the API's rule for a customer's: over 200
  characters (trimmed), or a NUL character or a lone surrogate.
- `BAD_LINE_ITEM`: a line item without a quantity or unit price, or with a negative one
  (the quote, the sum of qty x unit price, would be a guess).
- `BAD_DETAILS`: what the work order's `details` would hold (the notes, the line items'
  descriptions and quantities, the unmapped steps of a finished or cancelled order)
  breaks the API's rule for details: over 16,384 bytes of JSON, a NUL character or a
  lone surrogate, or notes longer than the job's notes may be (4,000 characters).

Active orders (open, in_production) also need every step to be interpretable:
- `NO_STEPS`, `GENERIC_PRODUCTION_STEP` (a step named `production`), `UNKNOWN_STEP` (a
  step naming no PRODUCTION or DELIVERY department code), `DUPLICATE_STEP` (two steps
  for one department), `UNKNOWN_STEP_STATUS` (not pending, started or done),
  `UNKNOWN_OPERATOR` (a step's operator is no importable legacy user, or a started or
  done step names none).

Completed (done) and cancelled orders are history: they come over with a task for
each step that names a known department (the last such step wins), in its final
state, with its operator where known and the import's system user otherwise. A done
order's tasks are all COMPLETED; a cancelled order's done steps are COMPLETED and
the rest PENDING (a cancelled order never holds a started task). Steps that name no
department are kept in `details.legacySteps`. Every order gets its delivery task.

Numbers, customer names and details are checked with the very rules of
`domain.validation` that the API applies, and never shortened or cleaned beyond the
trimming the API does too. A value the API would refuse excludes its order whatever its
status: completed and cancelled orders too, because the API shows their numbers,
customers and details like any other order's.

Users are one per email (case-insensitive); an email that is not an address excludes
the legacy user (`BAD_EMAIL`), and so does a name the API would refuse (`BAD_NAME`: over
200 characters, a NUL character or a lone surrogate; a user without a name is named
after the part of the email before `@`, which must pass too). Admin comes only from
`is_admin` or a role `admin`; every other role is a worker's, and a role or `department`
text naming a department code (any case) is a membership. Payments become PAYMENT
entries unless their order is missing (`PAYMENT_ORDER_MISSING`) or excluded
(`PAYMENT_ORDER_EXCLUDED`), or their amount is missing or not positive
(`BAD_PAYMENT_AMOUNT`).
"""

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Any

from domain import validation
from domain.enums import DepartmentKind, TaskStatus, WorkOrderAction, WorkOrderStatus
from domain.errors import DomainError
from domain.legacy_records import (
    Department,
    Exclusion,
    LegacyItem,
    LegacyOrder,
    LegacyPayment,
    LegacyStep,
    LegacyUser,
    OrderMove,
    PlannedOrder,
    PlannedPayment,
    PlannedTask,
    PlannedUser,
    Reason,
    Record,
    UserPlan,
)
from domain.routing import TaskFacts
from domain.workflow import settle

IMPORT_REASON = "legacy import"
SYSTEM_USER_EMAIL = "legacy-import@pressroom.invalid"
SYSTEM_USER_NAME = "Legacy import"
GENERIC_PRODUCTION = "production"


ORDER_STATUSES = {
    "open": WorkOrderStatus.ACTIVE,
    "in_production": WorkOrderStatus.ACTIVE,
    "done": WorkOrderStatus.COMPLETED,
    "cancelled": WorkOrderStatus.CANCELLED,
}
QUOTE_STATUS = "quote"
STEP_STATUSES = {
    "pending": TaskStatus.PENDING,
    "started": TaskStatus.STARTED,
    "done": TaskStatus.COMPLETED,
}


def _norm(value: str | None) -> str:
    return (value or "").strip().lower()


def order_number(legacy_id: int, order_no: str | None) -> str:
    number = (order_no or "").strip()
    return number or f"LEGACY-{legacy_id}"


# --- users --------------------------------------------------------------------------------


def plan_users(users: Iterable[LegacyUser], departments: Mapping[str, Department]) -> UserPlan:
    plan = UserPlan()
    groups: dict[str, list[LegacyUser]] = {}
    for user in sorted(users, key=lambda u: u.id):
        try:
            email = validation.email(user.email or "")
        except DomainError:
            plan.excluded.append(
                Exclusion(Record.USER, user.id, None, Reason.BAD_EMAIL, f"email {user.email!r}")
            )
            continue
        try:
            validation.text(_user_name(user.name, email), "name")
        except DomainError as error:
            plan.excluded.append(
                Exclusion(Record.USER, user.id, None, Reason.BAD_NAME, error.message)
            )
            continue
        groups.setdefault(email.lower(), []).append(user)
        plan.email_of[user.id] = email.lower()
    for members in groups.values():
        texts = [m.department for m in members] + [r for m in members for r in m.roles]
        email = validation.email(members[0].email or "")
        names = [m.name for m in members if m.name and m.name.strip()]
        plan.users.append(
            PlannedUser(
                email=email,
                name=_user_name(names[0] if names else None, email),
                is_admin=any(m.is_admin for m in members)
                or any(_norm(r) == "admin" for m in members for r in m.roles),
                department_ids=frozenset(
                    departments[_norm(t)].id for t in texts if _norm(t) in departments
                ),
                legacy_ids=tuple(m.id for m in members),
            )
        )
    return plan


def _user_name(name: str | None, email: str) -> str:
    """The name given, trimmed, or else the part of the email before `@`."""
    return name.strip() if name and name.strip() else email.split("@")[0]


# --- orders -------------------------------------------------------------------------------


@dataclass(frozen=True)
class OrderContext:
    departments: Mapping[str, Department]  # by code
    known_operators: frozenset[int]  # legacy user ids that became Pressroom users
    duplicate_numbers: frozenset[str]  # numbers used by several legacy orders
    taken_numbers: frozenset[str]  # numbers of work orders made in Pressroom
    now: datetime

    @cached_property
    def delivery(self) -> Department:
        return next(d for d in self.departments.values() if d.kind is DepartmentKind.DELIVERY)

    @cached_property
    def by_id(self) -> dict[int, Department]:
        return {d.id: d for d in self.departments.values()}


def duplicate_numbers(numbers: Mapping[int, str | None]) -> frozenset[str]:
    """Numbers that several legacy orders share (`numbers`: legacy id -> order_no)."""
    counts = Counter(order_number(i, n) for i, n in numbers.items())
    return frozenset(n for n, c in counts.items() if c > 1)


class _Excluded(Exception):
    def __init__(self, reason: Reason, detail: str) -> None:
        self.reason = reason
        self.detail = detail


@contextmanager
def _rule(reason: Reason, about: str = "") -> Iterator[None]:
    """An API input rule applied to a legacy value: breaking it excludes the order, with
    the rule's own message."""
    try:
        yield
    except DomainError as error:
        raise _Excluded(reason, f"{error.message} {about}".strip()) from None


def plan_order(order: LegacyOrder, ctx: OrderContext) -> PlannedOrder | Exclusion:
    number = order_number(order.id, order.order_no)
    try:
        return _plan(order, number, ctx)
    except _Excluded as excluded:
        return Exclusion(Record.ORDER, order.id, number, excluded.reason, excluded.detail)


def _plan(order: LegacyOrder, number: str, ctx: OrderContext) -> PlannedOrder:
    raw_status = _norm(order.status)
    if raw_status == QUOTE_STATUS:
        raise _Excluded(Reason.QUOTE_ONLY, "a quote that was never ordered")
    status = ORDER_STATUSES.get(raw_status)
    if status is None:
        raise _Excluded(Reason.UNKNOWN_STATUS, f"status {order.status!r}")
    if number in ctx.duplicate_numbers:
        raise _Excluded(Reason.DUPLICATE_ORDER_NUMBER, f"{number} is used by other legacy orders")
    if number in ctx.taken_numbers:
        raise _Excluded(Reason.DUPLICATE_ORDER_NUMBER, f"{number} is already a Pressroom order")
    with _rule(Reason.BAD_ORDER_NUMBER):
        validation.order_number(number)
    if not (order.customer_name or "").strip():
        raise _Excluded(Reason.MISSING_CUSTOMER, "no customer name")
    with _rule(Reason.BAD_CUSTOMER_NAME):
        customer = validation.text(order.customer_name or "", "customer name")
    quote = _quote(order.items)
    live = status is WorkOrderStatus.ACTIVE
    details = _details(order, live, ctx)
    with _rule(Reason.BAD_DETAILS, "They would hold the notes, line items and unmapped steps."):
        validation.details(details)
    created = order.created_at or ctx.now
    if live:
        tasks = _live_tasks(order, created, ctx)
    else:
        tasks = _history_tasks(order, status, created, ctx)
    final_status, moves = _settle(status, tasks, created, ctx)
    return PlannedOrder(
        legacy_id=order.id,
        order_number=number,
        customer_name=customer,
        status=final_status,
        live=live,
        created_at=created,
        details=details,
        needs_installation=bool(order.install),
        needs_transport=bool(order.transport),
        needs_repair=bool(order.repair),
        quote_minor=quote,
        tasks=tuple(tasks),
        history=tuple(moves),
    )


def _details(order: LegacyOrder, live: bool, ctx: OrderContext) -> dict[str, Any]:
    details: dict[str, Any] = {"legacyId": order.id}
    if order.notes and order.notes.strip():
        details["notes"] = order.notes.strip()
    if order.items:
        details["items"] = [{"description": i.description, "quantity": i.qty} for i in order.items]
    unmapped = [s for s in order.steps if _department_of(s, ctx) is None]
    if unmapped and not live:
        details["legacySteps"] = [
            {"step": s.step, "status": s.status, "operatorId": s.operator_id} for s in unmapped
        ]
    return details


def _quote(items: Sequence[LegacyItem]) -> int | None:
    if not items:
        return None
    total = 0
    for item in items:
        if item.qty is None or item.unit_price_cents is None:
            raise _Excluded(Reason.BAD_LINE_ITEM, f"line item {item.description!r} has no price")
        if item.qty < 0 or item.unit_price_cents < 0:
            raise _Excluded(Reason.BAD_LINE_ITEM, f"line item {item.description!r} is negative")
        total += item.qty * item.unit_price_cents
    return total


def _department_of(step: LegacyStep, ctx: OrderContext) -> Department | None:
    dept = ctx.departments.get(_norm(step.step))
    if dept is None or dept.kind not in (DepartmentKind.PRODUCTION, DepartmentKind.DELIVERY):
        return None
    return dept


def _live_tasks(order: LegacyOrder, created: datetime, ctx: OrderContext) -> list[PlannedTask]:
    if not order.steps:
        raise _Excluded(Reason.NO_STEPS, "an active order without workflow steps")
    seen: set[int] = set()
    tasks = []
    for step in sorted(order.steps, key=lambda s: s.id):
        name = _norm(step.step)
        if name == GENERIC_PRODUCTION:
            raise _Excluded(
                Reason.GENERIC_PRODUCTION_STEP, f"step {step.id} says only 'production'"
            )
        dept = _department_of(step, ctx)
        if dept is None:
            raise _Excluded(Reason.UNKNOWN_STEP, f"step {step.id} names {step.step!r}")
        if dept.id in seen:
            raise _Excluded(Reason.DUPLICATE_STEP, f"two steps for {dept.code}")
        seen.add(dept.id)
        status = STEP_STATUSES.get(_norm(step.status))
        if status is None:
            raise _Excluded(
                Reason.UNKNOWN_STEP_STATUS, f"step {step.id} has status {step.status!r}"
            )
        worked = status is not TaskStatus.PENDING
        if (step.operator_id is not None and step.operator_id not in ctx.known_operators) or (
            worked and step.operator_id is None
        ):
            raise _Excluded(
                Reason.UNKNOWN_OPERATOR, f"step {step.id} names operator {step.operator_id}"
            )
        tasks.append(_task(dept, status, step, created, step.operator_id if worked else None))
    delivery = ctx.delivery
    if delivery.id not in seen:
        tasks.append(_task(delivery, TaskStatus.PENDING, None, created, None))
    return tasks


def _history_tasks(
    order: LegacyOrder, status: WorkOrderStatus, created: datetime, ctx: OrderContext
) -> list[PlannedTask]:
    last: dict[int, tuple[Department, LegacyStep]] = {}
    for step in sorted(order.steps, key=lambda s: s.id):
        dept = _department_of(step, ctx)
        if dept is not None:
            last[dept.id] = (dept, step)
    delivery = ctx.delivery
    tasks = []
    for dept, step in last.values():
        done = status is WorkOrderStatus.COMPLETED or _norm(step.status) == "done"
        operator = step.operator_id if step.operator_id in ctx.known_operators else None
        if done:
            tasks.append(_task(dept, TaskStatus.COMPLETED, step, created, operator))
        else:
            tasks.append(_task(dept, TaskStatus.PENDING, None, created, None))
    if delivery.id not in last:
        if status is WorkOrderStatus.COMPLETED:
            ends = [t.completed_at for t in tasks if t.completed_at is not None]
            when = max(ends, default=created)
            tasks.append(PlannedTask(delivery.id, TaskStatus.COMPLETED, None, when, None, when))
        else:
            tasks.append(_task(delivery, TaskStatus.PENDING, None, created, None))
    return tasks


def _task(
    dept: Department,
    status: TaskStatus,
    step: LegacyStep | None,
    created: datetime,
    operator: int | None,
) -> PlannedTask:
    started = step.started_at if step is not None and status is not TaskStatus.PENDING else None
    if status is TaskStatus.STARTED and started is None:
        started = created
    completed = None
    if status is TaskStatus.COMPLETED:
        assert step is not None
        completed = step.finished_at or step.started_at or created
    # A delivery task is available once it was worked on; production ones from the start.
    available = (started or completed) if dept.kind is DepartmentKind.DELIVERY else created
    return PlannedTask(dept.id, status, operator, available, started, completed)


def _settle(
    status: WorkOrderStatus, tasks: list[PlannedTask], created: datetime, ctx: OrderContext
) -> tuple[WorkOrderStatus, list[OrderMove]]:
    """The order's history: what Pressroom would have recorded, stamped with legacy times."""
    kinds = ctx.by_id
    latest = max(
        (t for t in (x.completed_at or x.started_at for x in tasks) if t is not None),
        default=created,
    )
    if status is WorkOrderStatus.COMPLETED:
        return status, [OrderMove(WorkOrderAction.COMPLETE, "ACTIVE", "COMPLETED", latest)]
    if status is WorkOrderStatus.CANCELLED:
        return status, [OrderMove(WorkOrderAction.CANCEL, "ACTIVE", "CANCELLED", latest)]
    facts = [
        TaskFacts(
            department_id=t.department_id,
            status=t.status,
            kind=kinds[t.department_id].kind,
            gates_delivery=kinds[t.department_id].gates_delivery,
            gate_open=t.available_at is not None,
        )
        for t in tasks
    ]
    # The legacy system had no routing: its production tasks were open as they ran.
    outcome = settle(WorkOrderStatus.ACTIVE, facts, {})
    moves = []
    if ctx.delivery.id in outcome.opens:
        # The gate opens now, on import: the delivery task enters its queue.
        moves.append(OrderMove(WorkOrderAction.OPEN_GATE, "CLOSED", "OPEN", ctx.now))
        delivery = ctx.delivery.id
        tasks[:] = [
            PlannedTask(
                t.department_id, t.status, t.operator_id, ctx.now, t.started_at, t.completed_at
            )
            if t.department_id == delivery
            else t
            for t in tasks
        ]
    if outcome.new_status is WorkOrderStatus.COMPLETED:
        moves.append(OrderMove(WorkOrderAction.COMPLETE, "ACTIVE", "COMPLETED", latest))
        return WorkOrderStatus.COMPLETED, moves
    return WorkOrderStatus.ACTIVE, moves


# --- payments -----------------------------------------------------------------------------


def plan_payment(
    payment: LegacyPayment,
    numbers: Mapping[int, str | None],  # every legacy order: id -> order_no
    excluded: Mapping[int, Reason],  # legacy order id -> why it was excluded
) -> PlannedPayment | Exclusion:
    if payment.order_id is None or payment.order_id not in numbers:
        return Exclusion(
            Record.PAYMENT,
            payment.id,
            None,
            Reason.PAYMENT_ORDER_MISSING,
            f"order {payment.order_id} does not exist",
        )
    number = order_number(payment.order_id, numbers[payment.order_id])
    if payment.order_id in excluded:
        return Exclusion(
            Record.PAYMENT,
            payment.id,
            number,
            Reason.PAYMENT_ORDER_EXCLUDED,
            f"its order was excluded ({excluded[payment.order_id]})",
        )
    if payment.amount_cents is None or payment.amount_cents <= 0:
        return Exclusion(
            Record.PAYMENT,
            payment.id,
            number,
            Reason.BAD_PAYMENT_AMOUNT,
            f"amount {payment.amount_cents}",
        )
    return PlannedPayment(payment.id, payment.order_id, -payment.amount_cents, payment.paid_at)
