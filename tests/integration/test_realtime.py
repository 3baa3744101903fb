"""Subscriptions through real clients: the Python gql client over both websocket
protocols, replay-then-live with no gap, late-committing transactions, a listener
killed mid-stream, slow subscribers, display tokens and their revocation."""

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import text

from api.auth import load_viewer
from api.services import Services
from db.engine import unit_of_work
from db.events import decode_cursor
from db.fanout import OVERFLOWED, department_channel
from db.tasks import Actor, transition_task
from domain.enums import TaskAction
from graph.context import Context
from graph.schema import schema
from tests.support.client import Client, gid
from tests.support.database import kill_listeners
from tests.support.servers import SUBSCRIBER_BUFFER
from tests.support.shop import Shop
from tests.support.subscriptions import (
    PROTOCOLS,
    QUEUE,
    START,
    arrived,
    cursor_now,
    print_tasks,
    subscriber,
    take,
)


async def stored_cursors(shop: Shop, department: str) -> list[tuple[str, int]]:
    async with shop.engine.connect() as conn:
        rows = await conn.execute(
            text(
                "SELECT e.type, (e.payload->>'taskId')::bigint AS task FROM events e "
                "JOIN departments d ON d.id = e.department_id WHERE d.code = :code "
                "ORDER BY e.xid, e.id"
            ),
            {"code": department},
        )
        return [(r.type, r.task) for r in rows]


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_gql_client_receives_a_started_task(
    api: Client, server: str, shop: Shop, protocol: str
) -> None:
    [task] = await print_tasks(shop, 1)
    after = await cursor_now(api, shop.tokens["pat"])
    variables = {"department": "print", "after": after}
    async with subscriber(server, shop.tokens["pat"], protocol, variables) as got:
        await api.as_(shop.tokens["pat"])(START, {"i": {"taskId": gid("DepartmentTask", task)}})
        [event] = await take(got, 1)
        with pytest.raises(TimeoutError):
            await take(got, 1, within=1)
    body = event["queueEvents"]
    assert body["kind"] == "TASK_CHANGED"
    assert body["task"]["id"] == gid("DepartmentTask", task)
    assert body["task"]["status"] == "STARTED"
    assert body["task"]["pickedUpBy"]["name"] == "Pat"


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_snapshot_then_subscribe_has_no_gap_and_no_duplicate(
    api: Client, server: str, shop: Shop, protocol: str
) -> None:
    tasks = await print_tasks(shop, 30)
    workers = ["pat", "pia"]
    before = tasks[:10]
    for n, task in enumerate(before):
        await api.as_(shop.tokens[workers[n % 2]])(
            START, {"i": {"taskId": gid("DepartmentTask", task)}}
        )
    snapshot = (await api.as_(shop.tokens["pat"])(QUEUE))["queue"]
    seen_in_snapshot = {e["node"]["id"] for e in snapshot["edges"]}
    # Moves racing the subscription: some commit before it is set up, some after.
    racing = asyncio.gather(
        *(
            api.as_(shop.tokens[workers[n % 2]])(
                START, {"i": {"taskId": gid("DepartmentTask", task)}}
            )
            for n, task in enumerate(tasks[10:])
        )
    )
    variables = {"department": "print", "after": snapshot["eventCursor"]}
    async with subscriber(server, shop.tokens["pat"], protocol, variables) as got:
        await racing
        events = await take(got, 20)
        with pytest.raises(TimeoutError):
            await take(got, 1, within=1.5)
    started = [e["queueEvents"]["task"]["id"] for e in events]
    assert sorted(started) == sorted(gid("DepartmentTask", t) for t in tasks[10:])
    assert len(set(started)) == 20
    assert seen_in_snapshot >= {gid("DepartmentTask", t) for t in before}


async def test_an_event_that_commits_late_is_not_skipped(
    api: Client, server: str, shop: Shop
) -> None:
    tasks = await print_tasks(shop, 6)
    variables = {"department": "print", "after": await cursor_now(api, shop.tokens["pat"])}
    async with subscriber(server, shop.tokens["pat"], PROTOCOLS[0], variables) as got:
        # A writer takes the lower event id and holds its transaction open...
        async with unit_of_work(shop.engine) as held:
            await transition_task(held, tasks[0], TaskAction.START, Actor(shop.users["pat"], False))
            # ...while others commit later-numbered events.
            for task in tasks[1:]:
                await api.as_(shop.tokens["pia"])(
                    START, {"i": {"taskId": gid("DepartmentTask", task)}}
                )
            with pytest.raises(TimeoutError):
                # Nothing after the held transaction may be delivered before it.
                await take(got, 1, within=1.5)
        events = await take(got, 6)
    ids = [e["queueEvents"]["task"]["id"] for e in events]
    assert sorted(ids) == sorted(gid("DepartmentTask", t) for t in tasks)
    assert ids[0] == gid("DepartmentTask", tasks[0])


async def feed_state(app: Any, engine: Any) -> str:
    """What a failure needs to tell a lost event from a held one."""
    feed = app.state.services.feed
    async with engine.connect() as conn:
        horizon = await conn.scalar(text("SELECT CAST(events_horizon() AS text)"))
        newest = (
            await conn.execute(text("SELECT CAST(max(xid) AS text), max(id) FROM events"))
        ).one()
        running = (
            await conn.execute(
                text(
                    "SELECT application_name, state, CAST(backend_xid AS text), "
                    "now() - xact_start, left(query, 60) FROM pg_stat_activity "
                    "WHERE backend_xid IS NOT NULL OR state LIKE 'idle in%'"
                )
            )
        ).all()
    return (
        f"feed position {feed.position}, settled {feed.settled}, stats {feed.stats}, "
        f"subscribers {feed.fanout.subscriber_count()}; horizon {horizon}, newest event "
        f"{tuple(newest)}; transactions {[tuple(r) for r in running]}"
    )


@contextlib.asynccontextmanager
async def handed_out(feed: Any, channel: str) -> AsyncIterator[list[Any]]:
    """What the feed hands to `channel` meanwhile, as the fan-out gives it to a subscriber
    that reads at once ("overflowed" where a batch outgrew its buffer)."""
    seen: list[Any] = []

    async def follow() -> None:
        while True:
            async with feed.subscribe(channel) as box:
                while (item := await box.get()).message is not OVERFLOWED:
                    seen.append(item.message.event)
            seen.append("overflowed")

    following = asyncio.create_task(follow())
    try:
        yield seen
    finally:
        following.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await following


async def whereabouts(
    shop: Shop, missing: list[Any], fanned: list[Any], ids: dict[str, int]
) -> str:
    """Where each missing (status, task) stands in the log, next to its neighbours, and
    whether the feed handed it out: a lost event told from one never read."""
    handed = {
        (e.payload.get("status"), e.payload.get("taskId")) for e in fanned if not isinstance(e, str)
    }
    told = [f"{fanned.count('overflowed')} overflows of the observer"]
    async with shop.engine.connect() as conn:
        for status, task_gid in missing:
            task = ids[task_gid]
            rows = (
                await conn.execute(
                    text(
                        "WITH e AS (SELECT CAST(xid AS text) AS xid, id, payload->>'status' AS s, "
                        "payload->>'taskId' AS task, occurred_at, "
                        "row_number() OVER (ORDER BY events.xid, events.id) AS n FROM events), "
                        "m AS (SELECT n FROM e WHERE s = :status AND task = :task) "
                        "SELECT e.xid, e.id, e.s, e.task, e.occurred_at FROM e, m "
                        "WHERE e.n BETWEEN m.n - 2 AND m.n + 2 ORDER BY e.n"
                    ),
                    {"status": status, "task": str(task)},
                )
            ).all()
            told.append(
                f"{status} {task}: handed out {(status, task) in handed}; "
                f"log {[tuple(map(str, r)) for r in rows]}"
            )
    return "; ".join(told)


@contextlib.asynccontextmanager
async def horizon_held_at(shop: Shop, xid: int) -> AsyncIterator[None]:
    """events_horizon() reads `xid` meanwhile. It can read lower than it did a moment ago:
    pg_stat_activity may no longer place a transaction of another database that the
    snapshot still counts as running. This makes that moment last."""
    async with shop.engine.connect() as conn:
        definition = await conn.scalar(
            text("SELECT pg_get_functiondef(CAST('events_horizon' AS regproc))")
        )
        await conn.execute(
            text(
                "CREATE OR REPLACE FUNCTION events_horizon() RETURNS xid8 LANGUAGE sql "
                f"STABLE AS $$ SELECT CAST('{int(xid)}' AS xid8) $$"
            )
        )
        await conn.commit()
        try:
            yield
        finally:
            await conn.execute(text(definition))
            await conn.commit()


@pytest.mark.parametrize("cursor", ["snapshot", "event"])
async def test_a_replay_reads_what_the_feed_handed_out_while_the_horizon_reads_lower(
    api: Client, server: str, shop: Shop, cursor: str
) -> None:
    """A subscription that joins while the horizon reads lower than when the feed read an
    event still replays that event: the feed handed it out before the subscription joined,
    so it will not come live."""
    tasks = await print_tasks(shop, 2)
    pat = shop.tokens["pat"]
    after = await cursor_now(api, pat)
    variables = {"department": "print", "after": after}
    async with subscriber(server, pat, PROTOCOLS[0], variables) as first:
        if cursor == "event":
            await api.as_(pat)(START, {"i": {"taskId": gid("DepartmentTask", tasks[0])}})
            after = (await take(first, 1))[0]["queueEvents"]["cursor"]
        await api.as_(pat)(START, {"i": {"taskId": gid("DepartmentTask", tasks[1])}})
        handed_out = (await take(first, 1))[0]["queueEvents"]
        position = decode_cursor(handed_out["cursor"]).after
        async with horizon_held_at(shop, position.xid):
            late = {"department": "print", "after": after}
            async with subscriber(server, pat, PROTOCOLS[1], late) as second:
                replayed = (await take(second, 1, within=5))[0]["queueEvents"]
    assert replayed["task"]["id"] == gid("DepartmentTask", tasks[1])
    assert replayed["cursor"] == handed_out["cursor"]


async def test_listener_killed_mid_stream_loses_nothing(
    api: Client, running_app: tuple[str, Any], shop: Shop, caplog: pytest.LogCaptureFixture
) -> None:
    server, app = running_app
    feed = app.state.services.feed
    moves = 500
    tasks = await print_tasks(shop, moves // 2)
    connects_before = feed.stats.listener_connects
    variables = {"department": "print", "after": await cursor_now(api, shop.tokens["pat"])}
    async with contextlib.AsyncExitStack() as stack:
        fanned = await stack.enter_async_context(
            handed_out(feed, department_channel(shop.departments["print"]))
        )
        queues = [
            await stack.enter_async_context(
                subscriber(server, shop.tokens["pat"], protocol, variables)
            )
            for protocol in PROTOCOLS * 2
        ]
        workers = ["pat", "pia"]
        for n, task in enumerate(tasks):
            who = shop.tokens[workers[n % 2]]
            await api.as_(who)(START, {"i": {"taskId": gid("DepartmentTask", task)}})
            await api.as_(who)(
                "mutation($i: FinishTaskInput!) { finishTask(input: $i) { changed } }",
                {"i": {"taskId": gid("DepartmentTask", task)}},
            )
            if n == len(tasks) // 2:
                assert await kill_listeners(shop.engine) >= 1
        results = await asyncio.gather(*(arrived(q, moves, within=60) for q in queues))
        state = await feed_state(app, shop.engine)
    expected = [
        (kind, gid("DepartmentTask", task)) for task in tasks for kind in ("STARTED", "COMPLETED")
    ]
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    # An error a client raised is on its queue too, and shown as itself.
    got = [
        [
            (e["queueEvents"]["task"]["status"], e["queueEvents"]["task"]["id"])
            if isinstance(e, dict)
            else repr(e)
            for e in events
        ]
        for events in results
    ]
    missing = sorted({step for steps in got for step in expected if step not in steps})
    if missing:
        ids = {gid("DepartmentTask", t): t for t in tasks}
        lost_by = [[m for m in missing if m not in steps] for steps in got]
        state += f"; missing, by subscriber: {lost_by}: " + await whereabouts(
            shop, missing, fanned, ids
        )
    for steps, events in zip(got, results, strict=True):
        assert steps == expected, (
            f"{[len(r) for r in results]} of {moves} arrived; {state}; logged {warnings}"
        )
        cursors = [e["queueEvents"]["cursor"] for e in events]
        assert len(set(cursors)) == moves
    assert feed.stats.listener_connects > connects_before


async def test_a_slow_subscriber_is_dropped_and_resumes_without_gap(
    api: Client, running_app: tuple[str, Any], shop: Shop
) -> None:
    """A subscriber that does not consume while events pile up keeps a bounded buffer,
    is told to resume, and resuming from its last cursor loses nothing."""
    _, app = running_app
    services: Services = app.state.services
    viewer = await load_viewer(services, shop.tokens["pat"])
    document = """subscription($after: String) {
        queueEvents(department: "print", after: $after) { cursor task { id status } } }"""
    tasks = await print_tasks(shop, SUBSCRIBER_BUFFER * 3)
    after = await cursor_now(api, shop.tokens["pat"])
    # The tasks' creation events are older than the cursor; have them delivered before
    # subscribing, so that only the moves below fill this subscriber's buffer.
    assert services.feed is not None
    await services.feed.catch_up()
    stream = await schema.subscribe(
        document,
        variable_values={"after": after},
        context_value=Context(services, viewer, token=shop.tokens["pat"]),
    )
    assert not isinstance(stream, type(None))

    async def start(task: int) -> None:
        moved = await api.as_(shop.tokens["pat"])(
            START, {"i": {"taskId": gid("DepartmentTask", task)}}
        )
        assert moved["startTask"] == {"changed": True, "userErrors": []}

    first = asyncio.ensure_future(stream.__anext__())  # type: ignore[union-attr]
    await start(tasks[0])
    received = [(await first).data]
    # Each start commits, then wakes the feed, while this subscriber reads nothing.
    for task in tasks[1:]:
        await start(task)
    overflow = None
    async for result in stream:  # type: ignore[union-attr]
        if result.errors:
            overflow = result.errors[0]
            break
        received.append(result.data)
    assert overflow is not None
    assert overflow.extensions["code"] == "SLOW_CONSUMER"
    # It got at most its buffer's worth before being dropped, not everything.
    assert 1 < len(received) <= SUBSCRIBER_BUFFER + 1 < len(tasks)
    resume = overflow.extensions["resumeAfter"]
    assert resume == received[-1]["queueEvents"]["cursor"]
    resumes = 0
    while len(received) < len(tasks):
        rest = await schema.subscribe(
            document,
            variable_values={"after": resume},
            context_value=Context(services, viewer, token=shop.tokens["pat"]),
        )
        async for result in rest:  # type: ignore[union-attr]
            if result.errors:
                # A burst the feed held back (an old transaction elsewhere) can fill
                # even a fast reader's buffer; a careful client resumes again.
                assert result.errors[0].extensions["code"] == "SLOW_CONSUMER"
                resume = result.errors[0].extensions["resumeAfter"]
                resumes += 1
                assert resumes < 10
                break
            received.append(result.data)
            if len(received) == len(tasks):
                break
        await rest.aclose()  # type: ignore[union-attr]
    moves = [(r["queueEvents"]["task"]["id"], r["queueEvents"]["task"]["status"]) for r in received]
    assert moves == [(gid("DepartmentTask", t), "STARTED") for t in tasks]
    await stream.aclose()  # type: ignore[union-attr]
