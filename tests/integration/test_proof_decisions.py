"""Decisions on a proof, through the API and real PostgreSQL: a decision is made once and bad
ones change nothing; only Sales and admins record one, or the customer through a live link
of the order; both decisions write one payload shape; changes asked for put Design back to
work; the time an order waited for the customer is a figure of its own in `flowSummary`;
decisions reach webhooks with the version decided.

Proof versions are added by the upload's writer (db.proofs.add_version), without the
file checks in front of it."""

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text

from db import clock
from db.engine import unit_of_work
from db.proof_decisions import ProofDecided, decide
from domain.errors import NotAllowed
from tests.support.client import Client, gid
from tests.support.database import table_snapshot, task_ids
from tests.support.proofs import (
    APPROVE,
    FINISH,
    START,
    add_version,
    approve,
    ask_changes,
    chained,
    order_tasks,
    proof_departments,
    proofed_order,
    scalar,
)
from tests.support.shop import Shop
from tests.support.webhooks import Receiver


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
