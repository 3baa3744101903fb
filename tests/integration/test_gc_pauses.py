"""Garbage collector pauses of the whole server process show in /metrics, the young
generation is collected on time whatever the allocation count says, by work as well
(messages written, websocket reads and losses, subscriptions ending), and an app that
shuts down stops timing and pacing collections (tests start many apps in one process)."""

import asyncio
import contextlib
import gc
import json
import traceback
import weakref
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import websockets
from websockets.typing import Subprotocol

from graph.engine import collector
from graph.engine.collector import GcPauses
from pressroom.app import create_app
from pressroom.settings import Settings
from tests.support import (
    START,
    Client,
    Shop,
    config_for,
    cursor_now,
    free_port,
    gid,
    metric,
    print_tasks,
    serve,
    ws_url,
)

# What the engine room does beyond the frameworks (src/graph/engine/README.md).
pytestmark = pytest.mark.engine_room

COLLECTIONS = "pressroom_gc_pause_seconds_count"
PROTOCOLS = [Subprotocol("graphql-transport-ws")]


async def test_a_collection_in_the_server_process_shows_in_metrics(
    server: str, http: httpx.AsyncClient
) -> None:
    metrics = server.removesuffix("/graphql") + "/metrics"
    before = (await http.get(metrics)).text
    # The test server runs in this process: this is a full collection of the server's.
    gc.collect()
    after = (await http.get(metrics)).text
    collections = metric(after, COLLECTIONS, generation="2")
    assert collections is not None
    assert collections >= (metric(before, COLLECTIONS, generation="2") or 0) + 1
    every = metric(after, "pressroom_gc_pause_seconds_bucket", generation="2", le="+Inf")
    assert every == collections
    # The longest pause of any generation is one of the pauses summed.
    sums = [metric(after, "pressroom_gc_pause_seconds_sum", generation=str(g)) for g in range(3)]
    longest = metric(after, "pressroom_gc_pause_max_seconds")
    assert longest is not None
    assert 0 < longest <= sum(s or 0 for s in sums)
    # The collector's CPU time in that pause: some, and no more than the pause itself.
    cpu = metric(after, "pressroom_gc_pause_max_cpu_seconds")
    assert cpu is not None
    assert 0 < cpu <= longest


async def test_an_app_that_shuts_down_stops_timing_collections(database_url: str) -> None:
    others = list(gc.callbacks)
    for _ in range(2):
        settings = Settings()
        app = create_app(settings, url=database_url)
        server, serving = await serve(config_for(app, settings, free_port()))
        added = [callback for callback in gc.callbacks if callback not in others]
        assert len(added) == 1
        assert isinstance(added[0], GcPauses)
        server.should_exit = True
        await serving
        assert gc.callbacks == others
    metrics = app.state.services.metrics
    counted = metric(metrics.exposition().decode(), COLLECTIONS, generation="2")
    gc.collect()
    assert metric(metrics.exposition().decode(), COLLECTIONS, generation="2") == counted


async def test_the_young_generation_is_collected_on_time_without_allocations(
    running_app: tuple[str, Any],
) -> None:
    """With the allocation threshold out of reach, young collections still come (every
    PACE_SECONDS): the pacer, not the count, sets them off."""
    collected = asyncio.Event()

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] <= 1:
            collected.set()

    thresholds = gc.get_threshold()
    gc.set_threshold(10**9, *thresholds[1:])
    gc.callbacks.append(seen)
    try:
        async with asyncio.timeout(collector.PACE_SECONDS * 100):
            await collected.wait()
    finally:
        gc.callbacks.remove(seen)
        gc.set_threshold(*thresholds)


async def test_the_pacer_collects_the_middle_generation_with_the_young() -> None:
    """What survived a young collection is not left to pile up in the middle generation
    (a cycle made before a young collection is found by the pacer's next one)."""
    generations: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            generations.append(info["generation"])

    class Node:
        other: "Node"

    thresholds = gc.get_threshold()
    gc.set_threshold(10**9, *thresholds[1:])
    gc.callbacks.append(seen)
    try:
        gc.collect()
        first, second = Node(), Node()
        first.other, second.other = second, first
        gone = weakref.ref(first)
        gc.collect(0)
        assert gc.get_count()[1] == 1
        del first, second
        collector.collect_recent()
        assert gone() is None
        assert generations[-1] == 1
        assert gc.get_count()[1] == 0
    finally:
        gc.callbacks.remove(seen)
        gc.set_threshold(*thresholds)


async def test_messages_make_young_collections_too() -> None:
    """A loop busy for hundreds of ms with a batch of events does not wake the timer: the
    messages it writes set collections off instead."""
    generations: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            generations.append(info["generation"])

    pacer = collector.Pacer()
    thresholds = gc.get_threshold()
    gc.set_threshold(10**9, *thresholds[1:])
    gc.callbacks.append(seen)
    try:
        for _ in range(collector.MESSAGES_PER_COLLECTION - 1):
            pacer.message_passed()
        assert generations == []
        pacer.message_passed()
        assert len(generations) == 1 and generations[0] <= 1
    finally:
        gc.callbacks.remove(seen)
        gc.set_threshold(*thresholds)


@contextlib.asynccontextmanager
async def collection_in(function: str) -> AsyncIterator[asyncio.Event]:
    """Set once a collection starts while `function` is on the stack; every message or
    socket event makes one (MESSAGES_PER_COLLECTION is 1 for these tests)."""
    found = asyncio.Event()
    loop = asyncio.get_running_loop()

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and any(f.name == function for f in traceback.extract_stack()):
            loop.call_soon_threadsafe(found.set)

    gc.callbacks.append(seen)
    try:
        yield found
    finally:
        gc.callbacks.remove(seen)


async def test_websocket_reads_make_collections_as_they_arrive(
    server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counted where uvicorn's protocol takes the bytes in, before the app sees the message:
    thousands of displays hanging up at once make one pass of the loop, in which their
    teardowns would otherwise pile up for a single collection."""
    monkeypatch.setattr(collector, "MESSAGES_PER_COLLECTION", 1)
    async with (
        collection_in("data_received") as read,
        websockets.connect(ws_url(server), subprotocols=PROTOCOLS) as ws,
    ):
        await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
        # Refused (no token): the server read the message.
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 10)
        await asyncio.wait_for(read.wait(), 10)


async def test_lost_websockets_make_collections_too(
    server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client gone without a close frame (switched off, killed) is never read from: its
    going is counted where uvicorn's protocol learns of it."""
    monkeypatch.setattr(collector, "MESSAGES_PER_COLLECTION", 1)
    async with collection_in("connection_lost") as lost:
        ws = await websockets.connect(ws_url(server), subprotocols=PROTOCOLS)
        ws.transport.abort()
        await asyncio.wait_for(lost.wait(), 10)


async def test_subscriptions_that_end_make_collections_too(
    api: Client, server: str, shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Displays hanging up at once cancel their subscriptions in a burst, each leaving its
    cancellation's traceback for the collector: their endings are counted as they come."""
    monkeypatch.setattr(collector, "MESSAGES_PER_COLLECTION", 1)
    [task] = await print_tasks(shop, 1)
    cursor = await cursor_now(api, shop.tokens["pat"])
    async with collection_in("subscription_ended") as ended:
        ws = await websockets.connect(ws_url(server), subprotocols=PROTOCOLS)
        init = {"authorization": f"Bearer {shop.tokens['pat']}"}
        await ws.send(json.dumps({"type": "connection_init", "payload": init}))
        assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "connection_ack"
        query = (
            'subscription($a: String) { queueEvents(department: "print", after: $a) { cursor } }'
        )
        payload = {"query": query, "variables": {"a": cursor}}
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        await api.as_(shop.tokens["pia"])(START, {"i": {"taskId": gid("DepartmentTask", task)}})
        # An event arrived: the subscription runs, and ends when the socket goes.
        assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "next"
        ws.transport.abort()
        await asyncio.wait_for(ended.wait(), 10)
