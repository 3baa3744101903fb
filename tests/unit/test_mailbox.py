"""The subscriber's buffer (db.fanout.Mailbox): order, bound, waiting, and what it keeps
while idle."""

import asyncio
import contextlib
import gc
from collections import deque

import pytest

from db.fanout import Mailbox


async def test_items_come_out_in_order_and_a_reader_waits_for_the_next() -> None:
    box = Mailbox(maxsize=3)
    box.put_nowait("a")
    box.put_nowait("b")
    assert [await box.get(), await box.get()] == ["a", "b"]
    waiting = asyncio.ensure_future(box.get())
    await asyncio.sleep(0)
    assert not waiting.done()
    box.put_nowait("c")
    assert await waiting == "c"


async def test_the_bound_refuses_puts_but_not_the_final_mark() -> None:
    box = Mailbox(maxsize=2)
    box.put_nowait(1)
    box.put_nowait(2)
    assert box.full() and box.qsize() == 2
    with pytest.raises(asyncio.QueueFull):
        box.put_nowait(3)
    box.put_last("mark")
    assert [await box.get() for _ in range(3)] == [1, 2, "mark"]
    assert box.empty() and box.qsize() == 0


async def test_a_cancelled_reader_leaves_the_next_item_to_the_next_reader() -> None:
    box = Mailbox(maxsize=2)
    first = asyncio.ensure_future(box.get())
    await asyncio.sleep(0)
    first.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await first
    box.put_nowait("x")
    assert await box.get() == "x"


async def test_an_idle_mailbox_keeps_no_deque() -> None:
    """An empty deque keeps a 64-slot block: thousands of idle subscribers would each pay it."""
    box = Mailbox(maxsize=2)
    assert not any(isinstance(r, deque) for r in gc.get_referents(box))
    box.put_nowait("x")
    assert any(isinstance(r, deque) for r in gc.get_referents(box))
    await box.get()
    assert not any(isinstance(r, deque) for r in gc.get_referents(box))
