"""Garbage collector pauses of the whole server process show in /metrics, the young
generation is collected on time whatever the allocation count says, by work as well
(messages written, websocket reads and losses, subscriptions ending), full collections
are put off for a bounded time or growth only, an app turns the collector on once started,
an app that shuts down stops timing and pacing collections (tests start many apps in one
process), and a server sent thousands of distinct documents, refused and accepted, holds
about the memory it held before, and no more objects for the collector to look at than its
document cache's bound."""

import asyncio
import contextlib
import gc
import json
import traceback
import weakref
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
import websockets
from graphql import parse
from websockets.typing import Subprotocol

from graph.documents import ENTRIES
from graph.engine import collector
from graph.engine.collector import GcPauses
from pressroom.app import create_app
from pressroom.settings import Settings
from tests.support.client import Client, gid
from tests.support.servers import config_for, free_port, metric, serve, served
from tests.support.shop import Shop
from tests.support.subscriptions import START, cursor_now, print_tasks, ws_url

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


@pytest.mark.parametrize("plain", [False, True])
async def test_an_app_turns_the_collector_on_as_it_starts(database_url: str, plain: bool) -> None:
    """`pressroom` keeps the cyclic collector off through start-up (pressroom/cli.py): the
    app turns it on once started, or a server would collect only on the pacer's beat (or,
    under plain execution, never)."""
    gc.disable()
    try:
        settings = Settings(plain_execution=plain)
        server, serving = await serve(
            config_for(create_app(settings, url=database_url), settings, free_port())
        )
        assert gc.isenabled()
        server.should_exit = True
        await serving
    finally:
        gc.enable()


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


@contextlib.contextmanager
def full_collections_off(full: asyncio.Event | None = None) -> Iterator[list[int]]:
    """Neither allocations nor CPython's counts set a collection off meanwhile; the
    generations collected are listed, and `full` is set once a full collection ends."""
    generations: list[int] = []
    loop = asyncio.get_running_loop()

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            generations.append(info["generation"])
            if info["generation"] == 2 and full is not None:
                loop.call_soon_threadsafe(full.set)

    thresholds = gc.get_threshold()
    gc.set_threshold(10**9, 0, 10**9)
    gc.callbacks.append(seen)
    try:
        yield generations
    finally:
        gc.callbacks.remove(seen)
        gc.set_threshold(*thresholds)


async def test_the_pacer_takes_a_full_collection_once_its_time_is_up() -> None:
    """CPython checks its own rule for a full collection only in collections allocations
    set off, never in the pacer's: the pacer takes one itself, whatever the counts say."""
    pacer = collector.Pacer(full_seconds=collector.PACE_SECONDS * 2)
    full = asyncio.Event()
    with full_collections_off(full) as generations:
        timer = asyncio.create_task(pacer.run())
        try:
            async with asyncio.timeout(collector.PACE_SECONDS * 200):
                await full.wait()
        finally:
            timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await timer
    # Young and middle collections came before it.
    assert generations.index(2) > 0


async def test_the_pacer_takes_a_full_collection_sooner_once_the_process_has_grown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(collector, "FULL_COLLECTION_GROWTH", 32 * 2**20)
    with full_collections_off():
        pacer = collector.Pacer(full_seconds=3600)
        assert not pacer.full_collection_due()
        grown = b"x" * (64 * 2**20)  # written, so resident
        assert pacer.full_collection_due()
        gc.collect()
        # Counted from the last full collection, whoever took it.
        assert not pacer.full_collection_due()
        del grown


# Distinct texts: refused (more aliases, and fields in one selection set, than anyone may
# send; 140 KB each once parsed: the caches that kept 1,024 of them grew a server by 63 MB
# in this test), and accepted (answered without the database), each answered before the
# next is sent on its connection. Of each kind, over twice what a per-text cache holds
# (graph/documents.py: 1,024 entries), so a cache that kept either fills, and one full
# of refused texts (63 MB, above) is over the growth allowed below.
DOCUMENTS = 2_500
CLIENTS = 8
REFUSED = "query R{n} {{ me {{ " + " ".join(f"a{i}: id" for i in range(120)) + " }} }}"
ACCEPTED = "query A{n} {{ a: __typename b: __typename c: __typename }}"
MB = 1024 * 1024


async def run_operations(url: str, token: str, texts: list[str]) -> None:
    """Each text in turn on one graphql-transport-ws connection, checking its answer."""
    async with websockets.connect(ws_url(url), subprotocols=PROTOCOLS, compression=None) as ws:
        await ws.send(json.dumps({"type": "connection_init", "payload": {"authorization": token}}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        for n, text in enumerate(texts):
            await ws.send(
                json.dumps({"id": str(n), "type": "subscribe", "payload": {"query": text}})
            )
            message = json.loads(await ws.recv())
            if text.startswith("query R"):
                assert message["type"] == "error", message
                assert "over the limit of" in message["payload"][0]["message"], message
            else:
                assert message["type"] == "next" and "errors" not in message["payload"], message
                assert json.loads(await ws.recv())["type"] == "complete"


async def load(url: str, token: str, template: str, start: int, stop: int) -> None:
    """Texts `start` to `stop` of `template`, shared among CLIENTS connections."""
    texts = [template.format(n=n) for n in range(start, stop)]
    await asyncio.gather(*(run_operations(url, token, texts[c::CLIENTS]) for c in range(CLIENTS)))


def objects_parsed(text: str) -> int:
    """How many more objects the collector tracks while `text`'s parsed document lives:
    counted with the collector off, or a collection set off by the parse's allocations
    frees other garbage in between (once: -668)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        before = len(gc.get_objects())
        document = parse(text)
        count = len(gc.get_objects()) - before
    finally:
        if collecting:
            gc.enable()
    del document
    return count


async def test_distinct_documents_hold_no_memory_and_leave_the_collector_no_more_to_look_at(
    database_url: str, shop: Shop, http: httpx.AsyncClient
) -> None:
    """Each document a distinct text, as a stream of hostile clients would send them: a
    refused one is never kept, accepted ones only up to the cache's bounds. A server of its
    own, full collections every two seconds, in this process, so that the test counts what
    makes a full collection's pause long, the objects the collector looks at, where a clock
    would count whatever else the machine ran: after thousands of distinct accepted texts,
    no more than a full cache of them; after as many refused ones, not one text's worth. The
    pause itself is bench.hostile's to measure, on a quiet machine (its
    pressroom_gc_work_max_seconds; a cache that kept every text once made one of 6.9 s)."""
    token = shop.tokens["sam"]
    accepted = objects_parsed(ACCEPTED.format(n=0))
    refused = objects_parsed(REFUSED.format(n=0))
    async with served(database_url, Settings(gc_full_collection_seconds=2)) as (url, _):
        metrics = url.removesuffix("/graphql") + "/metrics"

        async def readings() -> tuple[float, float]:
            """The process's resident memory and the full collections so far."""
            exposition = (await http.get(metrics)).text
            resident = metric(exposition, "process_resident_memory_bytes")
            fulls = metric(exposition, "pressroom_gc_pause_seconds_count", generation="2")
            assert resident is not None, exposition
            assert fulls is not None, exposition
            return resident, fulls

        # Whatever a first operation loads on demand is loaded before the measure starts.
        await load(url, token, ACCEPTED, 0, CLIENTS)
        await load(url, token, REFUSED, 0, CLIENTS)
        before, fulls_before = await readings()
        gc.collect()
        start = len(gc.get_objects())
        await load(url, token, ACCEPTED, CLIENTS, DOCUMENTS)
        gc.collect()
        cached = len(gc.get_objects())
        # The refused ones last: a cache that kept them would end up holding nothing else.
        await load(url, token, REFUSED, CLIENTS, DOCUMENTS)
        gc.collect()
        kept = len(gc.get_objects()) - cached
        after, fulls_after = await readings()
    # Less the three this test took itself.
    paced = fulls_after - fulls_before - 3
    assert cached - start <= ENTRIES * accepted, f"{cached - start} kept, {accepted} a text"
    assert kept < refused, f"{kept} objects kept, {refused} a refused text"
    assert after - before <= 50 * MB, f"{(after - before) / MB:.1f} MB more"
    assert paced >= 2, f"{paced} full collections by the pacer"
