"""Subscriptions over websockets: through the Python gql client (a queue of what arrives)
or a raw socket of either protocol, the queries the real-time tests share, and wall
display tokens made through the API."""

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import websockets
from gql import Client as GqlClient
from gql import gql
from gql.transport.exceptions import TransportClosed, TransportQueryError
from gql.transport.websockets import WebsocketsTransport
from sqlalchemy import text

from tests.support.client import Client
from tests.support.shop import Shop

PROTOCOLS = ["graphql-transport-ws", "graphql-ws"]
QUEUE_EVENTS = """subscription($department: String!, $after: String) {
  queueEvents(department: $department, after: $after) {
    cursor kind occurredAt task { id status pickedUpBy { name } workOrder { orderNumber } }
  }
}"""
START = """mutation($i: StartTaskInput!) { startTask(input: $i) { changed userErrors { code } } }"""
FINISH = """mutation($i: FinishTaskInput!) { finishTask(input: $i) { changed } }"""
QUEUE = """query { queue(department: "print", first: 100) { eventCursor edges { node { id } } } }"""


def ws_url(http_url: str) -> str:
    return http_url.replace("http://", "ws://")


@contextlib.asynccontextmanager
async def subscriber(
    url: str, token: str, protocol: str, variables: dict[str, Any], document: str = QUEUE_EVENTS
) -> AsyncIterator[asyncio.Queue[Any]]:
    """Runs a gql subscription in the background, putting each result on a queue (or the
    error that ended it).

    Entering returns once the server has accepted the connection, not once it has
    registered the subscription: gql sends the subscribe message when its stream is first
    read, and the server joins the feed a moment later; no message says when. So tests
    subscribe with `after` set to a cursor taken at a known point, and an event committed
    meanwhile arrives by replay. A test that needs a live subscription (delivery to a
    waiting subscriber, or ending one) first takes an event of its own: the server joins
    the feed before it sends anything, so once that event (the last one the replay
    finds) is in, what commits next arrives live.
    Like a careful client, it resubscribes from `resumeAfter` when the server drops it
    for falling behind (the test server's buffer is small)."""
    received: asyncio.Queue[Any] = asyncio.Queue()
    connected = asyncio.Event()
    current = dict(variables)

    async def run() -> None:
        try:
            while True:
                request = gql(document)
                request.variable_values = current
                transport = WebsocketsTransport(
                    url=ws_url(url),
                    init_payload={"authorization": f"Bearer {token}"},
                    subprotocols=[protocol],
                )
                try:
                    async with GqlClient(transport=transport) as session:
                        connected.set()
                        async for result in session.subscribe(request):
                            await received.put(result)
                    return
                except TransportQueryError as error:
                    extensions = (error.errors or [{}])[0].get("extensions") or {}
                    if extensions.get("code") != "SLOW_CONSUMER":
                        raise
                    current["after"] = extensions["resumeAfter"]
        except (TransportQueryError, TransportClosed) as error:
            await received.put(error)
        finally:
            connected.set()

    task = asyncio.create_task(run())
    await connected.wait()
    try:
        yield received
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def take(queue: asyncio.Queue[Any], count: int, within: float = 30) -> list[Any]:
    async with asyncio.timeout(within):
        return [await queue.get() for _ in range(count)]


async def arrived(queue: asyncio.Queue[Any], count: int, within: float = 30) -> list[Any]:
    """Up to `count` items, or what arrived within `within` seconds: a test comparing them
    with what it expects shows what is missing, where `take` would only time out."""
    got: list[Any] = []
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(within):
            while len(got) < count:
                got.append(await queue.get())
    return got


async def print_tasks(shop: Shop, orders: int) -> list[int]:
    ids = []
    for _ in range(orders):
        order = await shop.order(["print"])
        async with shop.engine.connect() as conn:
            ids.append(
                await conn.scalar(
                    text(
                        "SELECT t.id FROM department_tasks t JOIN departments d "
                        "ON d.id = t.department_id WHERE t.work_order_id = :o AND d.code = 'print'"
                    ),
                    {"o": order},
                )
            )
    return ids


async def cursor_now(api: Client, token: str) -> str:
    """An event cursor for 'now': the print queue's snapshot position."""
    return str((await api.as_(token)(QUEUE))["queue"]["eventCursor"])


class RawSocket:
    """A raw websocket speaking either protocol (no client library between the test and the
    frames, so a message's data and errors are seen together); subscriptions are numbered
    by the test."""

    def __init__(self, ws: Any, protocol: str) -> None:
        self.ws = ws
        self.protocol = protocol

    @classmethod
    async def open(cls, server: str, token: str, protocol: str) -> "RawSocket":
        ws = await websockets.connect(server.replace("http://", "ws://"), subprotocols=[protocol])
        init = {"type": "connection_init", "payload": {"authorization": f"Bearer {token}"}}
        await ws.send(json.dumps(init))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        return cls(ws, protocol)

    async def subscribe(self, query: str, variables: dict[str, Any], sid: str = "1") -> None:
        kind = "subscribe" if self.protocol == "graphql-transport-ws" else "start"
        payload = {"query": query, "variables": variables}
        await self.ws.send(json.dumps({"id": sid, "type": kind, "payload": payload}))

    async def next(self, within: float = 15) -> dict[str, Any]:
        """The next message about a subscription (keep-alives skipped)."""
        async with asyncio.timeout(within):
            while True:
                message: dict[str, Any] = json.loads(await self.ws.recv())
                if message["type"] not in ("ka", "ping", "pong"):
                    return message

    async def results(self, count: int) -> list[dict[str, Any]]:
        """The payloads ({data, errors}) of the next `count` results; anything else fails."""
        out = []
        for _ in range(count):
            message = await self.next()
            assert message["type"] in ("next", "data"), message
            out.append(message["payload"])
        return out


def error_codes(message: dict[str, Any]) -> list[str]:
    """The error codes of a subscription message of either protocol."""
    payload = message.get("payload")
    if message["type"] == "error":
        errors = payload if isinstance(payload, list) else payload.get("errors", [payload])
    else:
        errors = (payload or {}).get("errors") or []
    return [e.get("extensions", {}).get("code") for e in errors]


CREATE_DISPLAY = """mutation($i: CreateDisplayTokenInput!) { createDisplayToken(input: $i) {
  secret token { id kind name departments { code } } userErrors { code field message } } }"""


async def display_token(
    api: Client, shop: Shop, codes: list[str], *, by: str = "ada"
) -> dict[str, Any]:
    """A wall display token for `codes`, made through the API by admin `by`: the
    payload, `secret` and `token { id kind name departments }`."""
    body = await api.as_(shop.tokens[by])(
        CREATE_DISPLAY, {"i": {"name": f"{codes[0]} wall", "departmentCodes": codes}}
    )
    made: dict[str, Any] = body["createDisplayToken"]
    assert made["userErrors"] == []
    return made
