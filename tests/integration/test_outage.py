"""While the database cannot be reached, requests get a JSON GraphQL error with
`SERVICE_UNAVAILABLE` and HTTP 503 (never a text/plain 500 with a traceback), and the
server logs one line when the outage starts and one when it ends, not one per request.

The server under test reaches PostgreSQL through a TCP proxy of the test's own, so
"the database is down" is the proxy refusing and cutting connections: no other test's
database is disturbed.
"""

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

import httpx
import pytest
from sqlalchemy.engine import make_url

from graph.media_types import GRAPHQL_RESPONSE, JSON
from pressroom.app import create_app
from pressroom.settings import Settings
from tests.support.servers import config_for, free_port, serve
from tests.support.shop import Shop

QUERY = "query Orders { workOrders { edges { node { id } } } }"
MUTATION = 'mutation Make { createCustomer(input: {name: "X"}) { customer { id } } }'


class Proxy:
    """TCP on localhost to the embedded server's Unix socket (or its host and port)."""

    def __init__(self, url: str) -> None:
        parsed = make_url(url)
        self.socket_dir = parsed.query.get("host")
        self.target = (parsed.host or "127.0.0.1", parsed.port or 5432)
        self.port = free_port()
        self.server: asyncio.Server | None = None
        self.pipes: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        if self.server is None:
            self.server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)

    async def stop(self) -> None:
        """The database goes away: no new connections, and the open ones are cut."""
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
            self.server = None
        for pipe in list(self.pipes):
            pipe.cancel()
        await asyncio.gather(*self.pipes, return_exceptions=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if isinstance(self.socket_dir, str):
            up_reader, up_writer = await asyncio.open_unix_connection(
                f"{self.socket_dir}/.s.PGSQL.{self.target[1]}"
            )
        else:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        task = asyncio.current_task()
        assert task is not None
        self.pipes.add(task)
        try:
            await asyncio.gather(_pump(reader, up_writer), _pump(up_reader, writer))
        finally:
            self.pipes.discard(task)
            for w in (writer, up_writer):
                w.close()


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """One direction; when its source closes, the other end is closed too (a client that
    sent Terminate waits for the server to hang up)."""
    try:
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
    finally:
        writer.close()


@pytest.fixture
async def through_proxy(database_url: str) -> AsyncIterator[tuple[str, Proxy]]:
    proxy = Proxy(database_url)
    await proxy.start()
    # The test database's role and password, through the proxy's port.
    url = (
        make_url(database_url)
        .set(host="127.0.0.1", port=proxy.port, query={})
        .render_as_string(hide_password=False)
    )
    settings = Settings(pool_size=2, max_overflow=0, feed_poll_seconds=0.2)
    app = create_app(settings, url=url)
    server, task = await serve(config_for(app, settings, free_port()))
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/graphql", proxy
    finally:
        await proxy.start()  # let the server shut down cleanly
        server.should_exit = True
        await task
        await proxy.stop()


async def test_requests_during_an_outage_are_503_and_logged_once(
    shop: Shop, through_proxy: tuple[str, Proxy], caplog: pytest.LogCaptureFixture
) -> None:
    url, proxy = through_proxy
    headers = {"authorization": f"Bearer {shop.tokens['sam']}"}
    async with httpx.AsyncClient(timeout=30) as http:
        ok = await http.post(url, json={"query": QUERY}, headers=headers)
        assert ok.status_code == 200 and "errors" not in ok.json()
        with caplog.at_level(logging.WARNING, logger="pressroom.database"):
            await proxy.stop()
            # Sam's caller is cached: his requests fail at their first field (data null).
            # Pat's is not: hers fail while she is authenticated, before GraphQL (no data).
            for name, document, accept in [
                *[("sam", QUERY, JSON), ("sam", MUTATION, JSON)] * 2,
                ("sam", QUERY, GRAPHQL_RESPONSE),
                ("sam", MUTATION, GRAPHQL_RESPONSE),
                ("pat", QUERY, JSON),
                ("pat", MUTATION, GRAPHQL_RESPONSE),
            ]:
                response = await http.post(
                    url,
                    json={"query": document},
                    headers={"accept": accept, "authorization": f"Bearer {shop.tokens[name]}"},
                )
                assert response.status_code == 503, response.text
                assert response.headers["content-type"].startswith(accept)
                assert response.headers["retry-after"] == "5"
                assert "Traceback" not in response.text
                body = response.json()
                assert ("data" in body) is (name == "sam")
                assert body.get("data") is None
                assert [e["extensions"]["code"] for e in body["errors"]] == ["SERVICE_UNAVAILABLE"]
                assert "database is unavailable" in body["errors"][0]["message"]
            down = [r.getMessage() for r in caplog.records if r.name == "pressroom.database"]
            await proxy.start()
            back = await http.post(url, json={"query": MUTATION}, headers=headers)
            after = [r.getMessage() for r in caplog.records if r.name == "pressroom.database"]
    assert back.status_code == 200 and "errors" not in back.json(), back.text
    assert len(down) == 1 and "unavailable" in down[0]
    assert after[1:] == ["database available again"]
    masked = [r for r in caplog.records if r.name == "pressroom.request" and r.exc_info]
    assert masked == []
