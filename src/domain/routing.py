"""Routing: which of a work order's tasks each task waits for.

A production department may follow others (`Department.follows`: Finishing follows
Print, Print follows Design). On a work order a production task waits for the order's
tasks of the departments it follows; a followed department the order lacks is passed
through to the departments that one follows, so an order of Design and Finishing lets
Finishing wait for Design. The delivery task waits for exactly the order's production
tasks that gate delivery, with no chaining. A task's gate (`availableAt`) is open when
every task it waits for is COMPLETED and it does not wait for the customer's approval of a
proof (`awaits_proof`): workflow.settle opens and closes every gate of an order by this one
rule.
"""

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from domain.enums import DepartmentKind, ProofStatus, TaskStatus
from domain.errors import DomainError, ErrorCode

# A department's id -> the ids of the departments it follows.
Routing = Mapping[int, Collection[int]]


@dataclass(frozen=True)
class DepartmentFacts:
    id: int
    code: str
    kind: DepartmentKind
    name: str


@dataclass(frozen=True)
class TaskFacts:
    department_id: int
    status: TaskStatus
    kind: DepartmentKind
    gates_delivery: bool
    gate_open: bool  # availableAt is set
    # It waits for the customer's approval of the order's latest proof (`awaits_proof`).
    awaits_proof: bool = False


def awaits_proof(order_requires: bool, department_needs: bool, latest: ProofStatus | None) -> bool:
    """Whether a task waits for the customer: its department needs an approved proof, its
    order requires one, and the order's latest proof version is not approved (none yet, or
    one pending, sent back or withdrawn)."""
    return order_requires and department_needs and latest is not ProofStatus.APPROVED


def on_order(status: TaskStatus) -> bool:
    """Whether a task still belongs to its order's work: a removed one is kept for its
    history only (no routing, no progress, no line on the job ticket)."""
    return status is not TaskStatus.REMOVED


def waits_for(task: TaskFacts, tasks: Sequence[TaskFacts], routing: Routing) -> list[TaskFacts]:
    """The order's tasks that `task` waits for, in the order of `tasks` (an order's tasks
    are read in route order). A removed task is as absent."""
    kept = [t for t in tasks if on_order(t.status)]
    if task.kind is DepartmentKind.DELIVERY:
        return [t for t in kept if t.kind is DepartmentKind.PRODUCTION and t.gates_delivery]
    present = {t.department_id for t in kept if t.kind is DepartmentKind.PRODUCTION}
    found = _nearest_upstream(
        [task.department_id], routing, lambda department: department not in present
    )
    return [t for t in kept if t.department_id in found]


def _nearest_upstream(
    starts: Collection[int], routing: Routing, through: Callable[[int], bool]
) -> set[int]:
    """The departments nearest upstream of `starts` (those they follow) that are not passed
    `through`, following the routing on through those that are."""
    found: set[int] = set()
    seen = set(starts)
    todo = [f for d in starts for f in routing.get(d, ())]
    while todo:
        department = todo.pop()
        if department in seen:
            continue
        seen.add(department)
        if through(department):
            todo.extend(routing.get(department, ()))
        else:
            found.add(department)
    return found


def can_follow(kind: DepartmentKind) -> bool:
    """Only production departments follow others and are followed."""
    return kind is DepartmentKind.PRODUCTION


def followed(kind: DepartmentKind, follows: Collection[int], gating: Collection[int]) -> list[int]:
    """The departments a department follows as people read it: the delivery department
    follows every department that gates delivery (`gating`), any other its own list."""
    return sorted(gating) if kind is DepartmentKind.DELIVERY else list(follows)


def holding(task: TaskFacts, tasks: Sequence[TaskFacts], routing: Routing) -> list[TaskFacts]:
    """The tasks `task` waits for that are not COMPLETED: its gate is open when none is.
    A removed task waits for nothing."""
    if not on_order(task.status):
        return []
    return [t for t in waits_for(task, tasks, routing) if t.status is not TaskStatus.COMPLETED]


def gate_opens(task: TaskFacts, tasks: Sequence[TaskFacts], routing: Routing) -> bool:
    """The one rule of a gate: nothing it waits for is unfinished, nor the proof."""
    return not task.awaits_proof and not holding(task, tasks, routing)


@dataclass(frozen=True)
class ProofFacts:
    """What says whether a department makes the proof (`proof_makers`)."""

    id: int
    kind: DepartmentKind
    gates_delivery: bool
    needs_approved_proof: bool
    follows: Collection[int] = ()


def proof_makers(departments: Collection[ProofFacts]) -> list[int]:
    """The departments whose work a proof is (Design), sorted ids; the one rule of who
    uploads an order's proofs, whose task changes asked for reopen, and when a customer
    reads "In design". The nearest ones upstream of the departments that need an approved
    proof that need none themselves, following the routing through departments that need
    one too. Where that finds none (no department needs an approved proof, or none that
    does follows another), the departments where an order's work starts: production ones
    that follow none, need no approved proof and do not gate delivery (the last work)."""
    routing = {d.id: d.follows for d in departments if d.follows}
    needing = {d.id for d in departments if d.needs_approved_proof}
    found = _nearest_upstream(needing, routing, lambda department: department in needing)
    if found:
        return sorted(found)
    return sorted(
        d.id
        for d in departments
        if d.kind is DepartmentKind.PRODUCTION
        and not d.follows
        and not d.needs_approved_proof
        and not d.gates_delivery
    )


# Where each kind of department stands in a list of the shop's departments: the floor's
# route first, delivery (the last work) after it, then the office.
_KIND_PLACE = {
    DepartmentKind.PRODUCTION: 0,
    DepartmentKind.DELIVERY: 1,
    DepartmentKind.SALES: 2,
    DepartmentKind.ACCOUNTS: 2,
}


def route_order(departments: Collection[DepartmentFacts], routing: Routing) -> list[int]:
    """The departments' ids in route order, the one order of every list of departments or
    of an order's tasks: a production department after every department it follows, also
    through departments an order lacks (its step is one more than the furthest step of
    those it follows), ties by name; then delivery, then the office (Sales, Accounts)."""
    steps: dict[int, int] = {}

    def step(department: int) -> int:
        if department not in steps:
            before = (step(f) for f in routing.get(department, ()))
            steps[department] = 1 + max(before, default=-1)
        return steps[department]

    ranked = sorted(departments, key=lambda d: (_KIND_PLACE[d.kind], step(d.id), d.name, d.id))
    return [d.id for d in ranked]


def check_follows(
    department: DepartmentFacts,
    follows: Sequence[DepartmentFacts],
    routing: Routing,
    names: Mapping[int, str],
) -> list[int]:
    """The ids `department` may follow, sorted; refuses what routing cannot mean: a
    department other than production on either side, and loops (named in the message)."""
    if not can_follow(department.kind):
        raise DomainError(
            ErrorCode.INVALID_INPUT,
            f"{department.name} cannot follow other departments: only production "
            "departments do (the delivery task waits for every department that gates "
            "delivery).",
            "departmentCode",
        )
    wrong = [f.name for f in follows if not can_follow(f.kind)]
    if wrong:
        raise DomainError(
            ErrorCode.INVALID_INPUT,
            f"Only production departments can be followed; not {', '.join(wrong)}.",
            "followsCodes",
        )
    chosen = sorted({f.id for f in follows})
    after = {**routing, department.id: chosen}
    loop = _path(after, chosen, department.id)
    if loop is not None:
        first, *rest = [names[d] for d in [department.id, *reversed(loop)]]
        steps = "".join(f", which waits for {name}" for name in rest[1:])
        raise DomainError(
            ErrorCode.INVALID_INPUT,
            f"That would make a loop: {first} waits for {rest[0]}{steps}.",
            "followsCodes",
        )
    return chosen


def _path(routing: Routing, starts: Collection[int], goal: int) -> list[int] | None:
    """A path of follows from one of `starts` to `goal` (goal first, start last), if any."""
    came_from: dict[int, int | None] = {s: None for s in starts}
    todo = list(starts)
    while todo:
        node = todo.pop()
        if node == goal:
            path, step = [], came_from[node]
            path.append(node)
            while step is not None:
                path.append(step)
                step = came_from[step]
            return path
        for nxt in routing.get(node, ()):
            if nxt not in came_from:
                came_from[nxt] = node
                todo.append(nxt)
    return None
