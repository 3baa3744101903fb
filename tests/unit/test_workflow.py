"""The delivery gate and the work order's status as they follow from task states.

docs/state-machine.md: the gate opens when the last `gatesDelivery` production task
completes, exactly once; a work order with no gating task has its gate open at
creation; reopening a gating task while delivery is still PENDING closes it again
(once delivery has started, workflow.py documents that it stays open). The order is
COMPLETED with its last task, back to ACTIVE when a task is reopened, and a cancelled
order is terminal. The properties are checked over every work order of up to two gating
tasks, one non-gating task and delivery: a space small enough to enumerate, not sample.
"""

import itertools

import pytest

from domain.enums import DepartmentKind, TaskStatus, WorkOrderStatus
from domain.errors import DomainError, ErrorCode
from domain.routing import DepartmentFacts, TaskFacts, holding
from domain.workflow import (
    Settlement,
    gates_delivery,
    kind_choices,
    settle,
    task_departments,
)

P, S, C = TaskStatus.PENDING, TaskStatus.STARTED, TaskStatus.COMPLETED
ACTIVE = WorkOrderStatus.ACTIVE
COMPLETED = WorkOrderStatus.COMPLETED
CANCELLED = WorkOrderStatus.CANCELLED


DELIVERY = 99
# Production tasks here follow nothing (tests/unit/test_routing.py has routes): their
# gates are open, and only the delivery gate moves.
_ids = itertools.count(1)


def gating(status: TaskStatus) -> TaskFacts:
    return TaskFacts(next(_ids), status, DepartmentKind.PRODUCTION, True, gate_open=True)


def non_gating(status: TaskStatus) -> TaskFacts:
    """A production department such as Design, whose gatesDelivery is false."""
    return TaskFacts(next(_ids), status, DepartmentKind.PRODUCTION, False, gate_open=True)


def delivery(status: TaskStatus, *, gate_open: bool) -> TaskFacts:
    return TaskFacts(DELIVERY, status, DepartmentKind.DELIVERY, False, gate_open=gate_open)


def gate_should_be_open(tasks: list[TaskFacts]) -> bool:
    """The delivery gate's rule: nothing it waits for is unfinished."""
    return not holding(delivery(P, gate_open=False), tasks, {})


def unrouted(order: WorkOrderStatus, tasks: list[TaskFacts]) -> Settlement:
    return settle(order, tasks, {})


OPEN = Settlement(opens=(DELIVERY,))


# --- the delivery gate's rule --------------------------------------------------------------


def test_gate_is_open_with_only_the_delivery_task() -> None:
    assert gate_should_be_open([delivery(P, gate_open=False)]) is True


def test_gate_is_open_with_only_non_gating_production_tasks() -> None:
    assert gate_should_be_open([non_gating(P), non_gating(S), delivery(P, gate_open=False)])


@pytest.mark.parametrize("unfinished", [P, S])
def test_one_unfinished_gating_task_holds_the_gate(unfinished: TaskStatus) -> None:
    tasks = [gating(C), gating(unfinished), gating(C), delivery(P, gate_open=False)]
    assert gate_should_be_open(tasks) is False


def test_gate_opens_when_every_gating_task_is_completed() -> None:
    assert gate_should_be_open([gating(C), gating(C), delivery(P, gate_open=False)]) is True


@pytest.mark.parametrize("status", [P, S])
def test_non_gating_production_tasks_do_not_hold_the_gate(status: TaskStatus) -> None:
    assert gate_should_be_open([gating(C), non_gating(status), delivery(P, gate_open=False)])


def test_the_delivery_task_never_gates_itself() -> None:
    # Even if the delivery row were flagged gatesDelivery, only PRODUCTION tasks gate delivery.
    flagged = TaskFacts(DELIVERY, P, DepartmentKind.DELIVERY, True, gate_open=False)
    assert gate_should_be_open([gating(C), flagged]) is True


# --- settle: the gate ---------------------------------------------------------------------


def test_gate_opens_when_the_last_gating_task_completes() -> None:
    before = [gating(C), gating(S), non_gating(P), delivery(P, gate_open=False)]
    assert unrouted(ACTIVE, before) == Settlement()
    after = [gating(C), gating(C), non_gating(P), delivery(P, gate_open=False)]
    outcome = unrouted(ACTIVE, after)
    assert DELIVERY in outcome.opens
    assert DELIVERY not in outcome.closes
    assert outcome.new_status is None


def test_gate_never_reopens_when_already_open() -> None:
    outcome = unrouted(ACTIVE, [gating(C), gating(C), delivery(P, gate_open=True)])
    assert DELIVERY not in outcome.opens
    assert not outcome.changes_anything


def test_two_last_finishers_settled_one_after_the_other_open_the_gate_once() -> None:
    # The second settlement sees the first one's applied gate and must not open it again.
    first = unrouted(ACTIVE, [gating(C), gating(C), delivery(P, gate_open=False)])
    assert DELIVERY in first.opens
    second = unrouted(ACTIVE, [gating(C), gating(C), delivery(P, gate_open=True)])
    assert not second.opens


def test_order_without_gating_tasks_opens_its_gate_at_creation() -> None:
    outcome = unrouted(ACTIVE, [non_gating(P), delivery(P, gate_open=False)])
    assert DELIVERY in outcome.opens
    assert outcome.new_status is None


def test_order_with_only_a_delivery_task_opens_its_gate_at_creation() -> None:
    outcome = unrouted(ACTIVE, [delivery(P, gate_open=False)])
    assert outcome == OPEN


@pytest.mark.parametrize("status", [P, S])
def test_non_gating_task_does_not_keep_the_gate_closed(status: TaskStatus) -> None:
    outcome = unrouted(ACTIVE, [gating(C), non_gating(status), delivery(P, gate_open=False)])
    assert DELIVERY in outcome.opens


@pytest.mark.parametrize("status", [P, S])
def test_gate_stays_closed_while_a_gating_task_is_unfinished(status: TaskStatus) -> None:
    outcome = unrouted(ACTIVE, [gating(C), gating(status), delivery(P, gate_open=False)])
    assert not outcome.changes_anything


def test_reopening_a_gating_task_closes_the_gate_while_delivery_is_pending() -> None:
    outcome = unrouted(ACTIVE, [gating(C), gating(P), delivery(P, gate_open=True)])
    assert DELIVERY in outcome.closes
    assert DELIVERY not in outcome.opens
    assert outcome.new_status is None


def test_reopening_a_gating_task_of_a_completed_order_closes_the_gate_and_reactivates() -> None:
    # Delivery was reopened earlier (PENDING) and production is reopened now.
    outcome = unrouted(COMPLETED, [gating(P), delivery(P, gate_open=True)])
    assert outcome == Settlement(closes=(DELIVERY,), new_status=ACTIVE)


@pytest.mark.parametrize("delivery_status", [S, C])
def test_gate_stays_open_once_delivery_started_or_completed(delivery_status: TaskStatus) -> None:
    outcome = unrouted(ACTIVE, [gating(C), gating(P), delivery(delivery_status, gate_open=True)])
    assert DELIVERY not in outcome.closes
    assert DELIVERY not in outcome.opens


def test_reopening_a_non_gating_task_leaves_the_gate_open() -> None:
    outcome = unrouted(ACTIVE, [gating(C), non_gating(P), delivery(P, gate_open=True)])
    assert DELIVERY not in outcome.closes
    assert not outcome.changes_anything


def test_released_delivery_behind_a_reopened_gating_task_closes_the_gate() -> None:
    # Production reopened while delivery was STARTED (gate stayed open); the admin then
    # releases delivery back to PENDING. Settling that state closes the gate.
    outcome = unrouted(ACTIVE, [gating(P), delivery(P, gate_open=True)])
    assert DELIVERY in outcome.closes


# --- settle: the work order's status ------------------------------------------------------


def test_order_completes_when_all_tasks_complete() -> None:
    outcome = unrouted(ACTIVE, [gating(C), non_gating(C), delivery(C, gate_open=True)])
    assert outcome.new_status is COMPLETED
    assert not outcome.opens and not outcome.closes


@pytest.mark.parametrize("delivery_status", [P, S])
def test_order_is_not_complete_until_delivery_is(delivery_status: TaskStatus) -> None:
    outcome = unrouted(ACTIVE, [gating(C), delivery(delivery_status, gate_open=True)])
    assert outcome.new_status is None


@pytest.mark.parametrize("status", [P, S])
def test_a_non_gating_task_still_keeps_the_order_active(status: TaskStatus) -> None:
    outcome = unrouted(ACTIVE, [gating(C), non_gating(status), delivery(C, gate_open=True)])
    assert outcome.new_status is None


def test_completed_order_with_all_tasks_complete_stays_completed() -> None:
    assert unrouted(COMPLETED, [gating(C), delivery(C, gate_open=True)]) == Settlement()


@pytest.mark.parametrize(
    "tasks",
    [
        [gating(P), delivery(C, gate_open=True)],
        [gating(C), non_gating(P), delivery(C, gate_open=True)],
        [gating(C), delivery(P, gate_open=True)],
    ],
    ids=["gating-reopened", "non-gating-reopened", "delivery-reopened"],
)
def test_reopening_any_task_of_a_completed_order_makes_it_active_again(
    tasks: list[TaskFacts],
) -> None:
    assert unrouted(COMPLETED, tasks).new_status is ACTIVE


def test_reopened_gating_task_after_delivery_completed_reactivates_but_keeps_the_gate() -> None:
    outcome = unrouted(COMPLETED, [gating(P), delivery(C, gate_open=True)])
    assert outcome == Settlement(new_status=ACTIVE)


@pytest.mark.parametrize(
    "tasks",
    [
        [gating(C), gating(C), delivery(P, gate_open=False)],  # would open the gate
        [gating(P), delivery(P, gate_open=True)],  # would close the gate
        [gating(C), delivery(C, gate_open=True)],  # would complete the order
        [gating(P), delivery(C, gate_open=True)],  # would reactivate it
        [delivery(P, gate_open=False)],  # would open at creation
        [gating(P), non_gating(S), delivery(P, gate_open=False)],
    ],
)
def test_cancelled_orders_never_change(tasks: list[TaskFacts]) -> None:
    outcome = unrouted(CANCELLED, tasks)
    assert outcome == Settlement()
    assert not outcome.changes_anything


# --- Settlement ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("settlement", "changes"),
    [
        (Settlement(), False),
        (OPEN, True),
        (Settlement(closes=(DELIVERY,)), True),
        (Settlement(new_status=COMPLETED), True),
        (Settlement(new_status=ACTIVE), True),
    ],
)
def test_changes_anything(settlement: Settlement, changes: bool) -> None:
    assert settlement.changes_anything is changes


# --- exhaustive properties over small work orders -----------------------------------------


def _orders() -> list[tuple[WorkOrderStatus, list[TaskFacts]]]:
    cases = []
    for order, g1, g2, ng, d, gate in itertools.product(
        list(WorkOrderStatus),
        [None, *TaskStatus],
        [None, *TaskStatus],
        [None, *TaskStatus],
        [P, S, C],  # the delivery task is never removed
        [False, True],
    ):
        tasks = [gating(s) for s in (g1, g2) if s is not None]
        if ng is not None:
            tasks.append(non_gating(ng))
        tasks.append(delivery(d, gate_open=gate))
        cases.append((order, tasks))
    return cases


ORDERS = _orders()


def _apply(
    order: WorkOrderStatus, tasks: list[TaskFacts], outcome: Settlement
) -> tuple[WorkOrderStatus, list[TaskFacts]]:
    gate = tasks[-1].gate_open
    if DELIVERY in outcome.opens:
        gate = True
    if DELIVERY in outcome.closes:
        gate = False
    new_delivery = delivery(tasks[-1].status, gate_open=gate)
    return outcome.new_status or order, [*tasks[:-1], new_delivery]


def test_settlement_follows_the_design_rules_in_every_small_order() -> None:
    assert len(ORDERS) == 3 * 5 * 5 * 5 * 3 * 2
    for order, tasks in ORDERS:
        outcome = unrouted(order, tasks)
        label = f"{order} {[(t.kind.value, t.gates_delivery, t.status.value) for t in tasks]}"
        d = tasks[-1]
        if order is CANCELLED:
            assert outcome == Settlement(), label
            continue
        # A removed task takes no part.
        kept = [t for t in tasks if t.status is not TaskStatus.REMOVED]
        gating_done = all(t.status is C for t in kept if t.gates_delivery)
        all_done = all(t.status is C for t in kept)
        assert not (outcome.opens and outcome.closes), label
        assert outcome.opens == ((DELIVERY,) if gating_done and not d.gate_open else ()), label
        closes = not gating_done and d.gate_open and d.status is P
        assert outcome.closes == ((DELIVERY,) if closes else ()), label
        expected_status = None
        if order is ACTIVE and all_done:
            expected_status = COMPLETED
        elif order is COMPLETED and not all_done:
            expected_status = ACTIVE
        assert outcome.new_status is expected_status, label


def test_settling_twice_changes_nothing_the_second_time() -> None:
    for order, tasks in ORDERS:
        outcome = unrouted(order, tasks)
        again = unrouted(*_apply(order, tasks, outcome))
        assert not again.changes_anything, (order, tasks, outcome, again)


def test_after_settling_a_pending_delivery_is_available_exactly_when_production_is_done() -> None:
    for order, tasks in ORDERS:
        if order is CANCELLED or tasks[-1].status is not P:
            continue
        _, settled = _apply(order, tasks, unrouted(order, tasks))
        assert settled[-1].gate_open == gate_should_be_open(settled), (order, tasks)


# --- which departments get tasks, and who gates delivery ------------------------------------

DEPTS = {
    code: DepartmentFacts(i, code, kind, code.title())
    for i, (code, kind) in enumerate(
        [
            ("sales", DepartmentKind.SALES),
            ("accounts", DepartmentKind.ACCOUNTS),
            ("design", DepartmentKind.PRODUCTION),
            ("print", DepartmentKind.PRODUCTION),
            ("delivery", DepartmentKind.DELIVERY),
        ],
        start=1,
    )
}


@pytest.mark.parametrize(
    ("chosen", "ids"),
    [
        (["print"], [4, 5]),
        (["design", "print"], [3, 4, 5]),
        ([], [5]),
        (["delivery", "print"], [4, 5]),
    ],
)
def test_each_production_department_gets_a_task_and_delivery_always_does(
    chosen: list[str], ids: list[int]
) -> None:
    assert task_departments([DEPTS[c] for c in chosen], DEPTS.values()) == ids


@pytest.mark.parametrize("code", ["sales", "accounts"])
def test_sales_and_accounts_get_no_tasks(code: str) -> None:
    with pytest.raises(DomainError) as info:
        task_departments([DEPTS["print"], DEPTS[code]], DEPTS.values())
    assert (info.value.code, info.value.field) == (ErrorCode.INVALID_INPUT, "departmentCodes")
    assert code in info.value.message


def test_no_delivery_department_is_not_found() -> None:
    every = [d for d in DEPTS.values() if d.kind is not DepartmentKind.DELIVERY]
    with pytest.raises(DomainError) as info:
        task_departments([DEPTS["print"]], every)
    assert info.value.code is ErrorCode.NOT_FOUND


@pytest.mark.parametrize(
    ("kind", "asked", "gates"),
    [
        (DepartmentKind.PRODUCTION, None, True),
        (DepartmentKind.PRODUCTION, False, False),
        (DepartmentKind.PRODUCTION, True, True),
        (DepartmentKind.DELIVERY, None, False),
        (DepartmentKind.SALES, False, False),
    ],
)
def test_gates_delivery_defaults_by_kind(
    kind: DepartmentKind, asked: bool | None, gates: bool
) -> None:
    assert gates_delivery(kind, asked) is gates


@pytest.mark.parametrize("kind", [DepartmentKind.SALES, DepartmentKind.DELIVERY])
def test_only_production_can_gate_delivery(kind: DepartmentKind) -> None:
    with pytest.raises(DomainError) as info:
        gates_delivery(kind, True)
    assert info.value.field == "gatesDelivery"


def test_every_kind_is_offered_once_delivery_only_while_there_is_none() -> None:
    first = kind_choices([])
    assert sorted(c.kind for c in first) == sorted(DepartmentKind)
    assert first[0].kind is DepartmentKind.PRODUCTION
    assert all(c.available for c in first)
    later = {c.kind: c.available for c in kind_choices([DepartmentKind.DELIVERY])}
    assert later[DepartmentKind.DELIVERY] is False
    assert sum(later.values()) == len(DepartmentKind) - 1
