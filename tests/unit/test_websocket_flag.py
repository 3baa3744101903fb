"""The flag that stands in for uvicorn's writable Event: writes wait while it is clear, all
of them wake when it is set, and one waiter cancelled leaves the others waiting."""

import asyncio

from graph.engine.websocket import Flag


async def test_waiters_wait_while_clear_and_all_wake_on_set() -> None:
    flag = Flag()
    assert not flag.is_set()
    flag.set()
    await asyncio.wait_for(flag.wait(), 1)
    flag.clear()
    waiters = [asyncio.create_task(flag.wait()) for _ in range(3)]
    await asyncio.sleep(0)
    assert not any(w.done() for w in waiters)
    flag.set()
    await asyncio.wait_for(asyncio.gather(*waiters), 1)


async def test_a_cancelled_waiter_leaves_the_others_waiting() -> None:
    flag = Flag()
    first, second = (asyncio.create_task(flag.wait()) for _ in range(2))
    await asyncio.sleep(0)
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)
    assert first.cancelled()
    for _ in range(5):
        await asyncio.sleep(0)
    assert not second.done()
    flag.set()
    await asyncio.wait_for(second, 1)


async def test_cleared_again_before_a_waiter_runs_it_waits_on() -> None:
    flag = Flag()
    waiter = asyncio.create_task(flag.wait())
    await asyncio.sleep(0)
    flag.set()
    flag.clear()
    for _ in range(5):
        await asyncio.sleep(0)
    assert not waiter.done()
    flag.set()
    await asyncio.wait_for(waiter, 1)
