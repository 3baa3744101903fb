"""The cyclic garbage collector of a server process: tuned, timed and paced.

CPython collects the youngest generation when allocations minus deallocations pass a
threshold. A server with thousands of waiting subscribers defeats that count: each woken
subscriber frees the awaitables it was waiting on (old objects) and makes new ones, so
the count stays flat while the youngest generation fills with the new ones. With 5,000
subscribers under load it held about 95,000 objects when a collection finally came (set
off by some request), and that collection stopped the process for 20-60 ms (seen with a
diagnostic print of each long pause in the bench's server). Collected every
PACE_SECONDS and every MESSAGES_PER_COLLECTION messages written as well, it holds what
came since: a shorter pause for the same total work, since every object is looked at
once either way. Reads from websockets and websockets lost count too
(graph/engine/websocket.py), and so does each subscription that ends, weighted: thousands of
wall displays hanging up at once make one such pass of the loop, and cancel as many
subscriptions, each leaving its cancellation's traceback behind for a while.

The pacer's collections take the middle generation with the young one. Collected only
every third time, the middle generation held what had survived three young collections:
under full load with 5,000 subscribers, 20,000-60,000 objects of events still in flight,
a 9-22 ms pause each time; after 5,000 displays hung up at once, 62,000 (52 ms). Taken
every time, what survives goes on to the old generation, where most of it is freed by
its reference count, and no pause holds more than what came since the one before.

Full collections follow CPython's own rule (once the middle generation has moved a
quarter of the old generation's size into it), but only after 10,000 middle collections,
about eight minutes of the pacer alone: with 5,000 subscribers a full collection walks
about 1.7 million objects (0.4-1 s), and finds little (the waiting subscribers are alive;
requests leave few cycles behind). Deferred so, they were once deferred for good: CPython
checks its rule only in a collection the allocations set off, never in the pacer's, and
4,400 distinct refused documents (kept then by the per-text caches) grew a process to
2.37 GB with no full collection for more than ten minutes; the one that came stopped it
for 6.9 s. So the pacer takes a full collection itself once FULL_COLLECTION_SECONDS have
passed without one, or once the memory the process holds has grown by
FULL_COLLECTION_GROWTH since the last: what is in the old generation then was made in
that time, and a pause walks no more than that, and what lives on.
"""

import asyncio
import contextlib
import gc
import time
from collections.abc import AsyncIterator

import psutil

from api.metrics import Metrics

# Young objects are collected every 10,000 allocations (requests make many, few cycles)
# and by the pacer. CPython's own collections take the middle generation every other
# time (count above 0), the pacer's every time.
GC_THRESHOLDS = (10_000, 0, 10_000)
PACE_SECONDS = 0.05
# About 16 objects live on per woken subscriber: 1,000 messages leave some 16,000 for the
# next young collection. Every 300 (weighted) collected so often that it cost more than
# it saved: see the git log.
MESSAGES_PER_COLLECTION = 1_000
# A subscription cancelled (its socket gone) leaves its cancellation's traceback alive for a
# while: 7 frames and 7 tracebacks, about 19 objects, costlier to walk than most. When
# 5,000 wall displays hung up at once, a collection every 1,000 such endings walked
# 19,000 of them (12-23 ms); counted three times, every 333.
ENDING_WEIGHT = 3
# The longest a full collection waits (PRESSROOM_GC_FULL_COLLECTION_SECONDS), and the growth
# of the process's resident memory that sets one off sooner.
FULL_COLLECTION_SECONDS = 300.0
FULL_COLLECTION_GROWTH = 64 * 1024 * 1024


class GcPauses:
    """A gc.callbacks hook: how long each collection stops the process, into the app's
    metrics (a pause stops every request and every subscriber at once), and how much of
    that the collector worked: on a busy machine a pause also holds the time the process
    waited for a core (a collection runs in one thread, start to stop)."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self.began = 0.0
        self.began_cpu = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.began = time.perf_counter()
            self.began_cpu = time.thread_time()
        else:
            # Read inside the wall-clock readings, so the CPU time is never the longer.
            cpu = time.thread_time() - self.began_cpu
            self.metrics.gc_paused(info["generation"], time.perf_counter() - self.began, cpu)


def collect_recent() -> None:
    """The young and middle generations: everything since the last collection but one."""
    gc.collect(1)


class Pacer:
    """Collections of the young and middle generations on time, and by work: a batch of
    events for thousands of subscribers, or thousands of them leaving at once, keeps the
    loop busy for hundreds of ms, too long for the timer to wake, so every
    MESSAGES_PER_COLLECTION messages written, websocket reads or websockets lost also
    make one. On time too, a full collection at least every `full_seconds`, and sooner
    once the process has grown by FULL_COLLECTION_GROWTH."""

    def __init__(self, full_seconds: float = FULL_COLLECTION_SECONDS) -> None:
        self.messages = 0
        self.full_seconds = full_seconds
        self._process = psutil.Process()
        self._last_full = self._full_now()

    def _full_now(self) -> tuple[int, float, int]:
        """Full collections so far, the time and the resident memory, as of now."""
        collections = gc.get_stats()[2]["collections"]
        return collections, time.monotonic(), self._process.memory_info().rss

    def full_collection_due(self) -> bool:
        collections, at, resident = self._last_full
        if gc.get_stats()[2]["collections"] != collections:
            # One came since (CPython's own, or the pacer's): counted from now.
            self._last_full = self._full_now()
            return False
        return (
            time.monotonic() - at >= self.full_seconds
            or self._process.memory_info().rss - resident >= FULL_COLLECTION_GROWTH
        )

    def message_passed(self, weight: int = 1) -> None:
        self.messages += weight
        if self.messages >= MESSAGES_PER_COLLECTION:
            self.messages = 0
            collect_recent()

    def subscription_ended(self) -> None:
        self.message_passed(ENDING_WEIGHT)

    async def run(self) -> None:
        while True:
            await asyncio.sleep(PACE_SECONDS)
            self.messages = 0
            if self.full_collection_due():
                gc.collect()
            else:
                collect_recent()


@contextlib.asynccontextmanager
async def managed(metrics: Metrics, pacer: Pacer) -> AsyncIterator[None]:
    """For an app's lifespan, once it has started."""
    # What start-up built lives as long as the process: keep it out of every later
    # collection.
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    # Timed from here: start-up's full collection above pauses no client.
    pauses = GcPauses(metrics)
    gc.callbacks.append(pauses)
    timer = asyncio.create_task(pacer.run(), name="gc-pacer")
    try:
        yield
    finally:
        timer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await timer
        # Removed, or every app made in this process (tests make many) would keep timing
        # collections into its registry, and stay alive.
        gc.callbacks.remove(pauses)
