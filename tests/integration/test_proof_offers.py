"""What the screens offer around proofs is the server's to say: DECIDE_PROOF is in a work
order's allowedActions exactly when approveProof records a decision, and a task of the
department that makes the proof carries the version sent back (`proofChanges`, its
comment) while it has that work to do; UPLOAD_PROOF is offered exactly to those whose
upload is stored."""

from typing import Any

import httpx
import pytest

from db.cancellation import cancel_work_order
from db.engine import unit_of_work
from tests.support.client import Client, gid
from tests.support.database import table_snapshot, task_ids
from tests.support.proofs import (
    FINISH,
    START,
    add_version,
    approve,
    ask_changes,
    chained,
    image,
    proof_departments,
    proofed_order,
    upload_graphql,
)
from tests.support.shop import Shop

OFFERED = "query($id: ID!) { workOrder(id: $id) { allowedActions } }"
TASKS = """query($id: ID!) { workOrder(id: $id) { tasks { department { code }
  proofChanges { version comment decidedByName } } } }"""


async def offered(api: Client, shop: Shop, who: str, order: int) -> list[str]:
    body = await api.as_(shop.tokens[who])(OFFERED, {"id": gid("WorkOrder", order)})
    actions: list[str] = body["workOrder"]["allowedActions"]
    return actions


@pytest.mark.parametrize("proof", ["none", "pending", "approved", "sent back", "cancelled"])
@pytest.mark.parametrize("who", ["sam", "ada", "pat"])
async def test_decide_proof_is_offered_when_approve_proof_records_one(
    api: Client, shop: Shop, proof: str, who: str
) -> None:
    await proof_departments(api, shop, "print")
    order = await proofed_order(api, shop, ["print"])
    version = 1
    if proof != "none":
        version = await add_version(shop, order)
    if proof == "approved":
        assert (await approve(api, shop, order, version))["changed"] is True
    if proof == "sent back":
        assert (await ask_changes(api, shop, order, version))["changed"] is True
    if proof == "cancelled":
        async with unit_of_work(shop.engine) as conn:
            await cancel_work_order(conn, order, shop.users["sam"], "Withdrawn.")

    seen = "DECIDE_PROOF" in await offered(api, shop, who, order)
    body = await api.as_(shop.tokens[who]).raw(
        """mutation($i: ApproveProofInput!) { approveProof(input: $i) { changed
          userErrors { code } } }""",
        {"i": {"workOrderId": gid("WorkOrder", order), "version": version, "approverName": "Ann"}},
    )
    recorded = not body.get("errors") and body["data"]["approveProof"]["changed"] is True
    assert seen == recorded
    assert seen == (proof == "pending" and who != "pat")


async def proof_changes(api: Client, shop: Shop, order: int) -> dict[str, Any]:
    body = await api.as_(shop.tokens["ada"])(TASKS, {"id": gid("WorkOrder", order)})
    return {t["department"]["code"]: t["proofChanges"] for t in body["workOrder"]["tasks"]}


async def test_the_proof_makers_task_carries_the_changes_asked_for_until_done(
    api: Client, shop: Shop
) -> None:
    await chained(api, shop)
    await proof_departments(api, shop, "print", "finishing")
    order = await proofed_order(api, shop, ["design", "print", "finishing"])
    design = gid("DepartmentTask", (await task_ids(shop.engine, order))["design"])
    for mutation in (START, FINISH):
        await api.as_(shop.tokens["dee"])(mutation, {"i": {"taskId": design}})
    version = await add_version(shop, order)
    assert set((await proof_changes(api, shop, order)).values()) == {None}

    await ask_changes(api, shop, order, version, comment="The logo is too small")

    changes = await proof_changes(api, shop, order)
    assert changes == {
        "design": {"version": version, "comment": "The logo is too small", "decidedByName": "Ann"},
        "print": None,
        "finishing": None,
        "delivery": None,
    }
    for mutation in (START, FINISH):
        await api.as_(shop.tokens["dee"])(mutation, {"i": {"taskId": design}})
    assert (await proof_changes(api, shop, order))["design"] is None


async def test_a_new_version_ends_the_changes_shown(api: Client, shop: Shop) -> None:
    await chained(api, shop)
    await proof_departments(api, shop, "print")
    order = await proofed_order(api, shop, ["design", "print"])
    version = await add_version(shop, order)
    await ask_changes(api, shop, order, version)
    assert (await proof_changes(api, shop, order))["design"] is not None

    await add_version(shop, order)

    assert (await proof_changes(api, shop, order))["design"] is None


AWAITING = """query($d: String!) { awaitingProof(department: $d) { id awaitsProof
  workOrder { orderNumber } } }"""


async def test_a_queue_lists_the_work_waiting_for_the_customers_approval(
    api: Client, shop: Shop
) -> None:
    await chained(api, shop)
    await proof_departments(api, shop, "print")
    waiting = await proofed_order(api, shop, ["print"])
    behind_design = await proofed_order(api, shop, ["design", "print"])
    approved = await proofed_order(api, shop, ["print"])
    await approve(api, shop, approved, await add_version(shop, approved))
    held = await proofed_order(api, shop, ["print"])
    body = await api.as_(shop.tokens["sam"])(
        """mutation($i: HoldWorkOrderInput!) { holdWorkOrder(input: $i) { changed } }""",
        {"i": {"workOrderId": gid("WorkOrder", held), "reason": "Customer away"}},
    )
    assert body["holdWorkOrder"]["changed"] is True
    display = await shop.display(["print"])

    seen = (await api.as_(display)(AWAITING, {"d": "print"}))["awaitingProof"]

    tasks = {
        o: gid("DepartmentTask", (await task_ids(shop.engine, o))["print"])
        for o in (waiting, behind_design)
    }
    assert sorted(t["id"] for t in seen) == sorted(tasks.values())
    assert all(t["awaitsProof"] for t in seen)
    version = await add_version(shop, waiting)
    await approve(api, shop, waiting, version)
    after = (await api.as_(display)(AWAITING, {"d": "print"}))["awaitingProof"]
    assert [t["id"] for t in after] == [tasks[behind_design]]


async def test_a_display_of_another_queue_does_not_see_its_waiting_work(
    api: Client, shop: Shop
) -> None:
    display = await shop.display(["design"])
    body = await api.as_(display).raw(AWAITING, {"d": "print"})
    assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    unknown = await api.as_(shop.tokens["ada"]).raw(AWAITING, {"d": "nope"})
    assert unknown["errors"][0]["extensions"]["code"] == "NOT_FOUND"


# who, the order's departments -> offered UPLOAD_PROOF, and the upload stored.
UPLOADERS = {
    "design, on the order": ("dee", ["design", "print"], True),
    "design, not on the order": ("dee", ["print"], False),
    "print, on the order": ("pat", ["design", "print"], False),
    "finishing, on the order": ("fin", ["design", "print", "finishing"], False),
    "accounts": ("abe", ["design", "print"], False),
    "sales": ("sam", ["print"], True),
    "an admin": ("ada", ["print"], True),
}


@pytest.mark.parametrize("routing", ["routed, print needs a proof", "unrouted, none needs one"])
@pytest.mark.parametrize("case", UPLOADERS)
async def test_upload_proof_is_offered_to_exactly_those_whose_upload_is_stored(
    api: Client, http: httpx.AsyncClient, server: str, shop: Shop, case: str, routing: str
) -> None:
    """Sales, admins, and members of the department that makes the proof (Design: the one
    Print follows, or unrouted, where work starts) with a task on the order. Print waits
    for the proof and Finishing comes after it: neither makes it."""
    if routing.startswith("routed"):
        await chained(api, shop)
        await proof_departments(api, shop, "print")
    who, codes, may = UPLOADERS[case]
    order = await shop.order(codes)
    before = await table_snapshot(shop.engine)

    seen = "UPLOAD_PROOF" in await offered(api, shop, who, order)
    _, answer = await upload_graphql(
        http, server, shop.tokens[who], gid("WorkOrder", order), "proof.png", image("PNG")
    )

    assert seen is may
    if may:
        assert answer["proof"]["version"] == 1, answer
    else:
        assert [e["code"] for e in answer["errors"]] == ["FORBIDDEN"], answer
        assert await table_snapshot(shop.engine) == before
