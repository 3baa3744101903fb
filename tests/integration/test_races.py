"""Races with many real connections at once, through the real HTTP endpoint.

Each request is its own transaction on its own pooled connection, so the
requests below really do meet in PostgreSQL at the same time.
"""

import asyncio
from typing import Any

import pytest
from sqlalchemy import text

from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop

START = """mutation Start($i: StartTaskInput!) {
  startTask(input: $i) { changed task { status pickedUpBy { id } } userErrors { code message } }
}"""
FINISH = """mutation Finish($i: FinishTaskInput!) {
  finishTask(input: $i) { changed task { status } userErrors { code message } }
}"""
CANCEL = """mutation Cancel($i: CancelWorkOrderInput!) {
  cancelWorkOrder(input: $i) { workOrder { status } userErrors { code message } }
}"""

CONCURRENT_STARTS = 50
TASKS_RACED = 8
REPEATS = 50


async def scalar(shop: Shop, sql: str, **params: Any) -> Any:
    async with shop.engine.connect() as conn:
        return await conn.scalar(text(sql), params)


async def test_fifty_concurrent_starts_have_exactly_one_winner(api: Client, shop: Shop) -> None:
    workers = ["pat", "pia"]
    for n in range(4):
        workers.append(f"printer{n}")
        await shop.add_user(f"printer{n}", ["print"])
    for _ in range(TASKS_RACED):
        task = (await task_ids(shop.engine, await shop.order(["print"])))["print"]
        callers = [workers[n % len(workers)] for n in range(CONCURRENT_STARTS)]
        results = await asyncio.gather(
            *(
                api.as_(shop.tokens[w])(START, {"i": {"taskId": gid("DepartmentTask", task)}})
                for w in callers
            )
        )
        payloads = [r["startTask"] for r in results]
        winners = [p for p in payloads if p["changed"]]
        assert len(winners) == 1
        holder = winners[0]["task"]["pickedUpBy"]["id"]
        holder_key = next(w for w in workers if gid("User", shop.users[w]) == holder)
        holder_name = holder_key.title()
        for caller, payload in zip(callers, payloads, strict=True):
            if payload["changed"]:
                continue
            if caller == holder_key:
                assert payload["userErrors"] == []
                assert payload["task"]["pickedUpBy"]["id"] == holder
            else:
                assert [e["code"] for e in payload["userErrors"]] == ["ALREADY_TAKEN"]
                assert holder_name in payload["userErrors"][0]["message"]
        history = await scalar(
            shop, "SELECT count(*) FROM task_transitions WHERE task_id = :t", t=task
        )
        events = await scalar(
            shop,
            "SELECT count(*) FROM events WHERE type = 'TASK_CHANGED' "
            "AND (payload->>'taskId')::bigint = :t",
            t=task,
        )
        assert (history, events) == (1, 1)


async def test_finishing_the_last_two_gating_tasks_at_once_opens_the_gate_once(
    api: Client, shop: Shop
) -> None:
    pat, fin = api.as_(shop.tokens["pat"]), api.as_(shop.tokens["fin"])
    for _ in range(REPEATS):
        order = await shop.order(["print", "finishing"])
        ids = await task_ids(shop.engine, order)
        await pat(START, {"i": {"taskId": gid("DepartmentTask", ids["print"])}})
        await fin(START, {"i": {"taskId": gid("DepartmentTask", ids["finishing"])}})
        done = await asyncio.gather(
            pat(FINISH, {"i": {"taskId": gid("DepartmentTask", ids["print"])}}),
            fin(FINISH, {"i": {"taskId": gid("DepartmentTask", ids["finishing"])}}),
        )
        assert all(d["finishTask"]["changed"] for d in done)
        opened = await scalar(
            shop,
            "SELECT count(*) FROM work_order_transitions "
            "WHERE work_order_id = :o AND action = 'OPEN_GATE'",
            o=order,
        )
        gate_events = await scalar(
            shop,
            "SELECT count(*) FROM events "
            "WHERE work_order_id = :o AND type = 'DELIVERY_GATE_OPENED'",
            o=order,
        )
        available = await scalar(
            shop,
            "SELECT available_at IS NOT NULL FROM department_tasks WHERE id = :t",
            t=ids["delivery"],
        )
        assert (opened, gate_events, available) == (1, 1, True)


async def test_a_start_racing_a_cancel_never_leaves_a_started_task(api: Client, shop: Shop) -> None:
    """Whichever commits first, the task ends PENDING with a history that says why. Which
    order each round takes is up to timing, so this proves the outcome of the orders that
    happened, not that both did. Sent start first, the start nearly always won (49 or 50
    rounds of 50); the rounds take turns at which request goes first, so that both
    orders come up (about 30 and 20 rounds of 50 here)."""
    pat, sam = api.as_(shop.tokens["pat"]), api.as_(shop.tokens["sam"])
    for i in range(REPEATS):
        order = await shop.order(["print"])
        task = (await task_ids(shop.engine, order))["print"]
        start = pat(START, {"i": {"taskId": gid("DepartmentTask", task)}})
        cancel = sam(CANCEL, {"i": {"workOrderId": gid("WorkOrder", order), "reason": "Race"}})
        if i % 2:
            cancelled, started = await asyncio.gather(cancel, start)
        else:
            started, cancelled = await asyncio.gather(start, cancel)
        assert cancelled["cancelWorkOrder"]["workOrder"]["status"] == "CANCELLED"
        status = await scalar(shop, "SELECT status FROM department_tasks WHERE id = :t", t=task)
        assert status == "PENDING"
        actions = await scalar(
            shop,
            "SELECT coalesce(string_agg(action, ',' ORDER BY id), '') FROM task_transitions "
            "WHERE task_id = :t",
            t=task,
        )
        if started["startTask"]["changed"]:
            # The start committed first; the cancel then released the task.
            assert actions == "START,RELEASE"
        else:
            assert [e["code"] for e in started["startTask"]["userErrors"]] == ["WORK_ORDER_CLOSED"]
            assert actions == ""


@pytest.mark.parametrize("attempts", [30])
async def test_concurrent_cancels_cancel_once(api: Client, shop: Shop, attempts: int) -> None:
    order = await shop.order(["print", "finishing"])
    sam = api.as_(shop.tokens["sam"])
    results = await asyncio.gather(
        *(
            sam(CANCEL, {"i": {"workOrderId": gid("WorkOrder", order), "reason": f"Try {n}"}})
            for n in range(attempts)
        )
    )
    ok = [r for r in results if not r["cancelWorkOrder"]["userErrors"]]
    assert len(ok) == 1
    assert {r["cancelWorkOrder"]["userErrors"][0]["code"] for r in results if r not in ok} == {
        "WORK_ORDER_CLOSED"
    }
    cancels = await scalar(
        shop,
        "SELECT count(*) FROM work_order_transitions "
        "WHERE work_order_id = :o AND action = 'CANCEL'",
        o=order,
    )
    assert cancels == 1
