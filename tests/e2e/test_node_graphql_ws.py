"""The reference JavaScript client — npm `graphql-ws` under Node, speaking
graphql-transport-ws — subscribes to a queue on the real server: it gets every move, in
order, once, authenticated by its connection_init payload, and resumes from a cursor it
was given."""

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, NoReturn

import pytest

from tests.support.client import Client, gid
from tests.support.shop import Shop
from tests.support.subscriptions import START, cursor_now, print_tasks, ws_url

pytestmark = pytest.mark.e2e

NODE_DIR = Path(__file__).resolve().parent / "node"
SCRIPT = NODE_DIR / "subscribe.mjs"
FINISH = """mutation($i: FinishTaskInput!) {
  finishTask(input: $i) { changed userErrors { code } } }"""
WITHIN = 30  # seconds a Node client gets to print what it is waiting for and exit


@pytest.fixture(scope="session")
def node_client(node: str) -> list[str]:
    """`node subscribe.mjs`, with the pinned npm packages installed."""
    return [node, str(SCRIPT)]


@contextlib.asynccontextmanager
async def node_subscriber(
    command: list[str], server: str, token: str, after: str, count: int
) -> AsyncIterator[asyncio.subprocess.Process]:
    """The Node client subscribed to the print queue after `after`, until `count` events."""
    proc = await asyncio.create_subprocess_exec(
        *command,
        ws_url(server),
        token,
        "print",
        after,
        str(count),
        cwd=NODE_DIR,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        yield proc
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.communicate()


async def _fail_with_stderr(proc: asyncio.subprocess.Process, why: str) -> NoReturn:
    if proc.returncode is None:
        proc.kill()
    _, err = await proc.communicate()
    pytest.fail(f"node client: {why}; exit {proc.returncode}; stderr:\n{err.decode()}")


async def next_event(proc: asyncio.subprocess.Process) -> dict[str, Any]:
    """The next line the client prints: waits for it, never longer than WITHIN."""
    assert proc.stdout is not None
    try:
        async with asyncio.timeout(WITHIN):
            line = await proc.stdout.readline()
    except TimeoutError:
        await _fail_with_stderr(proc, f"printed nothing within {WITHIN}s")
    if not line:
        await _fail_with_stderr(proc, "exited before printing an event")
    event: dict[str, Any] = json.loads(line)
    return event


async def rest_of_events(proc: asyncio.subprocess.Process) -> list[dict[str, Any]]:
    """Everything else the client prints, once it has exited by itself (successfully)."""
    try:
        async with asyncio.timeout(WITHIN):
            out, err = await proc.communicate()
    except TimeoutError:
        await _fail_with_stderr(proc, f"did not exit within {WITHIN}s")
    assert proc.returncode == 0, f"node client exited {proc.returncode}:\n{err.decode()}"
    return [json.loads(line) for line in out.decode().splitlines()]


async def move(client: Client, mutation: str, task: int) -> None:
    data = await client(mutation, {"i": {"taskId": gid("DepartmentTask", task)}})
    [payload] = data.values()
    assert payload == {"changed": True, "userErrors": []}


def moves(events: list[dict[str, Any]]) -> list[tuple[str, str, str | None]]:
    return [
        (e["task"]["id"], e["task"]["status"], (e["task"]["pickedUpBy"] or {}).get("name"))
        for e in events
    ]


async def test_graphql_ws_client_under_node_gets_every_move_in_order(
    api: Client, server: str, shop: Shop, node_client: list[str]
) -> None:
    first, second = await print_tasks(shop, 2)
    pat, pia = api.as_(shop.tokens["pat"]), api.as_(shop.tokens["pia"])
    after = await cursor_now(api, shop.tokens["pat"])

    async with node_subscriber(node_client, server, shop.tokens["pat"], after, 4) as proc:
        # Replayed or live, depending on when the client got subscribed: it must arrive.
        await move(pat, START, first)
        events = [await next_event(proc)]
        # The client is subscribed now; these commit while it listens.
        await move(pia, START, second)
        await move(pat, FINISH, first)
        await move(pia, FINISH, second)
        events += await rest_of_events(proc)

    first_id, second_id = gid("DepartmentTask", first), gid("DepartmentTask", second)
    assert moves(events) == [
        (first_id, "STARTED", "Pat"),
        (second_id, "STARTED", "Pia"),
        (first_id, "COMPLETED", "Pat"),
        (second_id, "COMPLETED", "Pia"),
    ]
    assert {e["kind"] for e in events} == {"TASK_CHANGED"}
    cursors = [e["cursor"] for e in events]
    assert len(set(cursors)) == 4
    assert after not in cursors

    # A client that kept the second event's cursor resumes with exactly the two after it.
    resume = cursors[1]
    async with node_subscriber(node_client, server, shop.tokens["pia"], resume, 2) as proc:
        resumed = await rest_of_events(proc)
    assert resumed == events[2:]
