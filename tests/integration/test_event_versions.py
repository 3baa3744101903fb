"""Events that change shape (db/event_versions.py, docs/realtime.md): the writers store
the version the readers take as current; a row stored in an older version reaches
subscribers and `read_page` (the webhooks' reader) as the current version, and stays in
the table as it was written; a row from a newer release holds delivery at it, without
losing it, until a release that knows its version reads it."""

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from db import events
from db.engine import unit_of_work
from db.event_versions import CURRENT, UPCASTERS, NewerEventVersion
from db.events import START, Filter, Position, Resume, TaskSnapshot, decode_cursor
from db.tasks import Actor, transition_task
from domain.enums import EventType, TaskAction
from tests.support.client import Client, gid
from tests.support.shop import Shop
from tests.support.subscriptions import PROTOCOLS, cursor_now, print_tasks, subscriber, take

QUERIES = Path(events.__file__).with_name("queries.sql")


async def test_writers_store_the_version_readers_take_as_current(engine: AsyncEngine) -> None:
    """No writer names `schema_version`: each row gets the column's default, so every
    kind must be at that version. A kind moved past it needs its writers to stamp it."""
    inserts = re.findall(r"INSERT INTO events\s*\(([^)]*)\)", QUERIES.read_text())
    assert inserts, "no statement writes the event log?"
    assert not [columns for columns in inserts if "schema_version" in columns]
    async with engine.connect() as conn:
        default = await conn.scalar(
            text(
                "SELECT column_default FROM information_schema.columns "
                "WHERE table_name = 'events' AND column_name = 'schema_version'"
            )
        )
    [written] = re.findall(r"\d+", str(default))
    assert {kind: int(written) for kind in EventType} == CURRENT


def held_by(payload: dict[str, Any]) -> dict[str, Any]:
    """The test's version 2: a task's holder is `heldBy`, no longer `pickedUpBy`."""
    if "pickedUpBy" not in payload:
        return payload
    moved = {k: v for k, v in payload.items() if k != "pickedUpBy"}
    moved["heldBy"] = payload["pickedUpBy"]
    return moved


def release_with_held_by(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a release that brings version 2 changes: every kind's current version, its
    upcaster from 1, and the decoder of task payloads (which reads only version 2: a row
    not upcast fails it)."""
    for kind in EventType:
        monkeypatch.setitem(CURRENT, kind, 2)
        monkeypatch.setitem(UPCASTERS, (kind, 1), held_by)
    decode_v1 = TaskSnapshot.decode

    def decode(cls: type[TaskSnapshot], payload: dict[str, Any]) -> TaskSnapshot:
        v1 = {k: v for k, v in payload.items() if k != "heldBy"}
        v1["pickedUpBy"] = payload["heldBy"]
        return decode_v1(v1)

    monkeypatch.setattr(TaskSnapshot, "decode", classmethod(decode))


async def started_event(engine: AsyncEngine, task: int) -> int:
    """The task's start as first stored (a test may store a copy of it after)."""
    async with engine.connect() as conn:
        found = await conn.scalar(
            text(
                "SELECT id FROM events WHERE type = 'TASK_CHANGED' "
                "AND CAST(payload->>'taskId' AS bigint) = :task AND payload->>'status' = 'STARTED' "
                "ORDER BY id LIMIT 1"
            ),
            {"task": task},
        )
    return int(found)


async def store_as(engine: AsyncEngine, event_id: int, version: int, shape: str) -> int:
    """A copy of event `event_id` stored in `version`, its payload rewritten by `shape`
    (SQL over `payload`), as a release writing that version would have stored it."""
    async with unit_of_work(engine) as conn:
        stored = await conn.scalar(
            text(
                "INSERT INTO events (type, schema_version, work_order_id, department_id, payload) "
                f"SELECT type, :version, work_order_id, department_id, {shape} "
                "FROM events WHERE id = :id RETURNING id"
            ),
            {"id": event_id, "version": version},
        )
    return int(stored)


def moves(received: list[Any]) -> list[tuple[str, str, str | None]]:
    tasks = [r["queueEvents"]["task"] for r in received]
    return [(t["id"], t["status"], (t["pickedUpBy"] or {}).get("name")) for t in tasks]


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_v1_row_and_a_v2_row_replay_as_v2(
    running_app: tuple[str, Any],
    api: Client,
    shop: Shop,
    monkeypatch: pytest.MonkeyPatch,
    protocol: str,
) -> None:
    server, app = running_app
    feed = app.state.services.feed
    first, second = await print_tasks(shop, 2)
    pat, pia = Actor(shop.users["pat"], False), Actor(shop.users["pia"], False)
    async with unit_of_work(shop.engine) as conn:
        await transition_task(conn, second, TaskAction.START, pia)
    after = await cursor_now(api, shop.tokens["pat"])
    # Stored in version 1 by today's writer, and read by today's release.
    async with unit_of_work(shop.engine) as conn:
        await transition_task(conn, first, TaskAction.START, pat)
    await feed.catch_up()
    v1_row = await started_event(shop.engine, first)

    release_with_held_by(monkeypatch)
    # Pia's start as the new release stores it.
    v2_row = await store_as(
        shop.engine,
        await started_event(shop.engine, second),
        2,
        "(payload - 'pickedUpBy') || jsonb_build_object('heldBy', payload->'pickedUpBy')",
    )

    variables = {"department": "print", "after": after}
    async with subscriber(server, shop.tokens["pat"], protocol, variables) as got:
        received = await take(got, 2)
    assert moves(received) == [
        (gid("DepartmentTask", first), "STARTED", "Pat"),
        (gid("DepartmentTask", second), "STARTED", "Pia"),
    ]

    async with shop.engine.connect() as conn:
        page = await events.read_page(
            conn, decode_cursor(after), feed.settled, Filter(shop.departments["print"])
        )
    assert [(e.position.id, e.type, e.version) for e in page] == [
        (v1_row, EventType.TASK_CHANGED, 2),
        (v2_row, EventType.TASK_CHANGED, 2),
    ]
    assert [("pickedUpBy" in e.payload, e.payload["heldBy"]) for e in page] == [
        (False, shop.users["pat"]),
        (False, shop.users["pia"]),
    ]

    # Old rows are never rewritten.
    async with shop.engine.connect() as conn:
        rows = await conn.execute(
            text("SELECT schema_version, payload FROM events WHERE id IN (:a, :b) ORDER BY id"),
            {"a": v1_row, "b": v2_row},
        )
        stored = [
            (r.schema_version, sorted(set(r.payload) & {"pickedUpBy", "heldBy"})) for r in rows
        ]
    assert stored == [(1, ["pickedUpBy"]), (2, ["heldBy"])]


async def test_an_event_of_a_newer_release_holds_delivery_until_a_release_knows_it(
    running_app: tuple[str, Any],
    api: Client,
    shop: Shop,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server, app = running_app
    feed = app.state.services.feed
    [task] = await print_tasks(shop, 1)
    pat = Actor(shop.users["pat"], False)
    async with unit_of_work(shop.engine) as conn:
        await transition_task(conn, task, TaskAction.START, pat)
    after = await cursor_now(api, shop.tokens["pat"])
    await feed.catch_up()
    # A newer release stores Pat's start again, in version 2 (its shape the same: say it
    # added an optional field this release has never heard of, and bumped needlessly),
    # then today's writer stores his finish after it.
    newer = await store_as(shop.engine, await started_event(shop.engine, task), 2, "payload")
    async with unit_of_work(shop.engine) as conn:
        await transition_task(conn, task, TaskAction.FINISH, pat)

    # read_page hands on what comes before it, and refuses it, in words, when it is next.
    everything = Position(2**62, 0)
    async with shop.engine.connect() as conn:
        before = await events.read_page(conn, Resume(START), everything)
        with pytest.raises(NewerEventVersion) as refused:
            await events.read_page(conn, decode_cursor(after), everything)
    assert before[-1].position.id == await started_event(shop.engine, task)
    assert f", {newer}): a TASK_CHANGED event is stored in version 2, but this release " in str(
        refused.value
    )
    # The feed stops there too: it hands nothing on from that event.
    with pytest.raises(NewerEventVersion):
        await feed.catch_up()
    assert feed.settled.id < newer

    # A subscriber replaying from before it gets nothing yet, and no error: its replay
    # stops where the feed stops (events.read_page refused, seen through this wrapper).
    replay_refused = asyncio.Event()
    read_page = events.read_page

    async def watched(
        conn: Any, at: Resume, settled: Position, where: Filter | None = None
    ) -> list[events.StoredEvent]:
        if where is None:  # the feed's reads
            return await read_page(conn, at, settled)
        try:
            return await read_page(conn, at, settled, where)
        except NewerEventVersion:
            replay_refused.set()
            raise

    monkeypatch.setattr(events, "read_page", watched)
    variables = {"department": "print", "after": after}
    async with subscriber(server, shop.tokens["pat"], "graphql-transport-ws", variables) as got:
        async with asyncio.timeout(30):
            await replay_refused.wait()
        assert got.empty()
        # The release that knows version 2 takes over (here: this process learns it).
        monkeypatch.setitem(CURRENT, EventType.TASK_CHANGED, 2)
        monkeypatch.setitem(UPCASTERS, (EventType.TASK_CHANGED, 1), lambda payload: payload)
        await feed.catch_up()
        received = await take(got, 2)
    assert moves(received) == [
        (gid("DepartmentTask", task), "STARTED", "Pat"),
        (gid("DepartmentTask", task), "COMPLETED", "Pat"),
    ]
