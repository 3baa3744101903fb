"""The task state machine of docs/state-machine.md, and the judge that explains a refused move.

Expectations come from the design's table, written out again here (not read back from
`TRANSITIONS`), so a drift in either the table or the judge fails a test.
"""

import re
from dataclasses import dataclass

import pytest

from domain import words
from domain.enums import DepartmentKind, TaskAction, TaskStatus, WorkOrderAction, WorkOrderStatus
from domain.errors import DomainError, ErrorCode, NotAllowed
from domain.routing import TaskFacts
from domain.transitions import (
    ORDER_TRANSITIONS,
    TRANSITIONS,
    ActorFacts,
    TaskState,
    Verdict,
    Who,
    allowed_actions,
    judge,
    refuse_order_move,
)
from domain.workflow import settle

P, S, C = TaskStatus.PENDING, TaskStatus.STARTED, TaskStatus.COMPLETED
ACTIVE = WorkOrderStatus.ACTIVE
COMPLETED_ORDER = WorkOrderStatus.COMPLETED
CANCELLED = WorkOrderStatus.CANCELLED


@dataclass(frozen=True)
class Row:
    """One row of the table in docs/state-machine.md, written out by hand."""

    sources: frozenset[TaskStatus]
    target: TaskStatus
    who: str
    reason_required: bool
    requires_available: bool
    requires_active_order: bool


DOCUMENTED: dict[TaskAction, Row] = {
    TaskAction.START: Row(frozenset({P}), S, "member of the task's department", False, True, True),
    TaskAction.FINISH: Row(frozenset({S}), C, "the worker who started it", False, False, False),
    TaskAction.RELEASE: Row(frozenset({S}), P, "admin", True, False, False),
    TaskAction.OVERRIDE_COMPLETE: Row(frozenset({P, S}), C, "admin", True, False, False),
    TaskAction.REOPEN: Row(frozenset({C}), P, "admin", True, False, False),
    TaskAction.REMOVE: Row(frozenset({P}), TaskStatus.REMOVED, "Sales or admin", True, False, True),
}
ADMIN_ACTIONS = [a for a, row in DOCUMENTED.items() if row.who == "admin"]

HOLDER_ID, HOLDER_NAME = 7, "Grace Hopper"
OTHER_ID = 9

# The actor kinds of the brief. "member"/"outsider" are about the task's department.
MEMBER = ActorFacts(user_id=OTHER_ID, is_admin=False, is_member=True)
OUTSIDER = ActorFacts(user_id=OTHER_ID, is_admin=False, is_member=False)
ADMIN = ActorFacts(user_id=OTHER_ID, is_admin=True, is_member=False)
ADMIN_MEMBER = ActorFacts(user_id=OTHER_ID, is_admin=True, is_member=True)
HOLDER = ActorFacts(user_id=HOLDER_ID, is_admin=False, is_member=True)
HOLDER_NOT_MEMBER = ActorFacts(user_id=HOLDER_ID, is_admin=False, is_member=False)
ADMIN_HOLDER = ActorFacts(user_id=HOLDER_ID, is_admin=True, is_member=True)
SALES = ActorFacts(user_id=OTHER_ID, is_admin=False, is_member=False, is_sales=True)
NON_ADMINS = {"member": MEMBER, "outsider": OUTSIDER, "holder": HOLDER}


def task(
    status: TaskStatus,
    *,
    available: bool = True,
    order: WorkOrderStatus = ACTIVE,
) -> TaskState:
    """A task as re-read from the database: held by HOLDER unless PENDING."""
    held = status is not P
    return TaskState(
        status=status,
        picked_up_by=HOLDER_ID if held else None,
        picked_up_by_name=HOLDER_NAME if held else None,
        available=available,
        order_status=order,
    )


def refusal(action: TaskAction, state: TaskState, actor: ActorFacts) -> DomainError:
    with pytest.raises(DomainError) as info:
        judge(action, state, actor)
    return info.value


# The words a message says for a task's or an order's state or move (domain.words), by
# the enum's name.
WORDS = {
    "task": {str(m): w for t in (words.TASK_STATUS, words.TASK_ACTION) for m, w in t.items()},
    "order": {str(m): w for t in (words.ORDER_STATUS, words.ORDER_ACTION) for m, w in t.items()},
}


def names(message: str, name: str, of: str = "task") -> bool:
    """Whether `message` names the state or move `name` in words, never as the enum."""
    word = WORDS[of].get(name, name)
    return re.search(rf"\b{re.escape(word)}\b", message) is not None and (
        name == word or name not in message
    )


# --- the table itself ---------------------------------------------------------------------


def test_table_has_exactly_the_actions_of_the_design() -> None:
    assert set(TRANSITIONS) == set(DOCUMENTED) == set(TaskAction)


@pytest.mark.parametrize("action", list(DOCUMENTED))
def test_table_row_matches_design(action: TaskAction) -> None:
    rule, row = TRANSITIONS[action], DOCUMENTED[action]
    assert rule.action is action
    assert rule.sources == row.sources
    assert rule.target is row.target
    assert rule.who.value == row.who
    assert rule.reason_required is row.reason_required
    assert rule.requires_available is row.requires_available
    assert rule.requires_active_order is row.requires_active_order


def test_who_values_are_the_design_column_text() -> None:
    assert {w.value for w in Who} == {row.who for row in DOCUMENTED.values()}


def test_no_move_leads_from_a_state_to_itself() -> None:
    for rule in TRANSITIONS.values():
        assert rule.target not in rule.sources, rule.action


def test_transitions_are_immutable() -> None:
    with pytest.raises(AttributeError):
        TRANSITIONS[TaskAction.START].target = C  # type: ignore[misc]


@pytest.mark.parametrize(
    ("action", "settles"),
    [
        (TaskAction.FINISH, True),
        (TaskAction.OVERRIDE_COMPLETE, True),
        (TaskAction.REOPEN, True),
        (TaskAction.START, False),
    ],
)
def test_moves_into_or_out_of_completed_settle_the_order(action: TaskAction, settles: bool) -> None:
    assert TRANSITIONS[action].settles_order is settles


def test_release_settles_the_order_since_it_can_leave_delivery_pending_behind_open_gate() -> None:
    # Production was reopened while delivery was STARTED, so the gate stayed open
    # (workflow.py's documented decision). The admin then releases the delivery task to
    # send delivery back. The state after RELEASE is one that `settle` closes the gate for:
    after_release = [
        TaskFacts(1, P, DepartmentKind.PRODUCTION, gates_delivery=True, gate_open=True),
        TaskFacts(2, P, DepartmentKind.DELIVERY, gates_delivery=False, gate_open=True),
    ]
    assert settle(ACTIVE, after_release, {}).closes == (2,)
    # ... yet the writer only settles after moves with `settles_order`.
    assert TRANSITIONS[TaskAction.RELEASE].settles_order


# --- judge: every action against every state, by an actor the table permits ---------------

# An actor allowed to ask for the move, who does not already hold a finished outcome.
PERMITTED: dict[TaskAction, ActorFacts] = {
    TaskAction.START: MEMBER,
    TaskAction.FINISH: HOLDER,
    TaskAction.RELEASE: ADMIN,
    TaskAction.OVERRIDE_COMPLETE: ADMIN,
    TaskAction.REOPEN: ADMIN,
    TaskAction.REMOVE: SALES,
}

MATRIX = [(action, status) for action in DOCUMENTED for status in TaskStatus]


@pytest.mark.parametrize(("action", "status"), MATRIX)
def test_judge_every_action_in_every_state(action: TaskAction, status: TaskStatus) -> None:
    row = DOCUMENTED[action]
    actor = PERMITTED[action]
    state = task(status)
    if action is TaskAction.FINISH and status is C:
        # The holder asking to finish what they already finished: covered as quiet success.
        actor = MEMBER
    if status in row.sources:
        assert judge(action, state, actor) is Verdict.RETRY
    elif action is TaskAction.START and status is S:
        assert refusal(action, state, actor).code is ErrorCode.ALREADY_TAKEN
    else:
        error = refusal(action, state, actor)
        assert error.code is ErrorCode.INVALID_TRANSITION
        assert names(error.message, action.value)
        assert names(error.message, status.value)
        assert names(error.message, row.target.value)
        for source in row.sources:
            assert names(error.message, source.value)


def test_invalid_transition_message_names_both_states() -> None:
    error = refusal(TaskAction.REOPEN, task(S), ADMIN)
    assert error.code is ErrorCode.INVALID_TRANSITION
    # The state it is in, and what REOPEN would need and produce.
    assert names(error.message, "STARTED")
    assert names(error.message, "COMPLETED")
    assert names(error.message, "PENDING")


def test_override_complete_of_a_completed_task_names_both_sources() -> None:
    error = refusal(TaskAction.OVERRIDE_COMPLETE, task(C), ADMIN)
    assert error.code is ErrorCode.INVALID_TRANSITION
    assert names(error.message, "PENDING") and names(error.message, "STARTED")


# --- quiet successes ----------------------------------------------------------------------


def test_start_by_the_holder_of_a_started_task_is_a_quiet_success() -> None:
    assert judge(TaskAction.START, task(S), HOLDER) is Verdict.ALREADY_DONE


def test_finish_by_the_worker_who_completed_it_is_a_quiet_success() -> None:
    assert judge(TaskAction.FINISH, task(C), HOLDER) is Verdict.ALREADY_DONE


def test_finish_by_the_completer_is_quiet_even_if_no_longer_a_member() -> None:
    assert judge(TaskAction.FINISH, task(C), HOLDER_NOT_MEMBER) is Verdict.ALREADY_DONE


@pytest.mark.parametrize("actor", [MEMBER, ADMIN, ADMIN_MEMBER], ids=["member", "admin", "both"])
def test_finish_of_a_task_someone_else_completed_is_not_quiet(actor: ActorFacts) -> None:
    error = refusal(TaskAction.FINISH, task(C), actor)
    assert error.code is ErrorCode.INVALID_TRANSITION


@pytest.mark.parametrize(
    ("action", "status"),
    [
        (TaskAction.RELEASE, P),
        (TaskAction.OVERRIDE_COMPLETE, C),
        (TaskAction.REOPEN, P),
    ],
)
def test_admin_moves_whose_outcome_holds_are_errors_not_silent_no_ops(
    action: TaskAction, status: TaskStatus
) -> None:
    # Only START and FINISH have quiet successes in the design; the rest name both states.
    error = refusal(action, task(status), ADMIN_HOLDER)
    assert error.code is ErrorCode.INVALID_TRANSITION


def test_start_of_a_completed_task_by_its_former_holder_is_not_quiet() -> None:
    error = refusal(TaskAction.START, task(C), HOLDER)
    assert error.code is ErrorCode.INVALID_TRANSITION


# --- START --------------------------------------------------------------------------------


@pytest.mark.parametrize("actor", [MEMBER, ADMIN_MEMBER], ids=["member", "admin-member"])
def test_start_of_an_available_pending_task_by_a_member_may_be_retried(actor: ActorFacts) -> None:
    assert judge(TaskAction.START, task(P), actor) is Verdict.RETRY


@pytest.mark.parametrize("actor", [OUTSIDER, ADMIN], ids=["other-department", "admin"])
@pytest.mark.parametrize("status", list(TaskStatus))
def test_start_by_a_non_member_is_not_allowed(actor: ActorFacts, status: TaskStatus) -> None:
    with pytest.raises(NotAllowed):
        judge(TaskAction.START, task(status), actor)


@pytest.mark.parametrize("actor", [MEMBER, ADMIN_MEMBER], ids=["member", "admin-member"])
def test_start_of_a_task_someone_else_holds_is_already_taken_and_names_them(
    actor: ActorFacts,
) -> None:
    error = refusal(TaskAction.START, task(S), actor)
    assert error.code is ErrorCode.ALREADY_TAKEN
    assert HOLDER_NAME in error.message


def test_already_taken_names_whoever_holds_it() -> None:
    state = TaskState(
        status=S,
        picked_up_by=42,
        picked_up_by_name="Katherine Johnson",
        available=True,
        order_status=ACTIVE,
    )
    error = refusal(TaskAction.START, state, MEMBER)
    assert "Katherine Johnson" in error.message
    assert HOLDER_NAME not in error.message


def test_start_of_an_unavailable_task_is_not_available() -> None:
    error = refusal(TaskAction.START, task(P, available=False), MEMBER)
    assert error.code is ErrorCode.NOT_AVAILABLE
    assert "waits for" in error.message


def test_start_needs_an_active_order() -> None:
    error = refusal(TaskAction.START, task(P, order=COMPLETED_ORDER), MEMBER)
    assert error.code is ErrorCode.WORK_ORDER_CLOSED
    assert names(error.message, "COMPLETED", "order")


def test_start_by_the_holder_is_quiet_even_when_the_gate_closed_since() -> None:
    assert judge(TaskAction.START, task(S, available=False), HOLDER) is Verdict.ALREADY_DONE


# --- FINISH -------------------------------------------------------------------------------


def test_finish_by_the_holder_may_be_retried() -> None:
    assert judge(TaskAction.FINISH, task(S), HOLDER) is Verdict.RETRY


def test_finish_by_the_holder_needs_no_membership() -> None:
    # The design's "who" for FINISH is the worker who started it, nothing else.
    assert judge(TaskAction.FINISH, task(S), HOLDER_NOT_MEMBER) is Verdict.RETRY


@pytest.mark.parametrize(
    "actor",
    [MEMBER, OUTSIDER, ADMIN, ADMIN_MEMBER],
    ids=["member", "other-department", "admin", "admin-member"],
)
def test_finish_by_anyone_but_the_holder_is_refused_naming_the_holder(actor: ActorFacts) -> None:
    error = refusal(TaskAction.FINISH, task(S), actor)
    assert error.code is ErrorCode.NOT_TASK_HOLDER
    assert HOLDER_NAME in error.message


def test_finish_is_allowed_on_a_completed_order() -> None:
    # FINISH's guard is "work order not CANCELLED", not "ACTIVE".
    assert judge(TaskAction.FINISH, task(S, order=COMPLETED_ORDER), HOLDER) is Verdict.RETRY


def test_finish_of_a_pending_task_is_an_invalid_transition() -> None:
    error = refusal(TaskAction.FINISH, task(P), MEMBER)
    assert error.code is ErrorCode.INVALID_TRANSITION
    assert names(error.message, "PENDING") and names(error.message, "STARTED")


# --- admin actions ------------------------------------------------------------------------


@pytest.mark.parametrize("action", ADMIN_ACTIONS)
@pytest.mark.parametrize("status", list(TaskStatus))
@pytest.mark.parametrize("who", list(NON_ADMINS))
def test_admin_actions_are_not_allowed_to_non_admins(
    action: TaskAction, status: TaskStatus, who: str
) -> None:
    with pytest.raises(NotAllowed):
        judge(action, task(status), NON_ADMINS[who])


@pytest.mark.parametrize("action", ADMIN_ACTIONS)
@pytest.mark.parametrize("actor", [ADMIN, ADMIN_MEMBER, ADMIN_HOLDER], ids=["out", "in", "holder"])
def test_admin_actions_need_no_membership_or_holding(action: TaskAction, actor: ActorFacts) -> None:
    source = sorted(DOCUMENTED[action].sources)[0]
    assert judge(action, task(source), actor) is Verdict.RETRY


@pytest.mark.parametrize("action", ADMIN_ACTIONS)
def test_admin_actions_are_allowed_on_a_completed_order(action: TaskAction) -> None:
    # Only START needs an ACTIVE order; REOPEN of a completed order's task is the normal case.
    for source in DOCUMENTED[action].sources:
        assert judge(action, task(source, order=COMPLETED_ORDER), ADMIN) is Verdict.RETRY


@pytest.mark.parametrize("action", ADMIN_ACTIONS)
def test_admin_actions_ignore_availability(action: TaskAction) -> None:
    for source in DOCUMENTED[action].sources:
        assert judge(action, task(source, available=False), ADMIN) is Verdict.RETRY


# --- cancelled work orders ----------------------------------------------------------------


@pytest.mark.parametrize(("action", "status"), MATRIX)
def test_every_move_on_a_cancelled_order_is_work_order_closed(
    action: TaskAction, status: TaskStatus
) -> None:
    error = refusal(action, task(status, order=CANCELLED), PERMITTED[action])
    assert error.code is ErrorCode.WORK_ORDER_CLOSED
    assert "cancel" in error.message.lower()


def test_cancelled_order_wins_over_a_state_that_would_allow_the_move() -> None:
    # The holder finishing a started task is exactly what FINISH allows, but not once cancelled.
    error = refusal(TaskAction.FINISH, task(S, order=CANCELLED), HOLDER)
    assert error.code is ErrorCode.WORK_ORDER_CLOSED


def test_judge_does_not_raise_domain_errors_as_not_allowed_or_vice_versa() -> None:
    assert not issubclass(NotAllowed, DomainError)
    assert not issubclass(DomainError, NotAllowed)


# --- the work order's own moves -----------------------------------------------------------


def test_order_transitions_are_the_status_moves_of_the_design() -> None:
    moves = {a: (t.source, t.target) for a, t in ORDER_TRANSITIONS.items()}
    assert moves == {
        # COMPLETED with its last task completing; back to ACTIVE when a task is reopened.
        WorkOrderAction.COMPLETE: (ACTIVE, COMPLETED_ORDER),
        WorkOrderAction.REACTIVATE: (COMPLETED_ORDER, ACTIVE),
        WorkOrderAction.CANCEL: (ACTIVE, CANCELLED),
    }
    for action, rule in ORDER_TRANSITIONS.items():
        assert rule.action is action


def test_gate_actions_are_not_status_moves() -> None:
    assert WorkOrderAction.OPEN_GATE not in ORDER_TRANSITIONS
    assert WorkOrderAction.CLOSE_GATE not in ORDER_TRANSITIONS


def test_cancelled_is_terminal() -> None:
    assert all(rule.source is not CANCELLED for rule in ORDER_TRANSITIONS.values())


REFUSED_ORDER_MOVES = [
    (action, status)
    for action, rule in ORDER_TRANSITIONS.items()
    for status in WorkOrderStatus
    if status is not rule.source
]


@pytest.mark.parametrize(("action", "status"), REFUSED_ORDER_MOVES)
def test_refuse_order_move_returns_a_specific_domain_error(
    action: WorkOrderAction, status: WorkOrderStatus
) -> None:
    error = refuse_order_move(action, status)
    assert isinstance(error, DomainError)
    assert error.code in {ErrorCode.WORK_ORDER_CLOSED, ErrorCode.INVALID_TRANSITION}
    assert names(error.message, status.value, "order")


@pytest.mark.parametrize("action", list(ORDER_TRANSITIONS))
def test_any_move_of_a_cancelled_order_is_work_order_closed(action: WorkOrderAction) -> None:
    error = refuse_order_move(action, CANCELLED)
    assert error.code is ErrorCode.WORK_ORDER_CLOSED
    assert names(error.message, "CANCELLED", "order")


@pytest.mark.parametrize("status", [COMPLETED_ORDER, CANCELLED])
def test_cancelling_a_closed_order_is_work_order_closed(status: WorkOrderStatus) -> None:
    error = refuse_order_move(WorkOrderAction.CANCEL, status)
    assert error.code is ErrorCode.WORK_ORDER_CLOSED
    assert names(error.message, status.value, "order")


def test_reactivating_an_active_order_is_invalid_and_names_both_states() -> None:
    error = refuse_order_move(WorkOrderAction.REACTIVATE, ACTIVE)
    assert error.code is ErrorCode.INVALID_TRANSITION
    assert names(error.message, "REACTIVATE", "order")
    assert names(error.message, "ACTIVE", "order") and names(error.message, "COMPLETED", "order")


def test_remove_is_for_sales_and_admins() -> None:
    for who in (MEMBER, OUTSIDER, HOLDER):
        with pytest.raises(NotAllowed):
            judge(TaskAction.REMOVE, task(P, available=False), who)
    for who in (SALES, ADMIN):
        assert TaskAction.REMOVE in allowed_actions(task(P, available=False), who)
    assert TaskAction.REMOVE not in allowed_actions(task(P), MEMBER)
