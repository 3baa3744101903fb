"""What a waiting subscription keeps, multiplied by every wall display on a process: no
database row (a row keeps its whole result's metadata alive) and no task racing the
socket's receive (a task, its coroutine and the futures of the race), no handshake
request and response, nor their headers (the scope's included), no asyncio.Event for
flow control, and no instance dictionary on the protocol."""

import asyncio
import gc
import types
from typing import Any, TypeVar

import pytest
from sqlalchemy.engine import Row
from websockets.datastructures import Headers

from graph.engine.websocket import LeanWebSocketProtocol
from tests.support.client import Client, gid
from tests.support.shop import Shop
from tests.support.subscriptions import START, cursor_now, print_tasks, subscriber, take

# What the engine room does beyond the frameworks (src/graph/engine/README.md).
pytestmark = pytest.mark.engine_room

WALLS = 3
T = TypeVar("T")


def waiting_frames() -> list[Any]:
    """The frames of this process's suspended subscription generators."""
    return [
        generator.ag_frame
        for generator in gc.get_objects()
        # type(), not isinstance: dead weak proxies are among the objects.
        if type(generator) is types.AsyncGeneratorType
        and generator.ag_frame is not None
        and generator.ag_code.co_filename.endswith("graph/subscriptions.py")
    ]


def reachable(start: object, kind: type[T], depth: int) -> list[T]:
    """The objects of `kind` that `start` reaches within `depth` references."""
    seen = {id(start)}
    level, found = [start], []
    for _ in range(depth):
        following = []
        for value in level:
            for ref in gc.get_referents(value):
                # Types and modules lead everywhere: not what a connection keeps.
                if id(ref) in seen or isinstance(ref, (type, types.ModuleType)):
                    continue
                seen.add(id(ref))
                following.append(ref)
                if isinstance(ref, kind):
                    found.append(ref)
        level = following
    return found


def receive_tasks() -> list[asyncio.Task[Any]]:
    return [
        task
        for task in asyncio.all_tasks()
        if getattr(task.get_coro(), "__qualname__", "").endswith("Protocol.receive")
    ]


@pytest.mark.parametrize("protocol", ["graphql-transport-ws", "graphql-ws"])
async def test_a_waiting_queue_subscription_keeps_no_row_and_no_receive_task(
    api: Client, server: str, shop: Shop, protocol: str
) -> None:
    [task] = await print_tasks(shop, 1)
    variables = {"department": "print", "after": await cursor_now(api, shop.tokens["pat"])}
    token = shop.tokens["pia"]
    async with (
        subscriber(server, token, protocol, variables) as a,
        subscriber(server, token, protocol, variables) as b,
        subscriber(server, token, protocol, variables) as c,
    ):
        await api.as_(shop.tokens["pat"])(START, {"i": {"taskId": gid("DepartmentTask", task)}})
        for received in (a, b, c):
            [result] = await take(received, 1)
            assert result["queueEvents"]["task"]["id"] == gid("DepartmentTask", task)
        frames = waiting_frames()
        # Each wall's queue_events and the stream under it.
        assert len(frames) >= 2 * WALLS
        kept = {
            (frame.f_code.co_name, name)
            for frame in frames
            for name, value in frame.f_locals.items()
            if isinstance(value, Row)
        }
        assert kept == set()
        assert receive_tasks() == []
        # The open connections' protocols let their handshake go once accepted (a refused
        # one, which another test may leave for the collector, keeps its own).
        protocols = [
            p
            for p in gc.get_objects()
            if type(p) is LeanWebSocketProtocol and not p.close_sent and p.handshake_complete
        ]
        assert len(protocols) >= WALLS
        assert not any(hasattr(p, "request") or hasattr(p, "response") for p in protocols)
        # Nor does anything the protocol holds (websockets' parser keeps the request).
        assert [h for p in protocols for h in reachable(p, Headers, depth=6) if h] == []
        # Nor the app's copy in the scope, once the connection is accepted.
        assert [p.scope["headers"] for p in protocols if p.scope["headers"]] == []
        # An Event keeps a deque of waiters for the socket's life; the flag makes a future
        # only when a write has to wait.
        assert [e for p in protocols for e in reachable(p, asyncio.Event, depth=2)] == []
        # Every attribute has a slot, so no instance dictionary is made.
        assert [vars(p) for p in protocols if vars(p)] == []
