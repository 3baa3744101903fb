"""Routing as gates, through the API: setDepartmentFollows, what each task of an order
waits for along Design → Print → Finishing with departments present or absent, the gate
opening once under racing finishes, reopening upstream, and routing changed under open
orders."""

import asyncio
import itertools
from typing import Any

import pytest
from sqlalchemy import text

from tests.support.client import Client, gid
from tests.support.database import table_snapshot, task_ids
from tests.support.shop import Shop

FOLLOWS = """mutation Follows($i: SetDepartmentFollowsInput!) {
  setDepartmentFollows(input: $i) {
    department { code follows { code } } userErrors { code field message } } }"""
ORDER = """query Order($id: ID!) { node(id: $id) { ... on WorkOrder {
  tasks { department { code } availableAt inQueue waitingFor { code } }
  history { action department { code } } } } }"""
FINISH = """mutation Finish($i: FinishTaskInput!) {
  finishTask(input: $i) { changed userErrors { code } } }"""
START = """mutation Start($i: StartTaskInput!) {
  startTask(input: $i) { changed userErrors { code message } } }"""
REOPEN = """mutation Reopen($i: ReopenTaskInput!) {
  reopenTask(input: $i) { changed userErrors { code } } }"""
CHAIN = ("design", "print", "finishing")
WORKERS = {"design": "dee", "print": "pat", "finishing": "fin", "delivery": "dan"}


async def route(api: Client, shop: Shop, code: str, *follows: str) -> dict[str, Any]:
    body = await api.as_(shop.tokens["ada"])(
        FOLLOWS, {"i": {"departmentCode": code, "followsCodes": list(follows)}}
    )
    payload: dict[str, Any] = body["setDepartmentFollows"]
    return payload


async def chained(api: Client, shop: Shop) -> None:
    """Design → Print → Finishing, as the demo shop routes its work."""
    for code, follows in (("print", "design"), ("finishing", "print")):
        payload = await route(api, shop, code, follows)
        assert payload["userErrors"] == []
        assert payload["department"]["follows"] == [{"code": follows}]


async def order_view(api: Client, shop: Shop, order: int) -> dict[str, Any]:
    body = await api.as_(shop.tokens["ada"])(ORDER, {"id": gid("WorkOrder", order)})
    node: dict[str, Any] = body["node"]
    return node


def waiting(view: dict[str, Any]) -> dict[str, list[str]]:
    return {t["department"]["code"]: [w["code"] for w in t["waitingFor"]] for t in view["tasks"]}


def in_queue(view: dict[str, Any]) -> dict[str, bool]:
    return {t["department"]["code"]: t["inQueue"] for t in view["tasks"]}


async def move(api: Client, shop: Shop, tasks: dict[str, int], code: str, mutation: str) -> None:
    variables = {"i": {"taskId": gid("DepartmentTask", tasks[code])}}
    body = await api.as_(shop.tokens[WORKERS[code]])(mutation, variables)
    [payload] = body.values()
    assert payload["changed"] and payload["userErrors"] == [], (code, payload)


async def done(api: Client, shop: Shop, tasks: dict[str, int], code: str) -> None:
    await move(api, shop, tasks, code, START)
    await move(api, shop, tasks, code, FINISH)


async def count(shop: Shop, sql: str, **params: Any) -> int:
    async with shop.engine.connect() as conn:
        return int(await conn.scalar(text(sql), params) or 0)


def expected_waits(present: tuple[str, ...]) -> dict[str, list[str]]:
    """The nearest present department up the chain; delivery waits for print and
    finishing (design does not gate delivery), with no chaining."""
    waits = {}
    for code in present:
        upstream = [c for c in CHAIN[: CHAIN.index(code)] if c in present]
        waits[code] = upstream[-1:]
    waits["delivery"] = [c for c in ("print", "finishing") if c in present]
    return waits


SUBSETS = [c for n in range(1, 4) for c in itertools.combinations(CHAIN, n)]


@pytest.mark.parametrize("present", SUBSETS, ids=lambda p: "+".join(p))
async def test_a_new_orders_tasks_wait_for_the_nearest_present_department_up_the_chain(
    api: Client, shop: Shop, present: tuple[str, ...]
) -> None:
    await chained(api, shop)
    view = await order_view(api, shop, await shop.order(list(present)))
    expected = expected_waits(present)
    assert waiting(view) == expected
    assert in_queue(view) == {code: not expected[code] for code in expected}


async def test_the_chain_opens_gate_after_gate_with_history_and_events(
    api: Client, shop: Shop
) -> None:
    await chained(api, shop)
    order = await shop.order(list(CHAIN))
    tasks = await task_ids(shop.engine, order)
    refused = await api.as_(shop.tokens["fin"])(
        START, {"i": {"taskId": gid("DepartmentTask", tasks["finishing"])}}
    )
    assert [e["code"] for e in refused["startTask"]["userErrors"]] == ["NOT_AVAILABLE"]
    for step, code in enumerate(CHAIN):
        await done(api, shop, tasks, code)
        view = await order_view(api, shop, order)
        following = (*CHAIN, "delivery")[step + 1]
        assert in_queue(view)[following] is True, code
        assert waiting(view)[following] == []
    opened = [h["department"]["code"] for h in view["history"] if h["action"] == "OPEN_GATE"]
    assert opened == ["print", "finishing", "delivery"]
    events = await count(
        shop,
        "SELECT count(*) FROM events WHERE work_order_id = :o AND type = 'TASK_GATE_OPENED'",
        o=order,
    )
    assert events == 2


async def test_two_upstream_tasks_finished_at_once_open_the_gate_once(
    api: Client, shop: Shop
) -> None:
    assert (await route(api, shop, "finishing", "design", "print"))["userErrors"] == []
    for _ in range(20):
        order = await shop.order(list(CHAIN))
        tasks = await task_ids(shop.engine, order)
        for code in ("design", "print"):
            await move(api, shop, tasks, code, START)
        await asyncio.gather(
            *(move(api, shop, tasks, code, FINISH) for code in ("design", "print"))
        )
        history = await count(
            shop,
            "SELECT count(*) FROM work_order_transitions "
            "WHERE work_order_id = :o AND action = 'OPEN_GATE' AND department_id = :d",
            o=order,
            d=shop.departments["finishing"],
        )
        events = await count(
            shop,
            "SELECT count(*) FROM events WHERE work_order_id = :o AND type = 'TASK_GATE_OPENED'",
            o=order,
        )
        assert (history, events) == (1, 1)


@pytest.mark.parametrize("started", [False, True], ids=["pending", "started"])
async def test_reopening_upstream_closes_the_gate_downstream_unless_its_task_started(
    api: Client, shop: Shop, started: bool
) -> None:
    await chained(api, shop)
    order = await shop.order(["print", "finishing"])
    tasks = await task_ids(shop.engine, order)
    await done(api, shop, tasks, "print")
    if started:
        await move(api, shop, tasks, "finishing", START)
    reopened = await api.as_(shop.tokens["ada"])(
        REOPEN, {"i": {"taskId": gid("DepartmentTask", tasks["print"]), "reason": "smudged"}}
    )
    assert reopened["reopenTask"]["changed"] is True
    view = await order_view(api, shop, order)
    closes = await count(
        shop,
        "SELECT count(*) FROM events WHERE work_order_id = :o AND type = 'TASK_GATE_CLOSED'",
        o=order,
    )
    if started:
        assert (waiting(view)["finishing"], in_queue(view)["finishing"], closes) == ([], True, 0)
    else:
        assert (waiting(view)["finishing"], in_queue(view)["finishing"], closes) == (
            ["print"],
            False,
            1,
        )
        assert view["history"][-1] == {"action": "CLOSE_GATE", "department": {"code": "finishing"}}


async def test_routing_changed_under_open_orders_moves_their_unstarted_gates(
    api: Client, shop: Shop
) -> None:
    waiting_order = await shop.order(["print", "finishing"])
    started_order = await shop.order(["print", "finishing"])
    await move(api, shop, await task_ids(shop.engine, started_order), "finishing", START)
    assert (await route(api, shop, "finishing", "print"))["userErrors"] == []
    assert in_queue(await order_view(api, shop, waiting_order))["finishing"] is False
    assert in_queue(await order_view(api, shop, started_order))["finishing"] is True
    assert (await route(api, shop, "finishing"))["department"]["follows"] == []
    view = await order_view(api, shop, waiting_order)
    assert in_queue(view)["finishing"] is True
    moves = [h["action"] for h in view["history"] if h["department"] == {"code": "finishing"}]
    assert moves == ["CLOSE_GATE", "OPEN_GATE"]


@pytest.mark.parametrize(
    ("code", "follows", "field", "says"),
    [
        ("design", ["finishing"], "followsCodes",
         "That would make a loop: Design waits for Finishing, which waits for Print, which "
         "waits for Design."),
        ("print", ["print"], "followsCodes", "That would make a loop: Print waits for Print."),
        ("delivery", ["print"], "departmentCode", "Delivery cannot follow other departments"),
        ("print", ["sales"], "followsCodes", "not Sales"),
        ("print", ["nope"], "followsCodes", "No department has the code 'nope'"),
        ("nope", [], "departmentCode", "No department has the code 'nope'"),
    ],
)  # fmt: skip
async def test_a_route_that_cannot_be_is_refused_and_changes_nothing(
    api: Client, shop: Shop, code: str, follows: list[str], field: str, says: str
) -> None:
    await chained(api, shop)
    await shop.order(list(CHAIN))
    before = await table_snapshot(shop.engine)
    payload = await route(api, shop, code, *follows)
    [error] = payload["userErrors"]
    assert (error["field"], payload["department"]) == (field, None)
    assert says in error["message"]
    assert await table_snapshot(shop.engine) == before


async def test_only_admins_route_work(api: Client, shop: Shop) -> None:
    body = await api.as_(shop.tokens["sam"]).raw(
        FOLLOWS, {"i": {"departmentCode": "finishing", "followsCodes": ["print"]}}
    )
    assert body["data"] is None
    assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"


async def test_departments_say_whom_they_follow_delivery_every_gating_one(
    api: Client, shop: Shop
) -> None:
    await chained(api, shop)
    body = await api.as_(shop.tokens["sam"])("{ departments { code follows { code } } }")
    follows = {d["code"]: [f["code"] for f in d["follows"]] for d in body["departments"]}
    assert follows == {
        "sales": [],
        "accounts": [],
        "design": [],
        "print": ["design"],
        "finishing": ["print"],
        "delivery": ["print", "finishing"],
    }
