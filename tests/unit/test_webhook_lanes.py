"""The relay gives way to the floor: while the process answers HTTP requests it makes and
sends one delivery at a time, otherwise one per held webhook; and what counts as answering
a request."""

import asyncio
from typing import Any

import pytest

from api.in_flight import CountRequests, InFlight
from workers.webhooks import MAX_HELD, Lanes


async def most_at_once(lanes: Lanes, tasks: int, limit: int) -> int:
    """How many of `tasks` deliveries were inside a lane together, at most: each holds its
    lane until `limit` are inside, or until the others had their turns to come in."""
    inside = 0
    most = 0
    limit_reached = asyncio.Event()

    async def deliver() -> None:
        nonlocal inside, most
        async with lanes.one():
            inside += 1
            most = max(most, inside)
            if inside == limit:
                limit_reached.set()
            if limit > 1:
                await limit_reached.wait()
            for _ in range(tasks):
                await asyncio.sleep(0)  # the others' turns: each would come in if it could
            inside -= 1

    async with asyncio.timeout(10):
        await asyncio.gather(*(deliver() for _ in range(tasks)))
    return most


@pytest.mark.parametrize(("busy", "limit"), [(False, MAX_HELD), (True, 1)])
async def test_one_lane_while_requests_are_answered(busy: bool, limit: int) -> None:
    assert await most_at_once(Lanes(lambda: busy), MAX_HELD + 2, limit) == limit


async def test_http_requests_are_counted_while_answered_and_websockets_not() -> None:
    counter = InFlight()
    seen: list[int] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(counter.requests)
        if scope.get("fail"):
            raise RuntimeError("the app failed")

    counting = CountRequests(app, counter)
    await counting({"type": "http"}, None, None)
    await counting({"type": "websocket"}, None, None)
    with pytest.raises(RuntimeError):
        await counting({"type": "http", "fail": True}, None, None)
    assert seen == [1, 0, 1]
    assert counter.requests == 0
