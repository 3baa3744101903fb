"""The approval gate and proof decisions as pure rules: which tasks wait for the customer,
that waiting keeps a gate shut by the one rule of every gate, what START answers, who
makes the proof, and why a decision that matched nothing did."""

import itertools
from dataclasses import replace

import pytest

from domain.enums import (
    DepartmentKind,
    EventType,
    ProofDecider,
    ProofStatus,
    TaskAction,
    TaskStatus,
    WorkOrderStatus,
)
from domain.errors import DomainError, ErrorCode, NotAllowed
from domain.proof_decisions import Decision, ProofState, decision, judge_decision
from domain.routing import ProofFacts, TaskFacts, awaits_proof, proof_makers
from domain.transitions import ActorFacts, TaskState, Verdict, judge
from domain.workflow import Settlement, needs_approved_proof, opens_at_creation, settle

DESIGN, PREPRESS, PRINT, FINISHING, SALES, DELIVERY = 1, 2, 3, 4, 5, 6
P, S, C = TaskStatus.PENDING, TaskStatus.STARTED, TaskStatus.COMPLETED
ACTIVE = WorkOrderStatus.ACTIVE
MEMBER = ActorFacts(user_id=7, is_admin=False, is_member=True)


def production(
    department: int, status: TaskStatus = P, *, gate_open: bool = False, waits: bool = False
) -> TaskFacts:
    return TaskFacts(department, status, DepartmentKind.PRODUCTION, True, gate_open, waits)


@pytest.mark.parametrize(
    ("required", "needs", "latest"),
    list(itertools.product([False, True], [False, True], [None, *ProofStatus])),
)
def test_a_task_waits_only_for_a_required_proof_its_department_needs_until_approved(
    required: bool, needs: bool, latest: ProofStatus | None
) -> None:
    expected = required and needs and latest is not ProofStatus.APPROVED
    assert awaits_proof(required, needs, latest) is expected


def test_waiting_for_the_proof_keeps_a_gate_shut_at_creation_and_after() -> None:
    tasks = [production(DESIGN), production(PRINT, waits=True)]
    assert opens_at_creation(tasks, {}) == [DESIGN]
    assert settle(ACTIVE, tasks, {}) == Settlement(opens=(DESIGN,))


def test_an_approval_opens_only_what_waits_for_nothing_else() -> None:
    route = {PRINT: [DESIGN]}
    pending_design = [production(DESIGN, gate_open=True), production(PRINT)]
    assert settle(ACTIVE, pending_design, route) == Settlement()
    design_done = [production(DESIGN, C, gate_open=True), production(PRINT)]
    assert settle(ACTIVE, design_done, route) == Settlement(opens=(PRINT,))


@pytest.mark.parametrize(
    ("status", "closes"), [(P, (PRINT,)), (S, ()), (C, ())], ids=["pending", "started", "done"]
)
def test_a_new_version_closes_only_a_pending_tasks_gate(
    status: TaskStatus, closes: tuple[int, ...]
) -> None:
    tasks = [production(PRINT, status, gate_open=True, waits=True), production(FINISHING, C)]
    assert settle(ACTIVE, tasks, {}).closes == closes


@pytest.mark.parametrize("waits", [True, False], ids=["proof", "tasks"])
def test_start_on_a_shut_gate_names_the_proof_when_that_is_what_it_waits_for(
    waits: bool,
) -> None:
    state = TaskState(
        status=P,
        picked_up_by=None,
        picked_up_by_name=None,
        available=False,
        order_status=ACTIVE,
        awaits_proof=waits,
    )
    with pytest.raises(DomainError) as refused:
        judge(TaskAction.START, state, MEMBER)
    expected = ErrorCode.PROOF_NOT_APPROVED if waits else ErrorCode.NOT_AVAILABLE
    assert refused.value.code is expected


def departments(route: dict[int, list[int]], needing: set[int]) -> list[ProofFacts]:
    """Design, Prepress, Print and Finishing (the last two gate delivery), Sales and
    Delivery."""
    made = [
        ProofFacts(
            d, DepartmentKind.PRODUCTION, d in (PRINT, FINISHING), d in needing, route.get(d, ())
        )
        for d in (DESIGN, PREPRESS, PRINT, FINISHING)
    ]
    others = [
        ProofFacts(SALES, DepartmentKind.SALES, False, False),
        ProofFacts(DELIVERY, DepartmentKind.DELIVERY, False, False),
    ]
    return made + others


# follows, departments that need a proof -> the proof's makers.
MAKERS = [
    ({PRINT: [DESIGN], FINISHING: [PRINT]}, {PRINT, FINISHING}, [DESIGN]),
    # Through a department that needs a proof too, not past one that needs none.
    ({PRINT: [PREPRESS], PREPRESS: [DESIGN]}, {PRINT}, [PREPRESS]),
    ({PRINT: [PREPRESS], PREPRESS: [DESIGN]}, {PRINT, PREPRESS}, [DESIGN]),
    ({FINISHING: [PRINT, DESIGN], PRINT: [PREPRESS]}, {FINISHING, PRINT}, [DESIGN, PREPRESS]),
    # The routing's say, even of a department that gates delivery.
    ({FINISHING: [PRINT], PRINT: [DESIGN]}, {FINISHING}, [PRINT]),
    # The routing names none: where work starts (following none, needing no proof, not
    # gating delivery).
    ({}, {PRINT}, [DESIGN, PREPRESS]),
    ({}, set(), [DESIGN, PREPRESS]),
    ({PRINT: [DESIGN], FINISHING: [PRINT], PREPRESS: [DESIGN]}, set(), [DESIGN]),
    # Every production department needs one: none makes it (Sales and admins upload).
    ({}, {DESIGN, PREPRESS, PRINT, FINISHING}, []),
]  # fmt: skip


@pytest.mark.parametrize(("route", "needing", "makers"), MAKERS)
def test_the_proofs_makers_are_the_nearest_upstream_that_need_none_else_where_work_starts(
    route: dict[int, list[int]], needing: set[int], makers: list[int]
) -> None:
    assert proof_makers(departments(route, needing)) == makers


@pytest.mark.parametrize("kind", [k for k in DepartmentKind if k is not DepartmentKind.PRODUCTION])
def test_only_production_departments_can_need_a_proof(kind: DepartmentKind) -> None:
    assert needs_approved_proof(kind, False) is False
    with pytest.raises(DomainError) as refused:
        needs_approved_proof(kind, True)
    assert (refused.value.code, refused.value.field) == (
        ErrorCode.INVALID_INPUT,
        "needsApprovedProof",
    )


# -- decisions ---------------------------------------------------------------------------------

APPROVE = decision(True, "  Ann ", None, ProofDecider.SALES)
CHANGES = decision(False, "Ann", " Bigger logo ", ProofDecider.CUSTOMER)


def state(
    status: ProofStatus, *, version: int = 2, latest: int = 2, order: WorkOrderStatus = ACTIVE
) -> ProofState:
    decided = "Bob" if status in (ProofStatus.APPROVED, ProofStatus.CHANGES_REQUESTED) else None
    return ProofState(version, status, latest, order, False, decided)


def test_a_decision_is_checked_and_says_itself_in_words() -> None:
    assert (APPROVE.decided_by_name, APPROVE.comment, APPROVE.kind) == (
        "Ann", None, EventType.PROOF_APPROVED
    )  # fmt: skip
    assert (CHANGES.status, CHANGES.comment) == (ProofStatus.CHANGES_REQUESTED, "Bigger logo")
    assert APPROVE.history(3) == "Version 3: approved by Ann, to Sales"
    assert (
        CHANGES.history(1) == "Version 1: changes asked for by Ann, through their link: Bigger logo"
    )


@pytest.mark.parametrize(
    ("approve", "name", "comment", "field"),
    [(True, " ", None, "approverName"), (False, "Ann", "  ", "comment"),
     (False, "Ann", None, "comment"), (True, "A" * 201, None, "approverName"),
     (False, "Ann", "x" * 1001, "comment")],
)  # fmt: skip
def test_a_nameless_or_wordless_decision_is_refused(
    approve: bool, name: str, comment: str | None, field: str
) -> None:
    with pytest.raises(DomainError) as refused:
        decision(approve, name, comment, ProofDecider.SALES)
    assert (refused.value.code, refused.value.field) == (ErrorCode.INVALID_INPUT, field)


@pytest.mark.parametrize(
    ("asked", "found", "outcome"),
    [
        (APPROVE, state(ProofStatus.APPROVED), Verdict.ALREADY_DONE),
        (CHANGES, state(ProofStatus.CHANGES_REQUESTED), Verdict.ALREADY_DONE),
        (APPROVE, state(ProofStatus.PENDING), Verdict.RETRY),
        (APPROVE, state(ProofStatus.CHANGES_REQUESTED), ErrorCode.ALREADY_DECIDED),
        (CHANGES, state(ProofStatus.APPROVED), ErrorCode.ALREADY_DECIDED),
        (APPROVE, state(ProofStatus.WITHDRAWN, latest=3), ErrorCode.PROOF_SUPERSEDED),
        (APPROVE, state(ProofStatus.CHANGES_REQUESTED, latest=3), ErrorCode.PROOF_SUPERSEDED),
        (APPROVE, state(ProofStatus.PENDING, order=WorkOrderStatus.CANCELLED),
         ErrorCode.WORK_ORDER_CLOSED),
        (APPROVE, None, ErrorCode.NOT_FOUND),
        (APPROVE, replace(state(ProofStatus.PENDING), way_in=False), NotAllowed),
        (APPROVE, replace(state(ProofStatus.APPROVED), way_in=False), NotAllowed),
    ],
)  # fmt: skip
def test_a_decision_that_matched_nothing_is_judged(
    asked: Decision, found: ProofState | None, outcome: Verdict | ErrorCode | type[NotAllowed]
) -> None:
    if isinstance(outcome, Verdict):
        assert judge_decision(asked, 2, found) is outcome
        return
    if outcome is NotAllowed:
        with pytest.raises(NotAllowed):
            judge_decision(asked, 2, found)
        return
    with pytest.raises(DomainError) as refused:
        judge_decision(asked, 2, found)
    assert refused.value.code is outcome
    if outcome is ErrorCode.ALREADY_DECIDED:
        assert "Bob" in refused.value.message
