"""The approval gate, through the API and real PostgreSQL: tasks of departments that need an
approved proof, on an order that requires one, stay out of their queues until the customer
approves the latest version (START is PROOF_NOT_APPROVED, nothing written); the approval
opens each gate exactly once, live, even with twenty approvals at once; a new version
closes the gates of pending tasks again; changes asked for put Design back to work.

Proof versions are added by the upload's writer (db.proofs.add_version), without the
file checks in front of it."""

import asyncio
import io
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import text

from api.ids import decode_text
from db import clock, proofs
from db.engine import unit_of_work
from db.orders import PROOF_CLOSED_REASON, PROOF_OPENED_REASON
from db.proof_decisions import ProofDecided, decide
from db.proofs import NewProof
from domain.errors import NotAllowed
from tests.support.client import Client, gid
from tests.support.database import table_snapshot, task_ids
from tests.support.shop import Shop
from tests.support.subscriptions import subscriber, take
from tests.support.webhooks import Receiver

NEEDS = """mutation($i: SetDepartmentNeedsApprovedProofInput!) {
  setDepartmentNeedsApprovedProof(input: $i) {
    department { code needsApprovedProof } userErrors { code field message } } }"""
FOLLOWS = """mutation($i: SetDepartmentFollowsInput!) {
  setDepartmentFollows(input: $i) { userErrors { code } } }"""
CREATE = """mutation($i: CreateWorkOrderInput!) {
  createWorkOrder(input: $i) { workOrder { id proofRequired } userErrors { code } } }"""
UPDATE = """mutation($i: UpdateWorkOrderInput!) {
  updateWorkOrder(input: $i) { changed workOrder { proofRequired } userErrors { code } } }"""
APPROVE = """mutation($i: ApproveProofInput!) {
  approveProof(input: $i) { changed proof { version status decidedThrough decidedByName
    decidedBy { name } } userErrors { code field message } } }"""
CHANGES = """mutation($i: RequestProofChangesInput!) {
  requestProofChanges(input: $i) { changed workOrder { id }
    userErrors { code field message } } }"""
START = """mutation($i: StartTaskInput!) {
  startTask(input: $i) { changed userErrors { code message } } }"""
FINISH = """mutation($i: FinishTaskInput!) {
  finishTask(input: $i) { changed userErrors { code } } }"""
ORDER = """query($id: ID!) { node(id: $id) { ... on WorkOrder {
  version proofRequired tasks { department { code } status availableAt inQueue awaitsProof }
  } } }"""
WORKERS = {"design": "dee", "print": "pat", "finishing": "fin"}
CONCURRENT_DECISIONS = 20


async def proof_departments(api: Client, shop: Shop, *codes: str) -> None:
    for code in codes:
        body = await api.as_(shop.tokens["ada"])(
            NEEDS, {"i": {"departmentCode": code, "needsApprovedProof": True}}
        )
        assert body["setDepartmentNeedsApprovedProof"]["department"]["needsApprovedProof"]


async def chained(api: Client, shop: Shop) -> None:
    """Design → Print → Finishing: Design makes what Print and Finishing wait for."""
    for code, follows in (("print", "design"), ("finishing", "print")):
        body = await api.as_(shop.tokens["ada"])(
            FOLLOWS, {"i": {"departmentCode": code, "followsCodes": [follows]}}
        )
        assert body["setDepartmentFollows"]["userErrors"] == []


async def proofed_order(api: Client, shop: Shop, codes: list[str]) -> int:
    body = await api.as_(shop.tokens["sam"])(
        CREATE,
        {
            "i": {
                "customerId": gid("Customer", shop.customer_id),
                "departmentCodes": codes,
                "details": {"product": "Posters"},
                "proofRequired": True,
            }
        },
    )
    made = body["createWorkOrder"]
    assert made["userErrors"] == [] and made["workOrder"]["proofRequired"] is True
    pk = decode_text(made["workOrder"]["id"], "WorkOrder")
    assert pk is not None
    return pk


async def add_version(shop: Shop, order: int, at: datetime | None = None) -> int:
    """The next proof version, by the upload's writer (stamped `at` when given); returns its
    number."""
    async with unit_of_work(shop.engine) as conn:
        if at is not None:
            await clock.stamp_as_of(conn, at)
        new = NewProof(
            work_order_id=order,
            file_name="proof.png",
            media_type="image/png",
            size_bytes=4,
            sha256=b"\x00" * 32,
            width=1,
            height=1,
            uploaded_by=shop.users["sam"],
            any_order=True,
        )
        row = await proofs.add_version(conn, new, io.BytesIO(b"\x89PNG"), b"\x89PNG")
    return row.version


async def scalar(shop: Shop, sql: str, **params: Any) -> Any:
    async with shop.engine.connect() as conn:
        return await conn.scalar(text(sql), params)


async def order_tasks(api: Client, shop: Shop, order: int) -> dict[str, dict[str, Any]]:
    body = await api.as_(shop.tokens["ada"])(ORDER, {"id": gid("WorkOrder", order)})
    return {t["department"]["code"]: t for t in body["node"]["tasks"]}


async def start(api: Client, shop: Shop, tasks: dict[str, int], code: str) -> dict[str, Any]:
    body = await api.as_(shop.tokens[WORKERS[code]])(
        START, {"i": {"taskId": gid("DepartmentTask", tasks[code])}}
    )
    payload: dict[str, Any] = body["startTask"]
    return payload


async def approve(
    api: Client, shop: Shop, order: int, version: int, who: str = "sam"
) -> dict[str, Any]:
    body = await api.as_(shop.tokens[who])(
        APPROVE,
        {"i": {"workOrderId": gid("WorkOrder", order), "version": version, "approverName": "Ann"}},
    )
    payload: dict[str, Any] = body["approveProof"]
    return payload


async def ask_changes(
    api: Client, shop: Shop, order: int, version: int, comment: str = "Bigger logo"
) -> dict[str, Any]:
    body = await api.as_(shop.tokens["sam"])(
        CHANGES,
        {
            "i": {
                "workOrderId": gid("WorkOrder", order),
                "version": version,
                "comment": comment,
                "approverName": "Ann",
            }
        },
    )
    payload: dict[str, Any] = body["requestProofChanges"]
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


# -- the gate ----------------------------------------------------------------------------------


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


# -- decisions ---------------------------------------------------------------------------------


async def test_a_decision_is_made_once_and_bad_ones_change_nothing(api: Client, shop: Shop) -> None:
    await proof_departments(api, shop, "print")
    order = await proofed_order(api, shop, ["print"])
    version = await add_version(shop, order)
    before = await table_snapshot(shop.engine)
    for payload, code, field in (
        (await approve(api, shop, order, version + 1), "NOT_FOUND", "version"),
        (await ask_changes(api, shop, order, version, comment="   "), "INVALID_INPUT", "comment"),
    ):
        assert [(e["code"], e["field"]) for e in payload["userErrors"]] == [(code, field)]
        assert await table_snapshot(shop.engine) == before
    nameless = await api.as_(shop.tokens["sam"])(
        APPROVE,
        {"i": {"workOrderId": gid("WorkOrder", order), "version": version, "approverName": " "}},
    )
    errors = nameless["approveProof"]["userErrors"]
    assert [(e["code"], e["field"]) for e in errors] == [("INVALID_INPUT", "approverName")]
    assert await table_snapshot(shop.engine) == before

    assert (await approve(api, shop, order, version))["changed"] is True
    decided = await table_snapshot(shop.engine)
    again = await approve(api, shop, order, version)
    assert (again["changed"], again["userErrors"]) == (False, [])
    other = await ask_changes(api, shop, order, version)
    assert [e["code"] for e in other["userErrors"]] == ["ALREADY_DECIDED"]
    assert "Ann" in other["userErrors"][0]["message"]
    assert await table_snapshot(shop.engine) == decided


async def test_only_sales_and_admins_record_a_decision(api: Client, shop: Shop) -> None:
    order = await proofed_order(api, shop, ["print"])
    version = await add_version(shop, order)
    before = await table_snapshot(shop.engine)
    body = await api.as_(shop.tokens["pat"]).raw(
        APPROVE,
        {"i": {"workOrderId": gid("WorkOrder", order), "version": version, "approverName": "A"}},
    )
    assert [e["extensions"]["code"] for e in body["errors"]] == ["FORBIDDEN"]
    assert await table_snapshot(shop.engine) == before


async def test_both_decisions_write_one_payload_shape(api: Client, shop: Shop) -> None:
    first = await proofed_order(api, shop, ["print"])
    second = await proofed_order(api, shop, ["print"])
    await approve(api, shop, first, await add_version(shop, first))
    await ask_changes(api, shop, second, await add_version(shop, second))
    async with shop.engine.connect() as conn:
        rows = (
            await conn.execute(
                text(
                    "SELECT type, payload FROM events WHERE type IN "
                    "('PROOF_APPROVED', 'PROOF_CHANGES_REQUESTED') ORDER BY id"
                )
            )
        ).all()
    [(approved, yes), (asked, changes)] = [(r.type, r.payload) for r in rows]
    assert (approved, asked) == ("PROOF_APPROVED", "PROOF_CHANGES_REQUESTED")
    assert yes.keys() == changes.keys()
    assert (yes["status"], yes["decidedThrough"], yes["decidedBy"]) == (
        "APPROVED", "SALES", shop.users["sam"]
    )  # fmt: skip
    assert (changes["status"], changes["comment"], changes["workOrderId"]) == (
        "CHANGES_REQUESTED", "Bigger logo", second
    )  # fmt: skip


@pytest.mark.parametrize("routing", ["routed", "unrouted"])
@pytest.mark.parametrize("design", ["done", "absent"])
async def test_changes_asked_for_put_design_back_to_work(
    api: Client, shop: Shop, design: str, routing: str
) -> None:
    """Design makes the proof whether Print and Finishing follow it or, unrouted, as the
    department where work starts."""
    if routing == "routed":
        await chained(api, shop)
    await proof_departments(api, shop, "print", "finishing")
    codes = ["design", "print", "finishing"] if design == "done" else ["print", "finishing"]
    order = await proofed_order(api, shop, codes)
    tasks = await task_ids(shop.engine, order)
    if design == "done":
        for mutation in (START, FINISH):
            body = await api.as_(shop.tokens["dee"])(
                mutation, {"i": {"taskId": gid("DepartmentTask", tasks["design"])}}
            )
            assert next(iter(body.values()))["changed"] is True
    version = await add_version(shop, order)

    asked = await ask_changes(api, shop, order, version, comment="The logo is too small")

    assert asked["userErrors"] == [] and asked["changed"] is True
    view = await order_tasks(api, shop, order)
    assert view["design"]["status"] == "PENDING" and view["design"]["inQueue"] is True
    assert not view["print"]["inQueue"] and not view["finishing"]["inQueue"]
    design_task = (await task_ids(shop.engine, order))["design"]
    if design == "done":
        reopened = await scalar(
            shop,
            "SELECT array_agg(reason || ' by ' || actor_id) FROM task_transitions "
            "WHERE task_id = :t AND action = 'REOPEN'",
            t=design_task,
        )
        assert reopened == [f"The logo is too small by {shop.users['sam']}"]
    else:
        added = await scalar(
            shop,
            "SELECT count(*) FROM work_order_transitions WHERE work_order_id = :o "
            "AND action = 'DEPARTMENT_ADDED' AND department_id = :d AND actor_id = :u",
            o=order,
            d=shop.departments["design"],
            u=shop.users["sam"],
        )
        assert added == 1
    history = await scalar(
        shop,
        "SELECT reason FROM work_order_transitions "
        "WHERE work_order_id = :o AND action = 'PROOF_CHANGES_REQUESTED'",
        o=order,
    )
    assert (
        history == f"Version {version}: changes asked for by Ann, to Sales: The logo is too small"
    )


async def link_to(shop: Shop, order: int, *, revoked: bool = False) -> int:
    """A customer link of `order`, as the link's writer keeps it (its hash only)."""
    async with shop.engine.begin() as conn:
        return int(
            await conn.scalar(
                text(
                    "INSERT INTO customer_links (work_order_id, secret_hash, created_by, "
                    "revoked_at, revoked_by) VALUES (:o, "
                    "sha256(convert_to(CAST(random() AS text), 'UTF8')), :u, "
                    "CASE WHEN :r THEN now() END, CASE WHEN :r THEN CAST(:u AS bigint) END) "
                    "RETURNING id"
                ),
                {"o": order, "u": shop.users["sam"], "r": revoked},
            )
            or 0
        )


async def customer_decides(shop: Shop, order: int, version: int, link: int) -> ProofDecided:
    async with unit_of_work(shop.engine) as conn:
        return await decide(
            conn,
            work_order_id=order,
            version=version,
            approve=True,
            comment=None,
            decided_by_name="Carla",
            sales_user_id=None,
            customer_link_id=link,
        )


@pytest.mark.parametrize("link", ["another order's", "revoked"])
async def test_a_customer_decides_only_through_a_live_link_of_the_order(
    shop: Shop, link: str
) -> None:
    order = await shop.order(["print"], proof_required=True)
    version = await add_version(shop, order)
    if link == "revoked":
        way_in = await link_to(shop, order, revoked=True)
    else:
        way_in = await link_to(shop, await shop.order(["print"]))
    before = await table_snapshot(shop.engine)

    with pytest.raises(NotAllowed):
        await customer_decides(shop, order, version, way_in)

    assert await table_snapshot(shop.engine) == before


async def test_a_customer_decides_through_their_link(api: Client, shop: Shop) -> None:
    await chained(api, shop)
    await proof_departments(api, shop, "print")
    order = await proofed_order(api, shop, ["print"])
    version = await add_version(shop, order)
    link = await link_to(shop, order)

    async with unit_of_work(shop.engine) as conn:
        done = await decide(
            conn,
            work_order_id=order,
            version=version,
            approve=False,
            comment="Blue, not green",
            decided_by_name="Carla",
            sales_user_id=None,
            customer_link_id=link,
        )

    assert done.changed is True
    async with shop.engine.connect() as conn:
        proof = (
            await conn.execute(text("SELECT * FROM proofs WHERE id = :p"), {"p": done.proof_id})
        ).one()
        decided = (
            await conn.execute(
                text(
                    "SELECT h.actor_id, u.name FROM work_order_transitions h "
                    "JOIN department_tasks t ON t.work_order_id = h.work_order_id "
                    "AND t.department_id = h.department_id "
                    "LEFT JOIN users u ON u.id = h.actor_id "
                    "WHERE h.work_order_id = :o AND h.action = 'DEPARTMENT_ADDED'"
                ),
                {"o": order},
            )
        ).one()
    assert (proof.status, proof.decided_through, proof.decided_by) == (
        "CHANGES_REQUESTED", "CUSTOMER", None
    )  # fmt: skip
    assert (proof.customer_link_id, proof.decided_by_name) == (link, "Carla")
    # Design was not on the order: it is added, by the customer's word.
    assert decided.name == "The customer"


# -- flow ----------------------------------------------------------------------------------------

FLOW = """query($from: DateTime!, $to: DateTime!) { flowSummary(from: $from, to: $to) {
  leadTime { count } customerWaitTime { count p50 p85 max } } }"""
BASE = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)


async def test_the_time_orders_waited_for_the_customer_is_its_own_figure(
    api: Client, shop: Shop
) -> None:
    def at(minute: int) -> datetime:
        return BASE + timedelta(minutes=minute)

    async def decided(order: int, version: int, minute: int, approve: bool) -> None:
        async with unit_of_work(shop.engine) as conn:
            await clock.stamp_as_of(conn, at(minute))
            await decide(
                conn,
                work_order_id=order,
                version=version,
                approve=approve,
                comment=None if approve else "Again",
                decided_by_name="Ann",
                sales_user_id=shop.users["sam"],
                customer_link_id=None,
            )

    sent_back = await shop.order(["print"], at=at(0))
    replaced = await shop.order(["print"], at=at(0))
    without = await shop.order(["print"], at=at(0))
    # Sent back after 30 minutes; the next version approved 40 minutes after its upload.
    await decided(sent_back, await add_version(shop, sent_back, at(0)), 30, approve=False)
    await decided(sent_back, await add_version(shop, sent_back, at(60)), 100, approve=True)
    # Replaced after 20 minutes, undecided; the next one approved after 30.
    await add_version(shop, replaced, at(0))
    await decided(replaced, await add_version(shop, replaced, at(20)), 50, approve=True)
    for order in (sent_back, replaced, without):
        await shop.complete(order)

    variables = {
        "from": BASE.isoformat(),
        "to": (datetime.now(UTC) + timedelta(hours=1)).isoformat(),
    }
    answer = (await api.as_(shop.tokens["sam"])(FLOW, variables))["flowSummary"]

    assert answer["leadTime"]["count"] == 3
    assert answer["customerWaitTime"] == {
        "count": 2, "p50": 60 * 60.0, "p85": (50 + 0.85 * 20) * 60.0, "max": 70 * 60.0
    }  # fmt: skip


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


# -- webhooks ----------------------------------------------------------------------------------

WEBHOOK = """mutation($i: CreateWebhookInput!) { createWebhook(input: $i) {
  userErrors { code } } }"""


async def test_decisions_reach_webhooks_with_the_version_decided(
    api: Client, shop: Shop, receiver: Receiver
) -> None:
    kinds = ["PROOF_APPROVED", "PROOF_CHANGES_REQUESTED"]
    made = await api.as_(shop.tokens["ada"])(
        WEBHOOK, {"i": {"url": receiver.url, "eventKinds": kinds}}
    )
    assert made["createWebhook"]["userErrors"] == []
    approved = await proofed_order(api, shop, ["print"])
    sent_back = await proofed_order(api, shop, ["print"])
    await approve(api, shop, approved, await add_version(shop, approved))
    await ask_changes(api, shop, sent_back, await add_version(shop, sent_back))

    bodies = [r.json() for r in await receiver.wait_for(2)]

    assert [b["type"] for b in bodies] == kinds
    proofs_sent = [b["data"]["workOrder"]["latestProof"] for b in bodies]
    assert [(p["version"], p["status"], p["decidedThrough"]) for p in proofs_sent] == [
        (1, "APPROVED", "SALES"),
        (1, "CHANGES_REQUESTED", "SALES"),
    ]
    assert proofs_sent[1]["comment"] == "Bigger logo"
