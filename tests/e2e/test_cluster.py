"""The deployed shape under load (scripts/cluster: PostgreSQL, PgBouncer in transaction mode,
three replicas, HAProxy): a rolling restart, a replica killed outright and PostgreSQL
restarted, each while 300 subscribers follow the print queue through HAProxy and writers
start tasks. After each: no acknowledged write lost or made twice, every request that
failed was one the client could retry, and every subscriber received every event exactly
once, in order (the same sequence as a fresh replay from the start)."""

import asyncio
import json
import signal
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from playwright.async_api import Browser, expect
from sqlalchemy import text

from db.engine import create_engine
from pressroom import cluster as clusters
from tests.support.client import Client, gid
from tests.support.servers import metric
from tests.support.shop import Shop, open_shop
from tests.support.subscriptions import QUEUE_EVENTS, START, cursor_now, print_tasks, ws_url

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("cluster")]

SUBSCRIBERS = 300
WRITERS = 4
TASKS = 240
PROTOCOLS = ("graphql-transport-ws", "graphql-ws")
# Answers a client may safely send again: the balancer or a replica going away.
RETRYABLE = {502, 503, 504}
# A careful client's pause before it tries again (not a synchronisation).
RETRY_SECONDS = 0.1
DISPLAY = """mutation { createDisplayToken(input: {name: "Print wall", departmentCodes: ["print"]})
  { secret } }"""
BEFORE_ANY_BACKOFF_MS = 500
# Writes acknowledged after the disruption, to show the cluster writing again.
WRITES_AFTER = 20


@pytest.fixture(scope="module")
def cluster() -> Iterator[clusters.Cluster]:
    if absent := clusters.missing():
        pytest.skip(
            f"the cluster needs {' and '.join(absent)}: apt-get install (scripts/test does)"
        )
    settings = {"PRESSROOM_WEBSOCKETS_PER_TOKEN": str(SUBSCRIBERS), "PRESSROOM_DRAIN_SECONDS": "5"}
    # Not under pytest's directory: another pytest session makes that one its user's alone
    # again, and PostgreSQL's own user must still reach its data to restart it.
    with (
        tempfile.TemporaryDirectory(prefix="pressroom-cluster-") as workdir,
        clusters.running(Path(workdir), **settings) as running,
    ):
        yield running


@pytest.fixture(scope="module")
async def cluster_shop(cluster: clusters.Cluster) -> AsyncIterator[Shop]:
    engine = create_engine(cluster.db.url, pool_size=3, max_overflow=0)
    try:
        yield await open_shop(engine)
    finally:
        await engine.dispose()


@dataclass
class Follower:
    """A subscriber that, like the app, resubscribes from its last cursor whenever its
    websocket ends: at once on 1012, after a moment otherwise."""

    url: str
    token: str
    protocol: str
    after: str
    cursors: list[str] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)
    restarts: int = 0
    drops: int = 0
    # Set once `expect` events have arrived.
    expect: int | None = None
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    def wait_for(self, count: int) -> "asyncio.Future[Any]":
        self.expect = count
        self.arrived.clear()
        if len(self.cursors) >= count:
            self.arrived.set()
        return asyncio.ensure_future(self.arrived.wait())

    async def run(self) -> None:
        while True:
            try:
                await self._session()
            except websockets.ConnectionClosed as closed:
                if closed.rcvd is not None and closed.rcvd.code == 1012:
                    self.restarts += 1
                    continue
                self.drops += 1
            except (OSError, websockets.InvalidStatus, websockets.InvalidHandshake):
                self.drops += 1
            # A back-off between tries of an unreachable server, not a synchronisation.
            await asyncio.sleep(0.2)

    async def _session(self) -> None:
        async with websockets.connect(ws_url(self.url), subprotocols=[self.protocol]) as ws:
            init = {"type": "connection_init", "payload": {"authorization": f"Bearer {self.token}"}}
            await ws.send(json.dumps(init))
            kind = "subscribe" if self.protocol == "graphql-transport-ws" else "start"
            variables = {"department": "print", "after": self.after}
            payload = {"query": QUEUE_EVENTS, "variables": variables}
            await ws.send(json.dumps({"id": "1", "type": kind, "payload": payload}))
            async for raw in ws:
                message = json.loads(raw)
                if message["type"] == "ping":
                    await ws.send(json.dumps({"type": "pong"}))
                if message["type"] not in ("next", "data"):
                    assert message["type"] in ("connection_ack", "ka", "ping", "pong"), message
                    continue
                assert "errors" not in message["payload"], message
                event = message["payload"]["data"]["queueEvents"]
                self.after = event["cursor"]
                self.cursors.append(event["cursor"])
                self.tasks.append(event["task"]["id"])
                if self.expect is not None and len(self.cursors) >= self.expect:
                    self.arrived.set()


@dataclass
class Writers:
    """Clients starting tasks through the balancer, each retrying what failed the way a
    careful client does (a start repeated is answered `changed: false`, nothing twice)."""

    api: Client
    tokens: list[str]
    todo: list[int]
    acknowledged: list[int] = field(default_factory=list)
    failed: int = 0
    retried: int = 0
    # Once `stop` is set, how many acknowledged writes are enough.
    enough: int = 0

    async def run(self, stop: asyncio.Event) -> None:
        await asyncio.gather(*(self._writer(token, stop) for token in self.tokens))

    async def _writer(self, token: str, stop: asyncio.Event) -> None:
        while self.todo and not (stop.is_set() and len(self.acknowledged) >= self.enough):
            task = self.todo.pop()
            await self.start(token, task)
            # Pacing the load over the whole disruption, not a synchronisation.
            await asyncio.sleep(0.05)

    async def start(self, token: str, task: int) -> None:
        body = {"query": START, "variables": {"i": {"taskId": gid("DepartmentTask", task)}}}
        attempts = 0
        while True:
            attempts += 1
            try:
                response = await self.api.http.post(
                    self.api.url, json=body, headers={"authorization": f"Bearer {token}"}
                )
            except httpx.TransportError:
                self.failed += 1
                await asyncio.sleep(RETRY_SECONDS)
                continue
            if response.status_code in RETRYABLE:
                self.failed += 1
                await asyncio.sleep(RETRY_SECONDS)
                continue
            assert response.status_code == 200, response.text
            answer = response.json()
            assert "errors" not in answer, answer
            result = answer["data"]["startTask"]
            assert result["userErrors"] == [], result
            # Changed by this attempt, or by an earlier one whose answer was lost.
            assert result["changed"] or attempts > 1, result
            self.retried += attempts > 1
            self.acknowledged.append(task)
            return


async def under_load(
    cluster: clusters.Cluster, shop: Shop, disrupt: Callable[[], Any]
) -> dict[str, int]:
    """Subscribers and writers through HAProxy while `disrupt()` runs (in a thread); the
    checks every scenario shares; the figures."""
    tasks = await print_tasks(shop, TASKS)
    async with httpx.AsyncClient(timeout=60) as http:
        api = Client(http, f"{cluster.url}/graphql")
        token = shop.tokens["pat"]
        after = await cursor_now(api, token)
        followers = [
            Follower(cluster.url + "/graphql", token, PROTOCOLS[n % 2], after)
            for n in range(SUBSCRIBERS)
        ]
        running = [asyncio.create_task(f.run()) for f in followers]
        try:
            writers = Writers(api, [shop.tokens["pat"], shop.tokens["pia"]] * (WRITERS // 2), tasks)
            # Every subscriber has its first event, so each is live on some replica.
            await writers.start(token, tasks.pop())
            async with asyncio.timeout(60):
                await asyncio.gather(*(f.wait_for(1) for f in followers))
            stop = asyncio.Event()
            writing = asyncio.create_task(writers.run(stop))
            await asyncio.to_thread(disrupt)
            writers.enough = len(writers.acknowledged) + WRITES_AFTER
            stop.set()
            await writing
            expected = await replay(cluster, token, after, len(writers.acknowledged))
            async with asyncio.timeout(120):
                await asyncio.gather(*(f.wait_for(len(expected)) for f in followers))
        finally:
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)

    acknowledged = sorted(writers.acknowledged)
    assert len(set(acknowledged)) == len(acknowledged)
    assert await started_once(shop, acknowledged)
    expected_cursors = [cursor for cursor, _ in expected]
    assert {task for _, task in expected} == {gid("DepartmentTask", t) for t in acknowledged}
    assert len(expected) == len(acknowledged)
    for follower in followers:
        assert follower.cursors == expected_cursors
    return {
        "reads of the event log failed": await read_errors(cluster),
        "subscribers": len(followers),
        "events": len(expected),
        "delivered": sum(len(f.cursors) for f in followers),
        "duplicates": sum(len(f.cursors) - len(set(f.cursors)) for f in followers),
        "acknowledged": len(acknowledged),
        "requests failed and retried": writers.failed,
        "writes retried": writers.retried,
        "resubscribed on 1012": sum(f.restarts for f in followers),
        "resubscribed after a drop": sum(f.drops for f in followers),
    }


async def read_errors(cluster: clusters.Cluster) -> int:
    """The event readers' failed reads (`pressroom_event_read_errors`), summed over the
    replicas as they run now (a restarted one counts from its start)."""
    total = 0
    async with httpx.AsyncClient(timeout=10) as http:
        for replica in cluster.replicas:
            exposition = (await http.get(f"{replica.url}/metrics")).text
            value = metric(exposition, "pressroom_event_read_errors")
            assert value is not None, f"{replica.name} has no pressroom_event_read_errors"
            total += int(value)
    return total


async def replay(
    cluster: clusters.Cluster, token: str, after: str, count: int
) -> list[tuple[str, str]]:
    """The print queue's events from `after`, replayed by a fresh subscriber once the
    writing is over: (cursor, task) of the first `count`."""
    follower = Follower(cluster.url + "/graphql", token, PROTOCOLS[0], after)
    running = asyncio.create_task(follower.run())
    try:
        async with asyncio.timeout(60):
            await follower.wait_for(count)
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
    return list(zip(follower.cursors, follower.tasks, strict=True))


async def started_once(shop: Shop, tasks: list[int]) -> bool:
    async with shop.engine.connect() as conn:
        rows = (
            await conn.execute(
                text(
                    "SELECT task_id, count(*) FROM task_transitions WHERE action = 'START' "
                    "AND task_id = ANY(:t) GROUP BY task_id"
                ),
                {"t": tasks},
            )
        ).all()
    return sorted(rows) == [(task, 1) for task in tasks]


def report(name: str, figures: dict[str, int]) -> None:
    """The figures, on the terminal (`-s`) and in the test's log."""
    print(f"\n{name}: " + ", ".join(f"{key} {value}" for key, value in figures.items()))


async def test_a_rolling_restart_loses_nothing_and_repeats_nothing(
    cluster: clusters.Cluster, cluster_shop: Shop
) -> None:
    codes: list[int] = []
    figures = await under_load(cluster, cluster_shop, lambda: codes.extend(cluster.roll()))
    report("rolling restart", figures)
    assert codes == [0, 0, 0]
    # Every subscriber was on a replica that restarted, and resubscribed at once.
    assert figures["resubscribed on 1012"] >= SUBSCRIBERS
    assert figures["duplicates"] == 0
    assert figures["reads of the event log failed"] == 0


async def test_a_replica_killed_outright_loses_nothing_and_repeats_nothing(
    cluster: clusters.Cluster, cluster_shop: Shop
) -> None:
    [victim, *_] = cluster.replicas
    codes: list[int] = []
    figures = await under_load(
        cluster, cluster_shop, lambda: codes.append(cluster.restart(victim, signal.SIGKILL))
    )
    report("replica killed", figures)
    assert codes == [-signal.SIGKILL]
    # Its subscribers saw their connection drop (no 1012) and resumed elsewhere.
    assert figures["resubscribed after a drop"] >= 1
    assert figures["duplicates"] == 0
    # PostgreSQL and PgBouncer stayed up: the others read on as before.
    assert figures["reads of the event log failed"] == 0


async def test_every_replica_recovers_from_a_postgresql_restart(
    cluster: clusters.Cluster, cluster_shop: Shop
) -> None:
    figures = await under_load(cluster, cluster_shop, cluster.restart_database)
    report("PostgreSQL restarted", figures)
    async with httpx.AsyncClient(timeout=10) as http:
        for replica in cluster.replicas:
            ready = (await http.get(f"{replica.url}/readyz")).json()
            assert ready == {"ok": True, "database": True, "migrations": True, "listener": True}
    assert figures["duplicates"] == 0


async def test_the_wall_display_resubscribes_at_once_through_a_rolling_restart(
    cluster: clusters.Cluster, cluster_shop: Shop, browser: Browser, screenshots: Path
) -> None:
    [task] = await print_tasks(cluster_shop, 1)
    async with httpx.AsyncClient(timeout=30) as http:
        api = Client(http, f"{cluster.url}/graphql")
        secret = (await api.as_(cluster_shop.tokens["ada"])(DISPLAY))["createDisplayToken"]
        page = await browser.new_page()
        await page.clock.install()
        await page.goto(f"{cluster.url}/display/print?token={secret['secret']}")
        status = page.locator("#status")
        await expect(status).to_have_text("Live")
        connects = await page.evaluate("window.__pressroom.connects")
        # No timer of the page runs from here unless the test moves its clock.
        await page.clock.pause_at(datetime.now(UTC) + timedelta(seconds=1))
        await asyncio.to_thread(cluster.roll)
        await api.as_(cluster_shop.tokens["pat"])(
            START, {"i": {"taskId": gid("DepartmentTask", task)}}
        )
        await expect(status).to_have_text("Reconnecting…")
        # Less than the first back-off (1 s): only a resubscription made at once runs.
        await page.clock.run_for(BEFORE_ANY_BACKOFF_MS)
        await expect(status).to_have_text("Live")
        await expect(page.locator("#working")).to_contain_text("Pat")
        assert await page.evaluate("window.__pressroom.connects") == connects + 1
        await page.screenshot(path=str(screenshots / "display-after-rolling-restart.png"))
        await page.close()
