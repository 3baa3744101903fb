"""Every row of the task transition table (docs/state-machine.md), through real HTTP and PostgreSQL.

Each move is asserted twice: on the GraphQL answer (changed, status, pickedUpBy, userErrors or
the top-level extensions.code) and on the database (task_transitions and events rows written
by the request, the task row itself). A refused request must leave every one of them as it was;
an allowed one writes exactly one history row and its TASK_CHANGED event.

Actors: pat and pia are members of print (pat is the holder once the task is started),
dee is a member of another department (design), ada is an admin without a department,
ari is an admin who is also a member of print, and None is a request without a token.
"""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import text

from db import schedule
from db.engine import unit_of_work
from db.routing import set_needs_approved_proof
from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop

REASON = "Customer changed the artwork"
ADMIN_ACTIONS = ("RELEASE", "OVERRIDE_COMPLETE", "REOPEN")
MUTATIONS = {
    "START": ("startTask", "StartTaskInput"),
    "FINISH": ("finishTask", "FinishTaskInput"),
    "RELEASE": ("releaseTask", "ReleaseTaskInput"),
    "OVERRIDE_COMPLETE": ("completeTask", "CompleteTaskInput"),
    "REOPEN": ("reopenTask", "ReopenTaskInput"),
}
PAYLOAD = (
    "changed task { id status version availableAt pickedUpBy { name } } "
    "userErrors { code field message }"
)
ORDER_QUERY = """
query($id: ID!) {
  workOrder(id: $id) {
    status
    history { action fromState toState }
    deliveryTask { status availableAt pickedUpBy { name } }
  }
}
"""


# -- talking to the API ------------------------------------------------------------------------


async def move(
    api: Client, shop: Shop, who: str | None, action: str, task: int, reason: str = REASON
) -> dict[str, Any]:
    """The raw response body of one task mutation sent by `who` (None: no token)."""
    name, input_type = MUTATIONS[action]
    variables: dict[str, Any] = {"taskId": gid("DepartmentTask", task)}
    if action in ADMIN_ACTIONS:
        variables["reason"] = reason
    query = f"mutation($i: {input_type}!) {{ {name}(input: $i) {{ {PAYLOAD} }} }}"
    return await api.as_(shop.tokens[who] if who else None).raw(query, {"i": variables})


def payload(body: dict[str, Any], action: str) -> dict[str, Any]:
    assert "errors" not in body, body
    result: dict[str, Any] = body["data"][MUTATIONS[action][0]]
    return result


async def do(api: Client, shop: Shop, who: str, action: str, task: int) -> dict[str, Any]:
    """A move that must succeed and change the task (test set-up and sequences)."""
    result = payload(await move(api, shop, who, action, task), action)
    assert result["userErrors"] == [], result
    assert result["changed"] is True, result
    return result


async def work_order(api: Client, shop: Shop, order: int) -> dict[str, Any]:
    data = await api.as_(shop.tokens["ada"])(ORDER_QUERY, {"id": gid("WorkOrder", order)})
    result: dict[str, Any] = data["workOrder"]
    return result


def holder(task: dict[str, Any]) -> str | None:
    return task["pickedUpBy"]["name"] if task["pickedUpBy"] else None


# -- looking at the database -------------------------------------------------------------------


@dataclass(frozen=True)
class TaskRow:
    status: str
    picked_up_by: int | None
    version: int
    available_at: datetime | None


@dataclass(frozen=True)
class Snapshot:
    transitions: int
    last_transition: int
    events: int
    last_event: int
    work_order_transitions: int
    task: TaskRow


async def task_row(shop: Shop, task: int) -> TaskRow:
    async with shop.engine.connect() as conn:
        r = (
            await conn.execute(
                text(
                    "SELECT status, picked_up_by, version, available_at "
                    "FROM department_tasks WHERE id = :t"
                ),
                {"t": task},
            )
        ).one()
    return TaskRow(r.status, r.picked_up_by, r.version, r.available_at)


async def snapshot(shop: Shop, task: int) -> Snapshot:
    async with shop.engine.connect() as conn:
        r = (
            await conn.execute(
                text(
                    "SELECT (SELECT count(*) FROM task_transitions) AS transitions, "
                    "(SELECT coalesce(max(id), 0) FROM task_transitions) AS last_transition, "
                    "(SELECT count(*) FROM events) AS events, "
                    "(SELECT coalesce(max(id), 0) FROM events) AS last_event, "
                    "(SELECT count(*) FROM work_order_transitions) AS wots"
                )
            )
        ).one()
    return Snapshot(
        r.transitions, r.last_transition, r.events, r.last_event, r.wots, await task_row(shop, task)
    )


async def transitions_since(shop: Shop, before: Snapshot) -> list[tuple[Any, ...]]:
    async with shop.engine.connect() as conn:
        rows = await conn.execute(
            text(
                "SELECT task_id, action, from_status, to_status, actor_id, reason "
                "FROM task_transitions WHERE id > :last ORDER BY id"
            ),
            {"last": before.last_transition},
        )
        return [tuple(r) for r in rows]


async def events_since(shop: Shop, before: Snapshot) -> list[tuple[str, dict[str, Any]]]:
    async with shop.engine.connect() as conn:
        rows = await conn.execute(
            text("SELECT type, payload FROM events WHERE id > :last ORDER BY id"),
            {"last": before.last_event},
        )
        return [(r.type, r.payload) for r in rows]


async def assert_nothing_written(shop: Shop, task: int, before: Snapshot) -> None:
    after = await snapshot(shop, task)
    assert after == before
    assert await transitions_since(shop, before) == []
    assert await events_since(shop, before) == []


# -- expected outcomes -------------------------------------------------------------------------


@dataclass(frozen=True)
class Moved:
    status: str
    holder: str | None  # user key; None: pickedUpBy null


@dataclass(frozen=True)
class Quiet:
    """The outcome already held: changed false, nothing written."""


@dataclass(frozen=True)
class Refused:
    code: str


@dataclass(frozen=True)
class TopLevel:
    code: str


Outcome = Moved | Quiet | Refused | TopLevel

FORBIDDEN = TopLevel("FORBIDDEN")
INVALID = Refused("INVALID_TRANSITION")
NOT_HOLDER = Refused("NOT_TASK_HOLDER")

# (action, state of pat's print task) -> actor -> outcome. In STARTED and COMPLETED pat
# holds the task (he started it, and finished it in COMPLETED).
MATRIX: dict[tuple[str, str], dict[str, Outcome]] = {
    ("START", "PENDING"): {
        "pat": Moved("STARTED", "pat"),
        "pia": Moved("STARTED", "pia"),
        "dee": FORBIDDEN,
        "ada": FORBIDDEN,
        "ari": Moved("STARTED", "ari"),
    },
    ("START", "STARTED"): {
        "pat": Quiet(),
        "pia": Refused("ALREADY_TAKEN"),
        "dee": FORBIDDEN,
        "ada": FORBIDDEN,
        "ari": Refused("ALREADY_TAKEN"),
    },
    ("START", "COMPLETED"): {
        "pat": INVALID,
        "pia": INVALID,
        "dee": FORBIDDEN,
        "ada": FORBIDDEN,
        "ari": INVALID,
    },
    ("FINISH", "PENDING"): {"pat": INVALID, "pia": INVALID, "dee": INVALID, "ada": INVALID},
    ("FINISH", "STARTED"): {
        "pat": Moved("COMPLETED", "pat"),
        "pia": NOT_HOLDER,
        "dee": NOT_HOLDER,
        "ada": NOT_HOLDER,
        "ari": NOT_HOLDER,
    },
    ("FINISH", "COMPLETED"): {
        "pat": Quiet(),
        "pia": INVALID,
        "dee": INVALID,
        "ada": INVALID,
        "ari": INVALID,
    },
    ("RELEASE", "PENDING"): {"ada": INVALID},
    ("RELEASE", "STARTED"): {"ada": Moved("PENDING", None), "ari": Moved("PENDING", None)},
    ("RELEASE", "COMPLETED"): {"ada": INVALID},
    # Nobody started it: nobody picked it up (the history names the admin).
    ("OVERRIDE_COMPLETE", "PENDING"): {
        "ada": Moved("COMPLETED", None),
        "ari": Moved("COMPLETED", None),
    },
    ("OVERRIDE_COMPLETE", "STARTED"): {"ada": Moved("COMPLETED", "pat")},
    ("OVERRIDE_COMPLETE", "COMPLETED"): {"ada": INVALID},
    ("REOPEN", "PENDING"): {"ada": INVALID},
    ("REOPEN", "STARTED"): {"ada": INVALID},
    ("REOPEN", "COMPLETED"): {"ada": Moved("PENDING", None), "ari": Moved("PENDING", None)},
    # HELD: pending, on a work order on hold. Only a start waits for the resume.
    ("START", "HELD"): {
        "pat": Refused("ON_HOLD"),
        "pia": Refused("ON_HOLD"),
        "dee": FORBIDDEN,
        "ada": FORBIDDEN,
        "ari": Refused("ON_HOLD"),
    },
    ("FINISH", "HELD"): {"pat": INVALID, "pia": INVALID, "dee": INVALID, "ada": INVALID},
    ("RELEASE", "HELD"): {"ada": INVALID},
    ("OVERRIDE_COMPLETE", "HELD"): {
        "ada": Moved("COMPLETED", None),
        "ari": Moved("COMPLETED", None),
    },
    ("REOPEN", "HELD"): {"ada": INVALID},
    # PROOF: pending, waiting for the customer's approval of the order's proof (print needs
    # one, the order requires it, no version is approved). Only a start waits for it.
    ("START", "PROOF"): {
        "pat": Refused("PROOF_NOT_APPROVED"),
        "pia": Refused("PROOF_NOT_APPROVED"),
        "dee": FORBIDDEN,
        "ada": FORBIDDEN,
        "ari": Refused("PROOF_NOT_APPROVED"),
    },
    ("FINISH", "PROOF"): {"pat": INVALID, "pia": INVALID, "dee": INVALID, "ada": INVALID},
    ("RELEASE", "PROOF"): {"ada": INVALID},
    ("OVERRIDE_COMPLETE", "PROOF"): {
        "ada": Moved("COMPLETED", None),
        "ari": Moved("COMPLETED", None),
    },
    ("REOPEN", "PROOF"): {"ada": INVALID},
}
ACTORS: tuple[str | None, ...] = ("pat", "pia", "dee", "ada", "ari", None)
STATES = ("PENDING", "STARTED", "COMPLETED", "HELD", "PROOF")
# The states in which the task is PENDING in the database.
WAITING = ("HELD", "PROOF")


def expected(action: str, state: str, actor: str | None) -> Outcome:
    if actor is None:
        return TopLevel("UNAUTHENTICATED")
    row = MATRIX[(action, state)]
    if actor in row:
        return row[actor]
    if action in ADMIN_ACTIONS and actor in ("pat", "pia", "dee"):
        return FORBIDDEN  # members, holders included, never do admin moves
    if action in ADMIN_ACTIONS and actor == "ari":
        return row["ada"]  # an admin who is a member is still just an admin here
    if action == "FINISH" and actor == "ari":
        return row["ada"]
    raise AssertionError(f"no expectation for {action} {state} {actor}")


CASES = [
    pytest.param(action, state, actor, id=f"{action}-{state}-{actor or 'anonymous'}")
    for action in MUTATIONS
    for state in STATES
    for actor in ACTORS
]


async def allowed_actions(api: Client, shop: Shop, actor: str, task: int) -> list[str]:
    query = "query($id: ID!) { node(id: $id) { ... on DepartmentTask { allowedActions } } }"
    body = await api.as_(shop.tokens[actor])(query, {"id": gid("DepartmentTask", task)})
    found: list[str] = body["node"]["allowedActions"]
    return found


async def print_task_in(api: Client, shop: Shop, state: str) -> tuple[int, int]:
    """A work order for print and finishing; its print task brought to `state` by pat."""
    await shop.add_user("ari", ["print"], is_admin=True)
    if state == "PROOF":
        async with unit_of_work(shop.engine) as conn:
            await set_needs_approved_proof(conn, "print", True)
    order = await shop.order(["print", "finishing"], proof_required=state == "PROOF")
    task = (await task_ids(shop.engine, order))["print"]
    if state in ("STARTED", "COMPLETED"):
        await do(api, shop, "pat", "START", task)
    if state == "COMPLETED":
        await do(api, shop, "pat", "FINISH", task)
    if state == "HELD":
        async with unit_of_work(shop.engine) as conn:
            await schedule.hold(conn, order, "Waiting for the proof.", shop.users["sam"])
    assert (await task_row(shop, task)).status == ("PENDING" if state in WAITING else state)
    return order, task


# -- the matrix --------------------------------------------------------------------------------


@pytest.mark.parametrize(("action", "state", "actor"), CASES)
async def test_transition_matrix(
    api: Client, shop: Shop, action: str, state: str, actor: str | None
) -> None:
    outcome = expected(action, state, actor)
    _, task = await print_task_in(api, shop, state)
    if actor is not None:
        # What the screens offer is what the writer does: the move is among the task's
        # allowedActions for this actor exactly when it would move the task.
        offered = await allowed_actions(api, shop, actor, task)
        assert (action in offered) == isinstance(outcome, Moved), offered
    before = await snapshot(shop, task)

    body = await move(api, shop, actor, action, task)

    name = MUTATIONS[action][0]
    if isinstance(outcome, TopLevel):
        assert [e["extensions"]["code"] for e in body["errors"]] == [outcome.code], body
        assert body["errors"][0]["path"] == [name]
        assert body["data"] is None or body["data"][name] is None
        await assert_nothing_written(shop, task, before)
        return

    result = payload(body, action)
    if isinstance(outcome, Refused):
        assert [e["code"] for e in result["userErrors"]] == [outcome.code], result
        assert result["userErrors"][0]["message"]
        assert result["changed"] is False
        assert result["task"] is None
        await assert_nothing_written(shop, task, before)
        return

    if isinstance(outcome, Quiet):
        assert result["userErrors"] == []
        assert result["changed"] is False
        assert result["task"]["status"] == state
        assert holder(result["task"]) == "Pat"
        assert result["task"]["version"] == before.task.version
        await assert_nothing_written(shop, task, before)
        return

    assert isinstance(outcome, Moved)
    assert actor is not None
    actor_id = shop.users[actor]
    assert result["userErrors"] == []
    assert result["changed"] is True
    holder_id = shop.users[outcome.holder] if outcome.holder else None
    assert result["task"]["status"] == outcome.status
    assert holder(result["task"]) == (outcome.holder.title() if outcome.holder else None)
    assert result["task"]["version"] == before.task.version + 1

    after = await snapshot(shop, task)
    assert after.task.status == outcome.status
    assert after.task.picked_up_by == holder_id
    assert after.task.version == before.task.version + 1
    assert after.transitions == before.transitions + 1
    assert after.events >= before.events + 1
    reason = REASON if action in ADMIN_ACTIONS else None
    from_status = "PENDING" if state in WAITING else state
    assert await transitions_since(shop, before) == [
        (task, action, from_status, outcome.status, actor_id, reason)
    ]
    changes = [p for t, p in await events_since(shop, before) if t == "TASK_CHANGED"]
    assert len(changes) == 1
    assert changes[0]["taskId"] == task
    assert changes[0]["action"] == action
    assert (changes[0]["fromStatus"], changes[0]["toStatus"]) == (from_status, outcome.status)
    assert changes[0]["actorId"] == actor_id
    assert changes[0]["pickedUpBy"] == holder_id


def test_matrix_covers_every_action_state_and_actor() -> None:
    assert {(a, s) for a, s in MATRIX} == {(a, s) for a in MUTATIONS for s in STATES}
    for action in MUTATIONS:
        for state in STATES:
            for actor in ACTORS:
                assert isinstance(
                    expected(action, state, actor), Moved | Quiet | Refused | TopLevel
                )


# -- other callers and unknown tasks ----------------------------------------------------------


@pytest.mark.parametrize("action", list(MUTATIONS))
async def test_an_unknown_token_is_unauthenticated(api: Client, shop: Shop, action: str) -> None:
    _, task = await print_task_in(api, shop, "STARTED")
    before = await snapshot(shop, task)
    shop.tokens["stranger"] = "not-a-token-anyone-was-given"

    body = await move(api, shop, "stranger", action, task)

    assert [e["extensions"]["code"] for e in body["errors"]] == ["UNAUTHENTICATED"]
    await assert_nothing_written(shop, task, before)


@pytest.mark.parametrize("action", list(MUTATIONS))
async def test_a_wall_display_token_cannot_move_tasks(api: Client, shop: Shop, action: str) -> None:
    _, task = await print_task_in(api, shop, "STARTED")
    shop.tokens["wall"] = await shop.display(["print"])
    before = await snapshot(shop, task)

    body = await move(api, shop, "wall", action, task)

    assert [e["extensions"]["code"] for e in body["errors"]] == ["FORBIDDEN"]
    await assert_nothing_written(shop, task, before)


@pytest.mark.parametrize("action", list(MUTATIONS))
@pytest.mark.parametrize("kind", ["missing", "work-order-id"])
async def test_an_unknown_task_is_not_found(
    api: Client, shop: Shop, action: str, kind: str
) -> None:
    order, task = await print_task_in(api, shop, "PENDING")
    before = await snapshot(shop, task)
    name, input_type = MUTATIONS[action]
    variables: dict[str, Any] = {
        "taskId": gid("DepartmentTask", 10**9) if kind == "missing" else gid("WorkOrder", order)
    }
    if action in ADMIN_ACTIONS:
        variables["reason"] = REASON
    who = "ada" if action in ADMIN_ACTIONS else "pat"

    body = await api.as_(shop.tokens[who]).raw(
        f"mutation($i: {input_type}!) {{ {name}(input: $i) {{ {PAYLOAD} }} }}", {"i": variables}
    )

    result = payload(body, action)
    assert [(e["code"], e["field"]) for e in result["userErrors"]] == [("NOT_FOUND", "taskId")]
    assert result["changed"] is False
    await assert_nothing_written(shop, task, before)


# -- reasons -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "state"),
    [("RELEASE", "STARTED"), ("OVERRIDE_COMPLETE", "PENDING"), ("REOPEN", "COMPLETED")],
)
@pytest.mark.parametrize("reason", ["", "   ", "\n\t"], ids=["empty", "spaces", "whitespace"])
async def test_admin_move_without_reason_is_invalid_input(
    api: Client, shop: Shop, action: str, state: str, reason: str
) -> None:
    _, task = await print_task_in(api, shop, state)
    before = await snapshot(shop, task)

    result = payload(await move(api, shop, "ada", action, task, reason=reason), action)

    assert [(e["code"], e["field"]) for e in result["userErrors"]] == [("INVALID_INPUT", "reason")]
    assert result["changed"] is False
    await assert_nothing_written(shop, task, before)


# -- the delivery gate -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "completed", [[], ["print"], ["finishing"]], ids=["none", "print", "finishing"]
)
async def test_delivery_is_not_available_until_every_gating_task_completes(
    api: Client, shop: Shop, completed: list[str]
) -> None:
    order = await shop.order(["design", "print", "finishing"])
    tasks = await task_ids(shop.engine, order)
    workers = {"print": "pat", "finishing": "fin"}
    for code in completed:
        await do(api, shop, workers[code], "START", tasks[code])
        await do(api, shop, workers[code], "FINISH", tasks[code])
    assert (await work_order(api, shop, order))["deliveryTask"]["availableAt"] is None
    before = await snapshot(shop, tasks["delivery"])

    result = payload(await move(api, shop, "dan", "START", tasks["delivery"]), "START")

    assert [e["code"] for e in result["userErrors"]] == ["NOT_AVAILABLE"]
    assert result["changed"] is False
    await assert_nothing_written(shop, tasks["delivery"], before)


async def test_gate_opens_when_gating_tasks_complete_even_with_design_pending(
    api: Client, shop: Shop
) -> None:
    order = await shop.order(["design", "print", "finishing"])
    tasks = await task_ids(shop.engine, order)
    for who, code in [("pat", "print"), ("fin", "finishing")]:
        await do(api, shop, who, "START", tasks[code])
        await do(api, shop, who, "FINISH", tasks[code])

    wo = await work_order(api, shop, order)
    assert wo["deliveryTask"]["availableAt"] is not None
    assert [h["action"] for h in wo["history"]] == ["OPEN_GATE"]
    assert (wo["history"][0]["fromState"], wo["history"][0]["toState"]) == ("CLOSED", "OPEN")
    assert (await task_row(shop, tasks["design"])).status == "PENDING"

    started = await do(api, shop, "dan", "START", tasks["delivery"])
    assert started["task"]["status"] == "STARTED"
    assert holder(started["task"]) == "Dan"


async def test_override_completing_the_last_gating_task_opens_the_gate(
    api: Client, shop: Shop
) -> None:
    order = await shop.order(["print"])
    tasks = await task_ids(shop.engine, order)
    before = await snapshot(shop, tasks["delivery"])

    done = await do(api, shop, "ada", "OVERRIDE_COMPLETE", tasks["print"])

    assert holder(done["task"]) is None  # nobody started it; the history names Ada
    wo = await work_order(api, shop, order)
    assert wo["deliveryTask"]["availableAt"] is not None
    assert [h["action"] for h in wo["history"]] == ["OPEN_GATE"]
    types = [t for t, _ in await events_since(shop, before)]
    assert sorted(types) == ["DELIVERY_GATE_OPENED", "TASK_CHANGED"]


async def complete_gating(api: Client, shop: Shop) -> tuple[int, dict[str, int]]:
    order = await shop.order(["design", "print", "finishing"])
    tasks = await task_ids(shop.engine, order)
    for who, code in [("pat", "print"), ("fin", "finishing")]:
        await do(api, shop, who, "START", tasks[code])
        await do(api, shop, who, "FINISH", tasks[code])
    assert (await task_row(shop, tasks["delivery"])).available_at is not None
    return order, tasks


@pytest.mark.parametrize("gating", ["print", "finishing"])
async def test_reopening_a_gating_task_closes_the_gate_while_delivery_is_pending(
    api: Client, shop: Shop, gating: str
) -> None:
    order, tasks = await complete_gating(api, shop)
    before = await snapshot(shop, tasks[gating])

    reopened = await do(api, shop, "ada", "REOPEN", tasks[gating])

    assert reopened["task"]["status"] == "PENDING"
    assert reopened["task"]["pickedUpBy"] is None
    wo = await work_order(api, shop, order)
    assert wo["deliveryTask"]["availableAt"] is None
    assert wo["deliveryTask"]["status"] == "PENDING"
    assert [(h["action"], h["fromState"], h["toState"]) for h in wo["history"]] == [
        ("OPEN_GATE", "CLOSED", "OPEN"),
        ("CLOSE_GATE", "OPEN", "CLOSED"),
    ]
    assert (await task_row(shop, tasks["delivery"])).available_at is None
    assert len(await transitions_since(shop, before)) == 1
    types = [t for t, _ in await events_since(shop, before)]
    assert sorted(types) == ["DELIVERY_GATE_CLOSED", "TASK_CHANGED"]

    refused = payload(await move(api, shop, "dan", "START", tasks["delivery"]), "START")
    assert [e["code"] for e in refused["userErrors"]] == ["NOT_AVAILABLE"]

    worker = {"print": "pat", "finishing": "fin"}[gating]
    await do(api, shop, worker, "START", tasks[gating])
    await do(api, shop, worker, "FINISH", tasks[gating])
    wo = await work_order(api, shop, order)
    assert wo["deliveryTask"]["availableAt"] is not None
    assert [h["action"] for h in wo["history"]] == ["OPEN_GATE", "CLOSE_GATE", "OPEN_GATE"]


async def test_reopening_a_gating_task_keeps_the_gate_once_delivery_started(
    api: Client, shop: Shop
) -> None:
    order, tasks = await complete_gating(api, shop)
    await do(api, shop, "dan", "START", tasks["delivery"])
    delivery_before = await task_row(shop, tasks["delivery"])
    before = await snapshot(shop, tasks["print"])

    await do(api, shop, "ada", "REOPEN", tasks["print"])

    assert await task_row(shop, tasks["delivery"]) == delivery_before
    wo = await work_order(api, shop, order)
    assert wo["deliveryTask"]["status"] == "STARTED"
    assert wo["deliveryTask"]["availableAt"] is not None
    assert holder(wo["deliveryTask"]) == "Dan"
    assert [h["action"] for h in wo["history"]] == ["OPEN_GATE"]
    assert [t for t, _ in await events_since(shop, before)] == ["TASK_CHANGED"]


async def test_reopening_a_non_gating_task_keeps_the_gate_open(api: Client, shop: Shop) -> None:
    order, tasks = await complete_gating(api, shop)
    await do(api, shop, "dee", "START", tasks["design"])
    await do(api, shop, "dee", "FINISH", tasks["design"])
    before = await snapshot(shop, tasks["design"])

    await do(api, shop, "ada", "REOPEN", tasks["design"])

    wo = await work_order(api, shop, order)
    assert wo["deliveryTask"]["availableAt"] is not None
    assert [h["action"] for h in wo["history"]] == ["OPEN_GATE"]
    assert [t for t, _ in await events_since(shop, before)] == ["TASK_CHANGED"]


# -- the work order's status follows its tasks -------------------------------------------------


@pytest.mark.parametrize("reopened", ["print", "delivery"])
async def test_completing_every_task_completes_the_order_and_reopen_reactivates_it(
    api: Client, shop: Shop, reopened: str
) -> None:
    order = await shop.order(["print"])
    tasks = await task_ids(shop.engine, order)
    await do(api, shop, "pat", "START", tasks["print"])
    await do(api, shop, "pat", "FINISH", tasks["print"])
    assert (await work_order(api, shop, order))["status"] == "ACTIVE"
    await do(api, shop, "dan", "START", tasks["delivery"])
    await do(api, shop, "dan", "FINISH", tasks["delivery"])

    wo = await work_order(api, shop, order)
    assert wo["status"] == "COMPLETED"
    assert [(h["action"], h["fromState"], h["toState"]) for h in wo["history"]] == [
        ("OPEN_GATE", "CLOSED", "OPEN"),
        ("COMPLETE", "ACTIVE", "COMPLETED"),
    ]

    before = await snapshot(shop, tasks[reopened])
    await do(api, shop, "ada", "REOPEN", tasks[reopened])

    wo = await work_order(api, shop, order)
    assert wo["status"] == "ACTIVE"
    assert [(h["action"], h["fromState"], h["toState"]) for h in wo["history"]][2:] == [
        ("REACTIVATE", "COMPLETED", "ACTIVE"),
    ]
    # Print reopened while delivery is COMPLETED, or delivery itself reopened while print
    # is completed: either way the gate stays open.
    assert wo["deliveryTask"]["availableAt"] is not None
    types = sorted(t for t, _ in await events_since(shop, before))
    assert types == ["TASK_CHANGED", "WORK_ORDER_CHANGED"]
    async with shop.engine.connect() as conn:
        status = await conn.scalar(
            text("SELECT status FROM work_orders WHERE id = :o"), {"o": order}
        )
    assert status == "ACTIVE"


async def test_override_completing_every_task_completes_the_order(api: Client, shop: Shop) -> None:
    order = await shop.order(["design", "print"])
    tasks = await task_ids(shop.engine, order)
    await do(api, shop, "pat", "START", tasks["print"])
    for code in ("design", "print", "delivery"):
        await do(api, shop, "ada", "OVERRIDE_COMPLETE", tasks[code])

    wo = await work_order(api, shop, order)
    assert wo["status"] == "COMPLETED"
    assert [h["action"] for h in wo["history"]] == ["OPEN_GATE", "COMPLETE"]
    # START alone writes the picker: the delivery task nobody started has none; the
    # print task keeps pat, who started it.
    assert holder(wo["deliveryTask"]) is None
    assert (await task_row(shop, tasks["print"])).picked_up_by == shop.users["pat"]


# -- task history through GraphQL ---------------------------------------------------------------


async def test_task_history_lists_every_transition_with_its_actor(api: Client, shop: Shop) -> None:
    order = await shop.order(["print"])
    task = (await task_ids(shop.engine, order))["print"]
    await do(api, shop, "pat", "START", task)
    await do(api, shop, "ada", "RELEASE", task)
    await do(api, shop, "pia", "START", task)
    quiet = payload(await move(api, shop, "pia", "START", task), "START")
    assert quiet["changed"] is False
    await do(api, shop, "pia", "FINISH", task)
    quiet = payload(await move(api, shop, "pia", "FINISH", task), "FINISH")
    assert quiet["changed"] is False
    await do(api, shop, "ada", "REOPEN", task)
    await do(api, shop, "ada", "OVERRIDE_COMPLETE", task)

    data = await api.as_(shop.tokens["pat"])(
        "query($id: ID!) { node(id: $id) { ... on DepartmentTask { status "
        "history { action fromStatus toStatus reason occurredAt actor { name } } } } }",
        {"id": gid("DepartmentTask", task)},
    )
    history = data["node"]["history"]
    assert [
        (h["action"], h["fromStatus"], h["toStatus"], h["actor"]["name"], h["reason"])
        for h in history
    ] == [
        ("START", "PENDING", "STARTED", "Pat", None),
        ("RELEASE", "STARTED", "PENDING", "Ada", REASON),
        ("START", "PENDING", "STARTED", "Pia", None),
        ("FINISH", "STARTED", "COMPLETED", "Pia", None),
        ("REOPEN", "COMPLETED", "PENDING", "Ada", REASON),
        ("OVERRIDE_COMPLETE", "PENDING", "COMPLETED", "Ada", REASON),
    ]
    occurred = [h["occurredAt"] for h in history]
    assert occurred == sorted(occurred)
    assert data["node"]["status"] == "COMPLETED"


# -- cancelled work orders ---------------------------------------------------------------------


CANCEL = (
    "mutation($i: CancelWorkOrderInput!) { cancelWorkOrder(input: $i) { "
    "workOrder { status } userErrors { code field } } }"
)


async def cancelled_order(api: Client, shop: Shop) -> tuple[int, dict[str, int]]:
    """print STARTED by pat, finishing COMPLETED by fin, design and delivery PENDING; cancelled."""
    order = await shop.order(["design", "print", "finishing"])
    tasks = await task_ids(shop.engine, order)
    await do(api, shop, "pat", "START", tasks["print"])
    await do(api, shop, "fin", "START", tasks["finishing"])
    await do(api, shop, "fin", "FINISH", tasks["finishing"])
    data = await api.as_(shop.tokens["sam"])(
        CANCEL, {"i": {"workOrderId": gid("WorkOrder", order), "reason": "Customer went away"}}
    )
    assert data["cancelWorkOrder"]["userErrors"] == []
    assert data["cancelWorkOrder"]["workOrder"]["status"] == "CANCELLED"
    return order, tasks


async def test_cancelling_releases_started_tasks(api: Client, shop: Shop) -> None:
    order = await shop.order(["design", "print", "finishing"])
    tasks = await task_ids(shop.engine, order)
    await do(api, shop, "pat", "START", tasks["print"])
    before = await snapshot(shop, tasks["print"])

    data = await api.as_(shop.tokens["sam"])(
        CANCEL, {"i": {"workOrderId": gid("WorkOrder", order), "reason": "Customer went away"}}
    )

    assert data["cancelWorkOrder"]["workOrder"]["status"] == "CANCELLED"
    async with shop.engine.connect() as conn:
        rows = (
            await conn.execute(
                text("SELECT status, picked_up_by FROM department_tasks WHERE work_order_id = :o"),
                {"o": order},
            )
        ).all()
    assert {(r.status, r.picked_up_by) for r in rows} == {("PENDING", None)}
    released = await transitions_since(shop, before)
    assert len(released) == 1
    task_id, action, from_status, to_status, actor_id, reason = released[0]
    assert (task_id, action, from_status, to_status, actor_id) == (
        tasks["print"],
        "RELEASE",
        "STARTED",
        "PENDING",
        shop.users["sam"],
    )
    assert "Customer went away" in reason
    types = [t for t, _ in await events_since(shop, before)]
    assert types.count("TASK_CHANGED") == 1
    assert types.count("WORK_ORDER_CHANGED") == 1
    wo = await work_order(api, shop, order)
    assert wo["status"] == "CANCELLED"
    assert wo["history"][-1]["action"] == "CANCEL"


@pytest.mark.parametrize(
    ("who", "action", "code"),
    [
        ("pat", "START", "print"),
        ("pia", "START", "print"),
        ("pat", "FINISH", "print"),
        ("ada", "RELEASE", "print"),
        ("ada", "OVERRIDE_COMPLETE", "print"),
        ("ada", "OVERRIDE_COMPLETE", "delivery"),
        ("ada", "REOPEN", "finishing"),
        ("fin", "START", "finishing"),
        ("fin", "FINISH", "finishing"),
        ("dee", "START", "design"),
        ("dan", "START", "delivery"),
        ("ari", "START", "print"),
    ],
)
async def test_every_move_on_a_cancelled_order_is_work_order_closed(
    api: Client, shop: Shop, who: str, action: str, code: str
) -> None:
    await shop.add_user("ari", ["print"], is_admin=True)
    _, tasks = await cancelled_order(api, shop)
    before = await snapshot(shop, tasks[code])

    result = payload(await move(api, shop, who, action, tasks[code]), action)

    assert [e["code"] for e in result["userErrors"]] == ["WORK_ORDER_CLOSED"]
    assert result["changed"] is False
    await assert_nothing_written(shop, tasks[code], before)
