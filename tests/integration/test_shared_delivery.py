"""Subscribers that would get the same answer share one execution per live event; the
permission scope of a shared execution is exactly that of each subscriber it serves."""

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
import websockets
from websockets.typing import Subprotocol

from graph.engine.sharing import Direct
from tests.support.client import Client, gid
from tests.support.servers import metric
from tests.support.shop import Shop
from tests.support.subscriptions import START, cursor_now, display_token, print_tasks, ws_url

# What the engine room does beyond the frameworks (src/graph/engine/README.md).
pytestmark = pytest.mark.engine_room

SAME_FOR_ALL = """subscription SharedWall($after: String) {
  queueEvents(department: "print", after: $after) {
    cursor kind task { id status pickedUpBy { name } workOrder { orderNumber jobLine } }
  }
}"""
SCOPED = """subscription ScopedWall($after: String) {
  queueEvents(department: "print", after: $after) {
    task { id pickedUpBy { name email } workOrder { details } }
  }
}"""


class Subscription:
    """One subscription over a raw websocket, so that partial errors reach the test."""

    def __init__(self, ws: Any, protocol: str) -> None:
        self.ws = ws
        self.kind = "next" if protocol == "graphql-transport-ws" else "data"

    async def next(self) -> dict[str, Any]:
        async with asyncio.timeout(15):
            while True:
                message = json.loads(await self.ws.recv())
                if message["type"] == self.kind:
                    return dict(message["payload"])
                assert message["type"] in ("ka", "ping"), message


@asynccontextmanager
async def subscription(
    server: str, token: str, protocol: str, document: str, variables: dict[str, Any]
) -> AsyncIterator[Subscription]:
    async with websockets.connect(ws_url(server), subprotocols=[Subprotocol(protocol)]) as ws:
        init = {"type": "connection_init", "payload": {"authorization": f"Bearer {token}"}}
        await ws.send(json.dumps(init))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        start = "subscribe" if protocol == "graphql-transport-ws" else "start"
        payload = {"query": document, "variables": variables}
        await ws.send(json.dumps({"id": "s", "type": start, "payload": payload}))
        yield Subscription(ws, protocol)


RESULTS = "pressroom_subscription_results_total"


async def results(http: httpx.AsyncClient, server: str) -> dict[str, float]:
    text = (await http.get(server.replace("/graphql", "/metrics"))).text
    found = {made: metric(text, RESULTS, made=made) for made in ("executed", "shared")}
    return {made: value for made, value in found.items() if value is not None}


def delta(before: dict[str, float], after: dict[str, float], made: str) -> float:
    return after.get(made, 0.0) - before.get(made, 0.0)


async def start(api: Client, shop: Shop, task: int) -> None:
    await api.as_(shop.tokens["pat"])(START, {"i": {"taskId": gid("DepartmentTask", task)}})


async def test_displays_with_the_same_operation_share_one_execution(
    api: Client, server: str, shop: Shop, http: httpx.AsyncClient
) -> None:
    secrets = [(await display_token(api, shop, ["print"]))["secret"] for _ in range(2)]
    first, second = await print_tasks(shop, 2)
    variables = {"after": await cursor_now(api, shop.tokens["pat"])}
    specs = [(s, p) for s in secrets for p in ("graphql-transport-ws", "graphql-ws")]
    async with (
        subscription(server, *specs[0], SAME_FOR_ALL, variables) as a,
        subscription(server, *specs[1], SAME_FOR_ALL, variables) as b,
        subscription(server, *specs[2], SAME_FOR_ALL, variables) as c,
        subscription(server, *specs[3], SAME_FOR_ALL, variables) as d,
    ):
        # The first event may reach some of them by their replay; once each has it,
        # every one of them is live, and the second event is the one measured.
        await start(api, shop, first)
        for sub in (a, b, c, d):
            await sub.next()
        before = await results(http, server)
        await start(api, shop, second)
        got = [await sub.next() for sub in (a, b, c, d)]
        after = await results(http, server)
    assert got[0]["data"]["queueEvents"]["task"]["id"] == gid("DepartmentTask", second)
    assert all(g == got[0] for g in got), got
    assert delta(before, after, "executed") == 1
    assert delta(before, after, "shared") == 3


async def test_a_shared_answer_is_written_past_the_execution_steps(
    api: Client,
    server: str,
    shop: Shop,
    http: httpx.AsyncClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """graphql-transport-ws subscribers that did not execute an answer get its message
    from their subscription itself (graph/engine/sharing.py's `Direct`), the same message."""
    written: list[bool] = []
    wrote = Direct.wrote

    async def counting(self: Direct, *args: Any) -> bool:
        done = await wrote(self, *args)
        written.append(done)
        return done

    monkeypatch.setattr(Direct, "wrote", counting)
    secret = (await display_token(api, shop, ["print"]))["secret"]
    first, second = await print_tasks(shop, 2)
    variables = {"after": await cursor_now(api, shop.tokens["pat"])}
    protocol = "graphql-transport-ws"
    async with (
        subscription(server, secret, protocol, SAME_FOR_ALL, variables) as a,
        subscription(server, secret, protocol, SAME_FOR_ALL, variables) as b,
        subscription(server, secret, protocol, SAME_FOR_ALL, variables) as c,
    ):
        await start(api, shop, first)
        for sub in (a, b, c):
            await sub.next()
        before = await results(http, server)
        written.clear()
        await start(api, shop, second)
        got = [await sub.next() for sub in (a, b, c)]
        after = await results(http, server)
    assert got[0]["data"]["queueEvents"]["task"]["id"] == gid("DepartmentTask", second)
    assert got[1:] == [got[0], got[0]]
    assert delta(before, after, "executed") == 1
    assert delta(before, after, "shared") == 2
    # One subscriber found no answer and executed; the two others wrote it themselves.
    assert sorted(written) == [False, True, True]


@pytest.mark.parametrize("protocol", ["graphql-transport-ws", "graphql-ws"])
async def test_subscribers_of_different_scopes_never_get_each_others_answers(
    api: Client, server: str, shop: Shop, http: httpx.AsyncClient, protocol: str
) -> None:
    secret = (await display_token(api, shop, ["print"]))["secret"]
    [task] = await print_tasks(shop, 1)
    variables = {"after": await cursor_now(api, shop.tokens["pat"])}
    async with (
        subscription(server, shop.tokens["ada"], protocol, SCOPED, variables) as admin,
        subscription(server, shop.tokens["pia"], protocol, SCOPED, variables) as worker,
        subscription(server, secret, protocol, SCOPED, variables) as display,
    ):
        before = await results(http, server)
        await start(api, shop, task)
        seen_by = {"admin": await admin.next(), "worker": await worker.next()}
        seen_by["display"] = await display.next()
        after = await results(http, server)
    assert delta(before, after, "shared") == 0
    assert delta(before, after, "executed") == 3

    def codes(payload: dict[str, Any]) -> list[str]:
        return sorted(e["extensions"]["code"] for e in payload.get("errors") or [])

    admin_task = seen_by["admin"]["data"]["queueEvents"]["task"]
    assert codes(seen_by["admin"]) == []
    assert admin_task["pickedUpBy"]["email"] == "pat@shop.test"
    assert admin_task["workOrder"]["details"] is not None
    # Another print worker sees the job, not a colleague's email.
    assert codes(seen_by["worker"]) == ["FORBIDDEN"]
    assert "pat@shop.test" not in json.dumps(seen_by["worker"])
    assert seen_by["worker"]["data"]["queueEvents"]["task"]["workOrder"]["details"] is not None
    # The wall display sees neither.
    assert codes(seen_by["display"]) == ["FORBIDDEN", "FORBIDDEN"]
    display_task = json.dumps(seen_by["display"]["data"])
    assert "pat@shop.test" not in display_task
    assert '"details": {' not in display_task


async def test_operations_on_one_connection_each_write_under_their_own_id(
    api: Client, server: str, shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each graphql-transport-ws operation knows its own id through its root value, even
    when several start at once on one connection and all but one write a shared answer
    themselves."""
    written: list[str] = []
    wrote = Direct.wrote

    async def recording(self: Direct, *args: Any) -> bool:
        done = await wrote(self, *args)
        if done:
            written.append(self.operation.id)
        return done

    monkeypatch.setattr(Direct, "wrote", recording)
    secret = (await display_token(api, shop, ["print"]))["secret"]
    first, second = await print_tasks(shop, 2)
    variables = {"after": await cursor_now(api, shop.tokens["pat"])}
    ids = ["a", "b", "c", "d"]
    async with websockets.connect(
        ws_url(server), subprotocols=[Subprotocol("graphql-transport-ws")]
    ) as ws:
        init = {"type": "connection_init", "payload": {"authorization": f"Bearer {secret}"}}
        await ws.send(json.dumps(init))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        payload = {"query": SAME_FOR_ALL, "variables": variables}
        for name in ids:
            await ws.send(json.dumps({"id": name, "type": "subscribe", "payload": payload}))

        async def nexts() -> list[tuple[str, str]]:
            got = []
            async with asyncio.timeout(15):
                while len(got) < len(ids):
                    message = json.loads(await ws.recv())
                    assert message["type"] in ("next", "ping"), message
                    if message["type"] == "next":
                        task = message["payload"]["data"]["queueEvents"]["task"]["id"]
                        got.append((message["id"], task))
            return got

        await start(api, shop, first)
        assert sorted(await nexts()) == [(i, gid("DepartmentTask", first)) for i in ids]
        written.clear()
        await start(api, shop, second)
        assert sorted(await nexts()) == [(i, gid("DepartmentTask", second)) for i in ids]
    # One operation executed the answer; the three others wrote it under their own ids.
    assert len(written) == 3 and len(set(written)) == 3 and set(written) < set(ids)
