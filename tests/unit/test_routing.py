"""Routing: what each task of an order waits for, along the chain Design → Print →
Finishing with each department present or absent, and the loops setDepartmentFollows
refuses."""

import itertools

import pytest

from domain.enums import DepartmentKind, TaskStatus, WorkOrderStatus
from domain.errors import DomainError, ErrorCode
from domain.routing import DepartmentFacts, TaskFacts, check_follows, route_order, waits_for
from domain.workflow import opens_at_creation, settle

DESIGN, PRINT, FINISHING, CUTTING, DELIVERY = 1, 2, 3, 4, 9
NAMES = {DESIGN: "Design", PRINT: "Print", FINISHING: "Finishing", CUTTING: "Cutting",
         DELIVERY: "Delivery"}  # fmt: skip
# Finishing follows Print, Print follows Design; Design does not gate delivery.
ROUTE = {PRINT: [DESIGN], FINISHING: [PRINT]}
GATES_DELIVERY = {DESIGN: False, PRINT: True, FINISHING: True, CUTTING: True}
P, S, C = TaskStatus.PENDING, TaskStatus.STARTED, TaskStatus.COMPLETED
PRODUCTION, DELIVERY_KIND = DepartmentKind.PRODUCTION, DepartmentKind.DELIVERY


def task(department: int, status: TaskStatus = P, *, gate_open: bool = False) -> TaskFacts:
    kind = DELIVERY_KIND if department == DELIVERY else PRODUCTION
    return TaskFacts(department, status, kind, GATES_DELIVERY.get(department, False), gate_open)


# Which departments are on the order -> what each present task waits for.
CHAIN = {
    (): {DELIVERY: []},
    (DESIGN,): {DESIGN: [], DELIVERY: []},
    (PRINT,): {PRINT: [], DELIVERY: [PRINT]},
    (FINISHING,): {FINISHING: [], DELIVERY: [FINISHING]},
    (DESIGN, PRINT): {DESIGN: [], PRINT: [DESIGN], DELIVERY: [PRINT]},
    # Finishing passes through the absent Print to Design; delivery does not chain.
    (DESIGN, FINISHING): {DESIGN: [], FINISHING: [DESIGN], DELIVERY: [FINISHING]},
    (PRINT, FINISHING): {PRINT: [], FINISHING: [PRINT], DELIVERY: [PRINT, FINISHING]},
    (DESIGN, PRINT, FINISHING): {
        DESIGN: [], PRINT: [DESIGN], FINISHING: [PRINT], DELIVERY: [PRINT, FINISHING]
    },
}  # fmt: skip


def test_the_chain_table_covers_every_subset_of_the_chain() -> None:
    subsets = {c for n in range(4) for c in itertools.combinations((DESIGN, PRINT, FINISHING), n)}
    assert set(CHAIN) == subsets


@pytest.mark.parametrize("present", CHAIN, ids=lambda p: "+".join(NAMES[d] for d in p) or "none")
def test_a_task_waits_for_the_nearest_present_departments_up_the_chain(
    present: tuple[int, ...],
) -> None:
    tasks = [task(d) for d in (*present, DELIVERY)]
    found = {t.department_id: [w.department_id for w in waits_for(t, tasks, ROUTE)] for t in tasks}
    assert found == CHAIN[present]
    # At creation exactly the production tasks that wait for nothing are open.
    assert opens_at_creation(tasks, ROUTE) == [d for d in present if not CHAIN[present][d]]


def test_each_step_of_the_chain_opens_the_next_gate_and_no_other() -> None:
    route = [DESIGN, PRINT, FINISHING]
    tasks = {d: task(d, gate_open=d == DESIGN) for d in (*route, DELIVERY)}
    for step, department in enumerate(route):
        tasks[department] = task(department, C, gate_open=True)
        outcome = settle(WorkOrderStatus.ACTIVE, list(tasks.values()), ROUTE)
        following = [*route, DELIVERY][step + 1]
        assert outcome.opens == (following,), department
        assert outcome.closes == ()
        tasks[following] = task(following, gate_open=True)


def test_two_departments_followed_at_once_open_the_gate_after_both() -> None:
    route = {FINISHING: [PRINT, CUTTING]}
    tasks = [task(PRINT, C, gate_open=True), task(CUTTING, S, gate_open=True), task(FINISHING)]
    assert settle(WorkOrderStatus.ACTIVE, [*tasks, task(DELIVERY)], route).opens == ()
    tasks[1] = task(CUTTING, C, gate_open=True)
    outcome = settle(WorkOrderStatus.ACTIVE, [*tasks, task(DELIVERY)], route)
    assert outcome.opens == (FINISHING,)
    # The second settlement sees the first one's open gate: it opens nothing again.
    again = [*tasks[:2], task(FINISHING, gate_open=True), task(DELIVERY)]
    assert settle(WorkOrderStatus.ACTIVE, again, route).opens == ()


@pytest.mark.parametrize(("downstream", "closes"), [(P, (FINISHING,)), (S, ())])
def test_reopening_upstream_closes_a_gate_whose_task_has_not_started(
    downstream: TaskStatus, closes: tuple[int, ...]
) -> None:
    tasks = [
        task(DESIGN, C, gate_open=True),
        task(PRINT, P, gate_open=True),  # reopened
        task(FINISHING, downstream, gate_open=True),
        task(DELIVERY),
    ]
    assert settle(WorkOrderStatus.ACTIVE, tasks, ROUTE).closes == closes


def follows(department: int, *followed: int, routing: dict[int, list[int]]) -> list[int]:
    def it(d: int) -> DepartmentFacts:
        kind = DELIVERY_KIND if d == DELIVERY else PRODUCTION
        return DepartmentFacts(d, NAMES[d].lower(), kind, NAMES[d])

    return check_follows(it(department), [it(d) for d in followed], routing, NAMES)


@pytest.mark.parametrize(
    ("department", "followed", "says"),
    [
        (DESIGN, (FINISHING,),
         "Design waits for Finishing, which waits for Print, which waits for Design"),
        (DESIGN, (PRINT,), "Design waits for Print, which waits for Design"),
        (PRINT, (PRINT,), "Print waits for Print"),
    ],
)  # fmt: skip
def test_a_loop_is_refused_and_named(department: int, followed: tuple[int], says: str) -> None:
    with pytest.raises(DomainError) as error:
        follows(department, *followed, routing=ROUTE)
    assert (error.value.code, error.value.field) == (ErrorCode.INVALID_INPUT, "followsCodes")
    assert f"That would make a loop: {says}." == error.value.message


def test_a_route_without_a_loop_is_accepted_sorted_and_deduplicated() -> None:
    assert follows(FINISHING, CUTTING, PRINT, CUTTING, routing=ROUTE) == [PRINT, CUTTING]
    assert follows(DESIGN, routing=ROUTE) == []


@pytest.mark.parametrize(
    ("department", "followed", "field"),
    [(DELIVERY, (PRINT,), "departmentCode"), (PRINT, (DELIVERY,), "followsCodes")],
)
def test_only_production_departments_follow_or_are_followed(
    department: int, followed: tuple[int], field: str
) -> None:
    with pytest.raises(DomainError) as error:
        follows(department, *followed, routing=ROUTE)
    assert (error.value.code, error.value.field) == (ErrorCode.INVALID_INPUT, field)
    assert "PRODUCTION" not in error.value.message


def test_route_order_puts_a_department_after_those_it_follows_ties_by_name() -> None:
    # Ids, codes and names all against the route; Cutting follows Design like Print does,
    # and Finishing follows Print: steps Design 0, Cutting and Print 1, Finishing 2.
    facts = [
        DepartmentFacts(DELIVERY, "a", DELIVERY_KIND, "Delivery"),
        DepartmentFacts(FINISHING, "b", PRODUCTION, "Finishing"),
        DepartmentFacts(PRINT, "c", PRODUCTION, "Print"),
        DepartmentFacts(CUTTING, "d", PRODUCTION, "Cutting"),
        DepartmentFacts(DESIGN, "e", PRODUCTION, "Design"),
        DepartmentFacts(7, "f", DepartmentKind.SALES, "Sales"),
    ]
    route = {**ROUTE, CUTTING: [DESIGN]}
    assert route_order(facts, route) == [DESIGN, CUTTING, PRINT, FINISHING, DELIVERY, 7]
    # Without Print, Finishing still comes after Design, through the absent department.
    without_print = [f for f in facts if f.id != PRINT]
    assert route_order(without_print, route) == [DESIGN, CUTTING, FINISHING, DELIVERY, 7]
    # Unrouted: by name.
    assert route_order(facts, {}) == [CUTTING, DESIGN, FINISHING, PRINT, DELIVERY, 7]
