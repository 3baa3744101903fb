"""One scan of a job ticket at the queues: which of the order's tasks is the worker's, and
what the scan does to it. A worker finishes what they hold, else starts what waits for
them; whatever stands in the way is said in words. The move itself goes through the
same guarded writer as a button's."""

from dataclasses import dataclass

from domain.enums import TaskAction, TaskStatus, WorkOrderStatus
from domain.errors import DomainError
from domain.transitions import ActorFacts, TaskState, allowed_actions, judge
from domain.words import every


@dataclass(frozen=True)
class Candidate:
    """One of the order's tasks in a department of the worker's."""

    task_id: int
    department: str
    state: TaskState
    # The departments it still waits for on the order (its gate closed), by name.
    waits_for: list[str]


@dataclass(frozen=True)
class ScanAnswer:
    message: str
    task_id: int | None = None
    # The move to make now; None when the scan can do nothing (`message` says why).
    action: TaskAction | None = None


def scan_action(task: TaskState, actor: ActorFacts) -> TaskAction:
    """Finish the task the worker holds, else start it."""
    if task.status is TaskStatus.STARTED and task.picked_up_by == actor.user_id:
        return TaskAction.FINISH
    return TaskAction.START


def answer(number: str, mine: list[Candidate], others: list[str], actor: ActorFacts) -> ScanAnswer:
    """What a scan of order `number` does for `actor`, whose departments have `mine` of its
    tasks (the order's other tasks are in the departments `others`)."""
    if not mine:
        where = f": its tasks are for {every(others)}" if others else ""
        return ScanAnswer(f"{number} has no task in your departments{where}.")
    for wanted in (TaskAction.FINISH, TaskAction.START):
        for task in mine:
            action = scan_action(task.state, actor)
            if action is wanted and action in allowed_actions(task.state, actor):
                return ScanAnswer(f"{number} · {task.department}", task.task_id, action)
    first = mine[0]
    if first.state.status is TaskStatus.COMPLETED:
        return ScanAnswer(f"{number}'s {first.department} task is already done.", first.task_id)
    return ScanAnswer(f"{number} · {first.department} — {_why_not(first, actor)}", first.task_id)


def _why_not(task: Candidate, actor: ActorFacts) -> str:
    state = task.state
    ready = state.status is not TaskStatus.PENDING or state.available
    if not ready and task.waits_for and state.order_status is WorkOrderStatus.ACTIVE:
        return f"Not ready yet: it waits for {every(task.waits_for)}."
    try:
        judge(scan_action(state, actor), state, actor)
    except DomainError as refusal:
        return refusal.message
    return "Nothing to do on it now."
