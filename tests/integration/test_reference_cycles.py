"""What a request or a subscription holds is freed by reference counting when it ends,
not left in a reference cycle for the garbage collector. Two cycles kept a subscription's
whole connection (socket, protocol, handler, context: about 60 objects) alive, one until
the collector's next pass (graphql-core's executor and its helpers; the unit test of
graph/engine/executor.py has it alone), the other until asyncpg's statement cache timers fired
(contexts copied from the operation's task, holding the operation). A third kept every
websocket's Sans-I/O state (its parser holds it) until a full collection."""

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
from websockets.server import ServerProtocol
from websockets.typing import Subprotocol

from graph.context import Context
from graph.view import PressroomGraphQL
from tests.support.client import Client, gid
from tests.support.shop import Shop
from tests.support.subscriptions import FINISH, START, cursor_now, print_tasks, ws_url

# What the engine room does beyond the frameworks (src/graph/engine/README.md).
pytestmark = pytest.mark.engine_room


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
        # type(): isinstance asks a dead weak proxy in the garbage, which raises.
        found.extend(o for o in gc.garbage if issubclass(type(o), Context))
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


async def gone(refs: list["weakref.ref[Any]"], within: float = 10) -> bool:
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


@dataclass
class Frees:
    """Weak references to objects, each noting on its way whether the collector freed its
    referent: the collector calls the callbacks of what it finds between its own start and
    stop. Where gc.DEBUG_SAVEALL keeps what a collection finds, this sees a cycle through
    a generator too: the collector closes the generator (its finaliser), which breaks the
    cycle, and the rest goes by reference counting, never reaching `gc.garbage`."""

    refs: list["weakref.ref[Any]"] = field(default_factory=list)
    by_collector: list[bool] = field(default_factory=list)
    collecting: bool = False

    def phase(self, phase: str, info: dict[str, int]) -> None:
        self.collecting = phase == "start"

    def watch(self, referent: Any) -> None:
        self.refs.append(weakref.ref(referent, lambda _: self.by_collector.append(self.collecting)))


async def test_a_websocket_lets_go_of_its_protocol_state_however_it_ends(
    server: str, shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Closed cleanly, dropped without a close frame, or dropped after a refused sign-in
    (the hostile bench's websocket churn): each left websockets' state for the connection
    in a cycle with its parser, and under churn thousands waited for a full collection."""
    subprotocols = [Subprotocol("graphql-transport-ws")]
    frees = Frees()
    init_state = ServerProtocol.__init__

    def recorded(self: ServerProtocol, *args: Any, **kwargs: Any) -> None:
        init_state(self, *args, **kwargs)
        frees.watch(self)

    monkeypatch.setattr(ServerProtocol, "__init__", recorded)
    gc.callbacks.append(frees.phase)
    try:
        async with websockets.connect(ws_url(server), subprotocols=subprotocols) as ws:
            signed_in = {"authorization": f"Bearer {shop.tokens['pat']}"}
            await ws.send(json.dumps({"type": "connection_init", "payload": signed_in}))
            assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "connection_ack"
        ws = await websockets.connect(ws_url(server), subprotocols=subprotocols)
        ws.transport.abort()
        ws = await websockets.connect(ws_url(server), subprotocols=subprotocols)
        bad = {"authorization": "Bearer nope"}
        await ws.send(json.dumps({"type": "connection_init", "payload": bad}))
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 10)
        ws.transport.abort()
        assert len(frees.refs) == 3
        # The server's paced collections run meanwhile: a cycle is found within one.
        assert await gone(frees.refs)
    finally:
        gc.callbacks.remove(frees.phase)
    assert frees.by_collector == [False, False, False]
