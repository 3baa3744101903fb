"""The password workers: a bounded wait, refused at once past it, signed-in people's
work taken before anonymous work waiting beside it, and a cancelled caller's turn
handed on."""

import asyncio
import os
import threading

import pytest

from db.background import NICENESS
from db.credentials import HashingBusy, HashingPool, Lane


async def until_queued(pool: HashingPool, count: int) -> None:
    async with asyncio.timeout(10):
        while pool.queued() != count:  # noqa: ASYNC110 - the pool has no event to wait on
            await asyncio.sleep(0)


async def test_past_the_queue_a_check_is_refused_at_once_and_lanes_wait_apart() -> None:
    pool = HashingPool(workers=1, queue=2, signed_in_queue=2)
    held = threading.Event()
    holder = asyncio.create_task(pool.run(held.wait, Lane.SIGNED_IN))
    finished: list[str] = []

    def work(name: str) -> str:
        finished.append(name)
        return name

    anonymous = [
        asyncio.create_task(pool.run(lambda n=n: work(f"anonymous {n}"), Lane.ANONYMOUS))
        for n in range(2)
    ]
    await until_queued(pool, 2)
    with pytest.raises(HashingBusy):
        await pool.run(lambda: work("one too many"), Lane.ANONYMOUS)
    # The signed-in lane has a queue of its own, and goes first.
    people = [
        asyncio.create_task(pool.run(lambda n=n: work(f"person {n}"), Lane.SIGNED_IN))
        for n in range(2)
    ]
    await until_queued(pool, 4)
    with pytest.raises(HashingBusy):
        await pool.run(lambda: work("one person too many"), Lane.SIGNED_IN)
    held.set()
    await asyncio.gather(holder, *people, *anonymous)
    assert finished == ["person 0", "person 1", "anonymous 0", "anonymous 1"]
    assert (pool.counts.done, pool.counts.refused) == (5, 2)
    assert (pool.running, pool.queued()) == (0, 0)


async def test_a_caller_cancelled_while_waiting_leaves_the_queue() -> None:
    pool = HashingPool(workers=1, queue=1)
    held = threading.Event()
    holder = asyncio.create_task(pool.run(held.wait, Lane.SIGNED_IN))
    waiting = asyncio.create_task(pool.run(lambda: "never", Lane.ANONYMOUS))
    await until_queued(pool, 1)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert pool.queued() == 0
    # Its place is free again, and the worker still serves the next caller.
    after = asyncio.create_task(pool.run(lambda: "next", Lane.ANONYMOUS))
    await until_queued(pool, 1)
    held.set()
    assert await after == "next"
    await holder
    assert (pool.running, pool.queued()) == (0, 0)


async def test_anonymous_checks_leave_a_worker_for_signed_in_people() -> None:
    pool = HashingPool(workers=2, queue=2)
    held = threading.Event()
    first = asyncio.create_task(pool.run(held.wait, Lane.ANONYMOUS))
    second = asyncio.create_task(pool.run(lambda: "anonymous", Lane.ANONYMOUS))
    await until_queued(pool, 1)
    assert pool.running == 1
    # The worker kept free takes a signed-in person's work at once.
    assert await pool.run(lambda: "person", Lane.SIGNED_IN) == "person"
    assert (pool.running, pool.queued()) == (1, 1)
    held.set()
    assert await second == "anonymous"
    await first
    assert (pool.running, pool.queued(), pool.counts.done) == (0, 0, 3)


def test_one_worker_serves_anonymous_checks_too() -> None:
    assert HashingPool(workers=1).shares[Lane.ANONYMOUS] == 1


async def test_the_workers_run_below_the_rest_of_the_process() -> None:
    pool = HashingPool(workers=1)
    here = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    worker = await pool.run(
        lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id()), Lane.ANONYMOUS
    )
    assert worker == min(19, here + NICENESS)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == here
