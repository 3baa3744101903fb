"""CURSOR_EXPIRED: a subscriber resuming from a cursor before the last event pruned from
the log is told, on both websocket protocols, to take a new snapshot; one at that event
resumes with no gap, the replay first and then live."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from db import events
from db.events import Position
from tests.support.access import sql
from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop
from tests.support.subscriptions import (
    PROTOCOLS,
    QUEUE_EVENTS,
    START,
    RawSocket,
    cursor_now,
    error_codes,
)
from workers.retention import PruneLoop

LONG_AGO = timedelta(days=100)


@pytest.fixture
def pruner(running_app: tuple[str, Any]) -> PruneLoop:
    """The session server's pruner (90 days), between its rounds."""
    found: PruneLoop = running_app[1].state.pruner
    return found


@dataclass(frozen=True)
class PrunedLog:
    # A queue snapshot's cursor taken before anything was logged.
    before: str
    # The last event pruned.
    horizon: Position
    # The print task of the one order whose events are left.
    kept_task: int


@pytest.fixture
async def pruned(api: Client, shop: Shop, pruner: PruneLoop) -> PrunedLog:
    """Two orders of a hundred days ago, pruned; one of today, kept."""
    before = await cursor_now(api, shop.tokens["pat"])
    for _ in range(2):
        await shop.order(["print"], at=datetime.now(UTC) - LONG_AGO)
    kept = await shop.order(["print"])
    logged = await log_length(shop)
    await pruner.idle.wait()
    pruned = await pruner.prune_all()
    # Exactly the old orders' events: two of the three orders' worth.
    assert pruned == logged - await log_length(shop) == 2 * await log_length(shop)
    async with shop.engine.connect() as conn:
        horizon = await events.pruned_through(conn)
    return PrunedLog(before, horizon, (await task_ids(shop.engine, kept))["print"])


async def log_length(shop: Shop) -> int:
    """Every event stored. Counted directly: a page of the log reads only up to the oldest
    transaction running (the session server's own workers may be in one), so it could
    count fewer than were written."""
    [(count,)] = await sql(shop.engine, "SELECT count(*) FROM events")
    return int(count)


EXPIRED: dict[str, Callable[[PrunedLog], str]] = {
    "a snapshot from before the pruned events": lambda log: log.before,
    "the start of the log": lambda log: events.encode_position(events.START),
    "just before the last event pruned": lambda log: events.encode_position(
        Position(log.horizon.xid, log.horizon.id - 1)
    ),
}


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("cursor", sorted(EXPIRED))
async def test_a_cursor_before_the_pruned_events_has_expired(
    server: str, shop: Shop, pruned: PrunedLog, protocol: str, cursor: str
) -> None:
    socket = await RawSocket.open(server, shop.tokens["pat"], protocol)
    try:
        after = EXPIRED[cursor](pruned)
        await socket.subscribe(QUEUE_EVENTS, {"department": "print", "after": after})
        ended = await socket.next()
        assert error_codes(ended) == ["CURSOR_EXPIRED"], ended
        payload = ended["payload"]
        errors = payload if isinstance(payload, list) else payload.get("errors", [payload])
        assert "Take a new snapshot" in errors[0]["message"]
        # Nothing of the log after it was sent: what the cursor missed is gone.
        assert "data" not in payload or payload["data"] is None
    finally:
        await socket.ws.close()


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_the_last_event_pruned_resumes_with_no_gap(
    api: Client, server: str, shop: Shop, pruned: PrunedLog, protocol: str
) -> None:
    socket = await RawSocket.open(server, shop.tokens["pat"], protocol)
    try:
        after = events.encode_position(pruned.horizon)
        await socket.subscribe(QUEUE_EVENTS, {"department": "print", "after": after})
        task = gid("DepartmentTask", pruned.kept_task)
        [replayed] = await socket.results(1)
        assert replayed.get("errors") is None, replayed
        assert replayed["data"]["queueEvents"]["kind"] == "TASK_CREATED"
        assert replayed["data"]["queueEvents"]["task"]["id"] == task
        # The replay was everything left; what comes next is live.
        started = await api.as_(shop.tokens["pat"])(START, {"i": {"taskId": task}})
        assert started["startTask"]["changed"] is True
        [live] = await socket.results(1)
        assert live["data"]["queueEvents"]["kind"] == "TASK_CHANGED"
        assert live["data"]["queueEvents"]["task"] == {
            "id": task,
            "status": "STARTED",
            "pickedUpBy": {"name": "Pat"},
            "workOrder": live["data"]["queueEvents"]["task"]["workOrder"],
        }
    finally:
        await socket.ws.close()
