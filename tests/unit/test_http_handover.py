"""uvicorn's HTTP protocol, once it has handed a connection to a websocket's protocol, is
freed by its reference count: no cycle left for a full collection to find. Run on a server
of its own in a thread, on uvloop as `pressroom serve` runs, with the collector off and
this test synchronous (so that no pacer of a session server collects meanwhile): what the
reference counts did not free is still there to count."""

import asyncio
import gc
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
import uvloop
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from websockets.sync.client import connect

from graph.engine import EngineRoom
from tests.support.servers import free_port

SOCKETS = 5


class ThreadServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.listening = threading.Event()

    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets=sockets)
        self.listening.set()


@pytest.fixture
def served() -> Iterator[tuple[int, threading.Semaphore, uvicorn.Config]]:
    """A websocket app served as the engine room serves, a count of sockets whose close
    the app has seen, and the server's config (which its protocols hold: servers of other
    tests in this process have protocols of their own)."""
    closed = threading.Semaphore(0)

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "websocket"
        await receive()
        await send({"type": "websocket.accept"})
        await receive()
        closed.release()

    port = free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        lifespan="off",
        log_level="warning",
        **EngineRoom().server_options(),
    )
    server = ThreadServer(config)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        thread = threading.Thread(target=runner.run, args=(server.serve(),))
        thread.start()
        try:
            assert server.listening.wait(30)
            yield port, closed, config
        finally:
            server.should_exit = True
            thread.join(30)


def test_a_connection_handed_to_a_websocket_leaves_no_cycle(
    served: tuple[int, threading.Semaphore, uvicorn.Config],
) -> None:
    port, closed, config = served
    gc.collect()
    gc.disable()
    try:
        for _ in range(SOCKETS):
            with connect(f"ws://127.0.0.1:{port}/") as socket:
                socket.ping().wait(10)
        for _ in range(SOCKETS):
            assert closed.acquire(timeout=10)
        left = [
            o
            for o in gc.get_objects()
            if issubclass(type(o), HttpToolsProtocol) and o.config is config
        ]
        assert left == []
    finally:
        gc.enable()
