"""The approval gate, through the API and real PostgreSQL: tasks of departments that need an
approved proof, on an order that requires one, stay out of their queues until the customer
approves the latest version (START is PROOF_NOT_APPROVED, nothing written); the approval
opens each gate exactly once, live, even with twenty approvals at once; a new version
closes the gates of pending tasks again, and an approval racing one leaves them shut either
way; a department that starts needing a proof takes waiting tasks out of their queues.

Proof versions are added by the upload's writer (db.proofs.add_version), without the
file checks in front of it."""

import asyncio
from typing import Any

import pytest
from sqlalchemy import text

from db.orders import PROOF_CLOSED_REASON, PROOF_OPENED_REASON
from tests.support.client import Client, gid
from tests.support.database import table_snapshot, task_ids
from tests.support.proofs import (
    NEEDS,
    START,
    add_version,
    approve,
    ask_changes,
    order_tasks,
    proof_departments,
    proofed_order,
    scalar,
)
from tests.support.shop import Shop
from tests.support.subscriptions import subscriber, take

UPDATE = """mutation($i: UpdateWorkOrderInput!) {
  updateWorkOrder(input: $i) { changed workOrder { proofRequired } userErrors { code } } }"""


WORKERS = {"design": "dee", "print": "pat", "finishing": "fin"}
CONCURRENT_DECISIONS = 20


async def start(api: Client, shop: Shop, tasks: dict[str, int], code: str) -> dict[str, Any]:
    body = await api.as_(shop.tokens[WORKERS[code]])(
        START, {"i": {"taskId": gid("DepartmentTask", tasks[code])}}
    )
    payload: dict[str, Any] = body["startTask"]
    return payload


async def counts(shop: Shop, order: int) -> dict[str, int]:
    """What an order's proof decisions and gates wrote: history rows and events by kind."""
    async with shop.engine.connect() as conn:
        rows = await conn.execute(
            text(
                "SELECT 'history:' || action AS k, count(*) FROM work_order_transitions "
                "WHERE work_order_id = :o GROUP BY action UNION ALL "
                "SELECT 'event:' || type, count(*) FROM events WHERE work_order_id = :o "
                "GROUP BY type"
            ),
            {"o": order},
        )
        return {r[0]: int(r[1]) for r in rows}


async def test_every_start_is_refused_until_the_latest_version_is_approved_then_opens_once(
    api: Client, shop: Shop
) -> None:
    await proof_departments(api, shop, "print", "finishing")
    order = await proofed_order(api, shop, ["design", "print", "finishing"])
    tasks = await task_ids(shop.engine, order)
    # Design needs no proof: it works on it from the start.
    assert (await order_tasks(api, shop, order))["design"]["inQueue"] is True

    for versions in (0, 1, 2):
        if versions:
            assert await add_version(shop, order) == versions
        for code in ("print", "finishing"):
            before = await table_snapshot(shop.engine)
            refused = await start(api, shop, tasks, code)
            assert [e["code"] for e in refused["userErrors"]] == ["PROOF_NOT_APPROVED"], code
            assert refused["changed"] is False
            assert await table_snapshot(shop.engine) == before
        view = await order_tasks(api, shop, order)
        assert not view["print"]["inQueue"] and view["print"]["awaitsProof"] is True
        assert view["design"]["awaitsProof"] is False

    # Version 1 was withdrawn by version 2: only the latest can be approved.
    before = await table_snapshot(shop.engine)
    superseded = await approve(api, shop, order, 1)
    assert [e["code"] for e in superseded["userErrors"]] == ["PROOF_SUPERSEDED"]
    assert await table_snapshot(shop.engine) == before

    approved = await approve(api, shop, order, 2)
    assert approved["userErrors"] == [] and approved["changed"] is True
    assert approved["proof"] == {
        "version": 2, "status": "APPROVED", "decidedThrough": "SALES",
        "decidedByName": "Ann", "decidedBy": {"name": "Sam"},
    }  # fmt: skip
    written = await counts(shop, order)
    assert written["history:PROOF_APPROVED"] == 1
    assert written["event:PROOF_APPROVED"] == 1
    assert written["history:OPEN_GATE"] == 2  # print and finishing (no routing here)
    assert written["event:TASK_GATE_OPENED"] == 2
    reasons = await scalar(
        shop,
        "SELECT array_agg(DISTINCT reason) FROM work_order_transitions "
        "WHERE work_order_id = :o AND action = 'OPEN_GATE'",
        o=order,
    )
    assert reasons == [PROOF_OPENED_REASON]
    assert not any(t["awaitsProof"] for t in (await order_tasks(api, shop, order)).values())
    for code in ("print", "finishing"):
        started = await start(api, shop, tasks, code)
        assert started["userErrors"] == [] and started["changed"] is True


async def test_twenty_approvals_at_once_decide_once_and_open_each_gate_once(
    api: Client, shop: Shop
) -> None:
    await shop.add_user("sue", ["sales"])
    await proof_departments(api, shop, "print", "finishing")
    order = await proofed_order(api, shop, ["print", "finishing"])
    version = await add_version(shop, order)
    callers = [("sam", "sue", "ada")[n % 3] for n in range(CONCURRENT_DECISIONS)]

    results = await asyncio.gather(*(approve(api, shop, order, version, who) for who in callers))

    assert all(r["userErrors"] == [] for r in results), results
    assert sum(r["changed"] for r in results) == 1
    written = await counts(shop, order)
    assert (written["history:PROOF_APPROVED"], written["event:PROOF_APPROVED"]) == (1, 1)
    assert (written["history:OPEN_GATE"], written["event:TASK_GATE_OPENED"]) == (2, 2)
    # The one decision names the one who made it.
    decided_by = await scalar(
        shop, "SELECT decided_by FROM proofs WHERE work_order_id = :o", o=order
    )
    winner = callers[[r["changed"] for r in results].index(True)]
    assert decided_by == shop.users[winner]


async def test_approvals_and_requests_for_changes_at_once_make_exactly_one_decision(
    api: Client, shop: Shop
) -> None:
    await proof_departments(api, shop, "print")
    order = await proofed_order(api, shop, ["print"])
    version = await add_version(shop, order)

    results = await asyncio.gather(
        *(
            approve(api, shop, order, version) if n % 2 else ask_changes(api, shop, order, version)
            for n in range(CONCURRENT_DECISIONS)
        )
    )

    assert sum(r["changed"] for r in results) == 1
    status = await scalar(shop, "SELECT status FROM proofs WHERE work_order_id = :o", o=order)
    winning_kind = "approve" if status == "APPROVED" else "changes"
    for n, result in enumerate(results):
        same = (n % 2 == 1) == (winning_kind == "approve")
        codes = [e["code"] for e in result["userErrors"]]
        assert codes == ([] if same else ["ALREADY_DECIDED"]), (n, result)
    written = await counts(shop, order)
    decided = written.get("event:PROOF_APPROVED", 0) + written.get(
        "event:PROOF_CHANGES_REQUESTED", 0
    )
    assert decided == 1


@pytest.mark.parametrize("protocol", ["graphql-transport-ws"])
async def test_an_approval_reaches_the_queue_live(
    api: Client, server: str, shop: Shop, protocol: str
) -> None:
    await proof_departments(api, shop, "print")
    order = await proofed_order(api, shop, ["print"])
    version = await add_version(shop, order)
    cursor = await api.as_(shop.tokens["pat"])(
        'query { queue(department: "print", first: 1) { eventCursor } }'
    )
    variables = {"department": "print", "after": cursor["queue"]["eventCursor"]}
    async with subscriber(server, shop.tokens["pat"], protocol, variables) as got:
        assert (await approve(api, shop, order, version))["changed"] is True
        [event] = await take(got, 1)
        with pytest.raises(TimeoutError):
            await take(got, 1, within=1)
    assert event["queueEvents"]["kind"] == "TASK_GATE_OPENED"
    assert event["queueEvents"]["task"]["id"] == gid(
        "DepartmentTask", (await task_ids(shop.engine, order))["print"]
    )


async def test_a_new_version_closes_pending_gates_but_a_started_task_keeps_its_own(
    api: Client, shop: Shop
) -> None:
    await proof_departments(api, shop, "print", "finishing")
    order = await proofed_order(api, shop, ["print", "finishing"])
    tasks = await task_ids(shop.engine, order)
    await approve(api, shop, order, await add_version(shop, order))
    assert (await start(api, shop, tasks, "print"))["changed"] is True

    await add_version(shop, order)

    view = await order_tasks(api, shop, order)
    assert view["print"]["status"] == "STARTED" and view["print"]["availableAt"] is not None
    assert view["finishing"]["availableAt"] is None and not view["finishing"]["inQueue"]
    closed = await scalar(
        shop,
        "SELECT array_agg(reason) FROM work_order_transitions "
        "WHERE work_order_id = :o AND action = 'CLOSE_GATE'",
        o=order,
    )
    assert closed == [PROOF_CLOSED_REASON]
    assert (await counts(shop, order))["event:TASK_GATE_CLOSED"] == 1
    refused = await start(api, shop, tasks, "finishing")
    assert [e["code"] for e in refused["userErrors"]] == ["PROOF_NOT_APPROVED"]


async def test_requiring_a_proof_later_takes_waiting_tasks_out_of_their_queues(
    api: Client, shop: Shop
) -> None:
    await proof_departments(api, shop, "print")
    order = await shop.order(["design", "print"])
    tasks = await task_ids(shop.engine, order)
    assert (await order_tasks(api, shop, order))["print"]["inQueue"] is True
    version = await scalar(shop, "SELECT version FROM work_orders WHERE id = :o", o=order)

    body = await api.as_(shop.tokens["sam"])(
        UPDATE,
        {"i": {"workOrderId": gid("WorkOrder", order), "expectedVersion": version,
               "proofRequired": True}},
    )  # fmt: skip

    assert body["updateWorkOrder"]["changed"] is True
    view = await order_tasks(api, shop, order)
    assert (view["design"]["inQueue"], view["print"]["inQueue"]) == (True, False)
    assert [e["code"] for e in (await start(api, shop, tasks, "print"))["userErrors"]] == [
        "PROOF_NOT_APPROVED"
    ]
    history = await scalar(
        shop,
        "SELECT to_state FROM work_order_transitions "
        "WHERE work_order_id = :o AND action = 'DETAILS_CHANGED'",
        o=order,
    )
    assert history == "proof required: yes"


async def test_a_department_that_starts_needing_a_proof_moves_open_orders_gates(
    api: Client, shop: Shop
) -> None:
    order = await proofed_order(api, shop, ["print"])
    assert (await order_tasks(api, shop, order))["print"]["inQueue"] is True

    await proof_departments(api, shop, "print")

    assert (await order_tasks(api, shop, order))["print"]["inQueue"] is False
    body = await api.as_(shop.tokens["ada"])(
        NEEDS, {"i": {"departmentCode": "print", "needsApprovedProof": False}}
    )
    assert body["setDepartmentNeedsApprovedProof"]["userErrors"] == []
    assert (await order_tasks(api, shop, order))["print"]["inQueue"] is True


@pytest.mark.parametrize("code", ["delivery", "sales"])
async def test_only_production_departments_can_need_a_proof(
    api: Client, shop: Shop, code: str
) -> None:
    before = await table_snapshot(shop.engine)
    body = await api.as_(shop.tokens["ada"])(
        NEEDS, {"i": {"departmentCode": code, "needsApprovedProof": True}}
    )
    errors = body["setDepartmentNeedsApprovedProof"]["userErrors"]
    assert [(e["code"], e["field"]) for e in errors] == [("INVALID_INPUT", "needsApprovedProof")]
    assert await table_snapshot(shop.engine) == before


async def test_an_approval_racing_a_new_version_leaves_the_gates_shut_either_way(
    api: Client, shop: Shop
) -> None:
    await proof_departments(api, shop, "print")
    for _ in range(10):
        order = await proofed_order(api, shop, ["print"])
        await add_version(shop, order)

        approved, _ = await asyncio.gather(approve(api, shop, order, 1), add_version(shop, order))

        async with shop.engine.connect() as conn:
            statuses = (
                (
                    await conn.execute(
                        text("SELECT status FROM proofs WHERE work_order_id = :o ORDER BY version"),
                        {"o": order},
                    )
                )
                .scalars()
                .all()
            )
        written = await counts(shop, order)
        if approved["changed"]:
            # The approval came first: its gate opened, and the new version shut it again.
            assert statuses == ["APPROVED", "PENDING"]
            assert (written["history:OPEN_GATE"], written["history:CLOSE_GATE"]) == (1, 1)
        else:
            # The new version came first: the approval was of a withdrawn version.
            assert [e["code"] for e in approved["userErrors"]] == ["PROOF_SUPERSEDED"]
            assert statuses == ["WITHDRAWN", "PENDING"]
            assert "history:OPEN_GATE" not in written
        assert (await order_tasks(api, shop, order))["print"]["availableAt"] is None
