"""SIGTERM drains a replica: it stops accepting, closes websockets with 1012 ("service
restart") so clients resume elsewhere, lets a request in flight finish, then exits; a
request that outlasts PRESSROOM_DRAIN_SECONDS is cut and the process still exits."""

import asyncio
import json
import os
import signal
from urllib.parse import urlsplit

import pytest
import websockets

from tests.support.client import Client, gid
from tests.support.servers import serving
from tests.support.shop import Shop
from tests.support.subscriptions import QUEUE_EVENTS, START, RawSocket, cursor_now, print_tasks

pytestmark = pytest.mark.e2e

ME = json.dumps({"query": "query Me { me { name } }"}).encode()


async def begun_request(base: str, token: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A POST /graphql the server has begun and waits to read the body of: held open for
    as long as the test likes. It asks `Expect: 100-continue`, and the server answers
    "100 Continue" when the app first asks for the body, so the request is then in flight."""
    address = urlsplit(base)
    reader, writer = await asyncio.open_connection(address.hostname, address.port)
    writer.write(
        b"POST /graphql HTTP/1.1\r\nHost: pressroom\r\nContent-Type: application/json\r\n"
        + f"Authorization: Bearer {token}\r\nContent-Length: {len(ME)}\r\n".encode()
        + b"Expect: 100-continue\r\n\r\n"
    )
    await writer.drain()
    async with asyncio.timeout(15):
        assert await reader.readuntil(b"\r\n\r\n") == b"HTTP/1.1 100 Continue\r\n\r\n"
    return reader, writer


async def refused(base: str) -> bool:
    address = urlsplit(base)
    try:
        _, writer = await asyncio.open_connection(address.hostname, address.port)
    except ConnectionRefusedError:
        return True
    writer.close()
    return False


async def test_sigterm_closes_websockets_with_1012_and_finishes_requests_in_flight(
    api: Client, database_url: str, shop: Shop
) -> None:
    [task] = await print_tasks(shop, 1)
    token = shop.tokens["pat"]
    pid: list[int] = []
    with serving(None, database_url=database_url, pid=pid) as (base, _):
        other = Client(api.http, f"{base}/graphql")
        variables = {"department": "print", "after": await cursor_now(other, token)}
        socket = await RawSocket.open(f"{base}/graphql", token, "graphql-transport-ws")
        await socket.subscribe(QUEUE_EVENTS, variables)
        await other.as_(token)(START, {"i": {"taskId": gid("DepartmentTask", task)}})
        [event] = await socket.results(1)
        assert event["data"]["queueEvents"]["task"]["id"] == gid("DepartmentTask", task)
        reader, writer = await begun_request(base, token)

        os.kill(pid[0], signal.SIGTERM)
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await socket.next(within=15)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
        # uvicorn closed its listening socket before it closed the websockets.
        assert await refused(base)

        writer.write(ME)
        await writer.drain()
        async with asyncio.timeout(15):
            answer = await reader.read()
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), answer
    assert json.loads(body) == {"data": {"me": {"name": "Pat"}}}


async def test_a_request_that_outlasts_the_drain_is_cut_and_the_process_exits(
    database_url: str, shop: Shop
) -> None:
    pid: list[int] = []
    settings = {"PRESSROOM_DRAIN_SECONDS": "1"}
    with serving(None, database_url=database_url, settings=settings, pid=pid) as (base, lines):
        reader, writer = await begun_request(base, shop.tokens["pat"])
        os.kill(pid[0], signal.SIGTERM)
        # Never finished by the client: the server gives up on it after the drain, closing
        # the connection (or resetting it, as the process ends).
        async with asyncio.timeout(30):
            try:
                answer = await reader.read()
            except ConnectionResetError:
                answer = b""
        writer.close()
    assert b"200" not in answer.split(b"\r\n", 1)[0]
    assert any("timeout graceful shutdown exceeded" in line for line in lines)
