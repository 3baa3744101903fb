"""What a request or a subscription holds is freed by reference counting when it ends,
not left in a reference cycle for the garbage collector. Two cycles kept a subscription's
whole connection (socket, protocol, handler, context: about 60 objects) alive, one until
the collector's next pass (graphql-core's executor and its helpers; the unit test of
graph/engine/executor.py has it alone), the other until asyncpg's statement cache timers fired
(contexts copied from the operation's task, holding the operation)."""

import asyncio
import contextlib
import gc
import json
import time
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import websockets
from websockets.typing import Subprotocol

from graph.context import Context
from graph.view import PressroomGraphQL
from tests.support import START, Client, Shop, cursor_now, gid, print_tasks, ws_url

# What the engine room does beyond the frameworks (src/graph/engine/README.md).
pytestmark = pytest.mark.engine_room

FINISH = "mutation($i: FinishTaskInput!) { finishTask(input: $i) { changed } }"


@contextlib.contextmanager
def cyclic_garbage() -> Iterator[list[Context]]:
    """The contexts that only the cyclic collector found unreachable during the block (the
    server's own paced collections included), listed when the block ends. What reference
    counting frees never reaches the collector."""
    found: list[Context] = []
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield found
        gc.collect()
        found.extend(o for o in gc.garbage if isinstance(o, Context))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


@dataclass
class Made:
    """Weak references to the contexts made from now on: of HTTP requests, of websockets."""

    http: list["weakref.ref[Context]"] = field(default_factory=list)
    websocket: list["weakref.ref[Context]"] = field(default_factory=list)


@pytest.fixture
def contexts(monkeypatch: pytest.MonkeyPatch) -> Made:
    made = Made()
    get_context = PressroomGraphQL.get_context

    async def recorded(self: PressroomGraphQL, *args: Any, **kwargs: Any) -> Context:
        context = await get_context(self, *args, **kwargs)
        kind = made.http if context.websocket is None else made.websocket
        kind.append(weakref.ref(context))
        return context

    monkeypatch.setattr(PressroomGraphQL, "get_context", recorded)
    return made


async def gone(refs: list["weakref.ref[Context]"], within: float = 10) -> bool:
    """Whether every referent is gone, once the server has finished with it (it answers
    before its request's coroutines have all returned): freed, or found unreachable by
    the collector, which clears the weak references to what it finds."""
    deadline = time.monotonic() + within
    while any(ref() is not None for ref in refs):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


async def test_a_request_lets_go_of_its_context_when_it_ends(
    api: Client, shop: Shop, contexts: Made
) -> None:
    [task] = await print_tasks(shop, 1)
    pat = api.as_(shop.tokens["pat"])
    moves = {"startTask": START, "finishTask": FINISH}
    with cyclic_garbage() as found:
        for field_name, mutation in moves.items():
            moved = await pat(mutation, {"i": {"taskId": gid("DepartmentTask", task)}})
            assert moved[field_name]["changed"] is True
        assert (await pat("{ me { name } }"))["me"]["name"] == "Pat"
        assert len(contexts.http) == 3
        assert await gone(contexts.http)
    assert found == []


async def test_a_subscription_lets_go_of_its_connection_when_it_ends(
    api: Client, server: str, shop: Shop, contexts: Made
) -> None:
    first, second = await print_tasks(shop, 2)
    cursor = await cursor_now(api, shop.tokens["pat"])
    query = 'subscription($a: String) { queueEvents(department: "print", after: $a) { cursor } }'
    pia = api.as_(shop.tokens["pia"])
    with cyclic_garbage() as found:
        async with websockets.connect(
            ws_url(server), subprotocols=[Subprotocol("graphql-transport-ws")]
        ) as ws:
            init = {"authorization": f"Bearer {shop.tokens['pat']}"}
            await ws.send(json.dumps({"type": "connection_init", "payload": init}))
            assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "connection_ack"
            payload = {"query": query, "variables": {"a": cursor}}
            await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
            # One event by replay or live, then one surely live: the subscription ran both ways.
            for task in (first, second):
                await pia(START, {"i": {"taskId": gid("DepartmentTask", task)}})
                assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "next"
        assert len(contexts.websocket) == 1
        assert await gone(contexts.websocket)
    assert found == []
