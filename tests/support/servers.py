"""Real servers on real sockets: uvicorn serving the app in this process (the session's
server, and one with trusted documents on), `pressroom serve` as a subprocess, and reading
the metrics a server exposes."""

import asyncio
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from prometheus_client.parser import text_string_to_metric_families

from pressroom.app import create_app, server_options
from pressroom.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
STARTUP_TIMEOUT = 120


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server(uvicorn.Server):
    """uvicorn that says when it is listening, so tests wait on that, not on time."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = asyncio.Event()

    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets=sockets)
        self.ready.set()


def config_for(app: Any, settings: Settings, port: int) -> uvicorn.Config:
    """uvicorn serving `app` on 127.0.0.1:`port` as `pressroom serve` would (its
    websocket protocol and options)."""
    return uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", **server_options(settings)
    )


async def serve(config: uvicorn.Config) -> "tuple[Server, asyncio.Task[None]]":
    server = Server(config)
    task = asyncio.create_task(server.serve())
    ready = asyncio.create_task(server.ready.wait())
    await asyncio.wait([task, ready], return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        ready.cancel()
        task.result()
        raise RuntimeError("the server stopped while starting")
    return server, task


SUBSCRIBER_BUFFER = 50
KEEP_ALIVE_SECONDS = 0.5
CONNECTION_INIT_TIMEOUT_SECONDS = 1.0


# Webhooks to loopback receivers, retried within a second, a slow receiver given up on
# after two (a receiver that fails three times and times out once is served in seconds).
WEBHOOK_SETTINGS: dict[str, Any] = {
    "webhook_allow_private": True,
    "webhook_retries": "50ms,100ms,100ms,100ms,100ms",
    "webhook_timeout_seconds": 2.0,
    "webhook_poll_seconds": 0.2,
}


@pytest.fixture(scope="session")
async def running_app(database_url: str) -> AsyncIterator[tuple[str, Any]]:
    """uvicorn serving the real app on a free port, for the whole session."""
    port = free_port()
    settings = Settings(
        public_url=f"http://127.0.0.1:{port}",
        pool_size=20,
        max_overflow=40,
        subscriber_buffer=SUBSCRIBER_BUFFER,
        keep_alive_seconds=KEEP_ALIVE_SECONDS,
        connection_init_timeout_seconds=CONNECTION_INIT_TIMEOUT_SECONDS,
        # The suite signs in far more often than people do; tests of throttling make
        # servers of their own.
        signin_failures_per_address="100000/minute",
        signin_attempts_per_address="100000/minute",
        signin_failures_per_account="100000/minute",
        inbox_failures_per_address="100000/minute",
        inbox_requests_per_address="100000/minute",
        customer_page_failures_per_address="100000/minute",
        customer_page_requests_per_address="100000/minute",
        customer_page_requests_per_link="100000/minute",
        **WEBHOOK_SETTINGS,
    )
    app = create_app(settings, url=database_url)
    srv, task = await serve(config_for(app, settings, port))
    yield f"http://127.0.0.1:{port}/graphql", app
    srv.should_exit = True
    await task


@pytest.fixture(scope="session")
def server(running_app: tuple[str, Any]) -> str:
    return str(running_app[0])


@asynccontextmanager
async def served(database_url: str, settings: Settings) -> AsyncIterator[tuple[str, Any]]:
    """uvicorn serving an app of its own on the test database with `settings`, in this
    process: its /graphql URL and the app."""
    app = create_app(settings, url=database_url)
    srv, task = await serve(config_for(app, settings, free_port()))
    try:
        yield f"http://127.0.0.1:{srv.config.port}/graphql", app
    finally:
        srv.should_exit = True
        await task


@pytest.fixture
async def trusted_server(database_url: str) -> AsyncIterator[str]:
    """A real server of its own on the test database, with PRESSROOM_TRUSTED_DOCUMENTS on
    (as in production): its /graphql URL."""
    async with served(database_url, Settings(trusted_documents=True)) as (url, _):
        yield url


@contextmanager
def serving(
    data_dir: Path | None,
    *args: str,
    database_url: str | None = None,
    workers: int = 1,
    settings: dict[str, str] | None = None,
    pid: list[int] | None = None,
) -> Iterator[tuple[str, list[str]]]:
    """`pressroom serve` as a subprocess: on the embedded PostgreSQL under `data_dir`, or on
    `database_url`, with `workers` server processes and `settings` in its environment.
    Yields once uvicorn says it listens and every worker has started its app; stops it
    with SIGTERM and expects a clean exit. With `pid`, its process id is put there, for a
    test to kill it: a process killed with SIGKILL is not expected to exit cleanly. Its
    output goes on being read into the lines yielded, so that a server logging a line per
    request never waits on a full pipe."""
    if workers > 1:
        args = (*args, "--workers", str(workers))
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"} | (settings or {})
    if data_dir is not None:
        env["PRESSROOM_DATA_DIR"] = str(data_dir)
    if database_url is not None:
        env["DATABASE_URL"] = database_url
    proc = subprocess.Popen(
        [sys.executable, "-m", "pressroom.cli", "serve", "--port", str(port), *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    if pid is not None:
        pid.append(proc.pid)
    lines: list[str] = []
    reader: threading.Thread | None = None
    try:
        assert proc.stdout is not None
        # Synchronise on the server saying it listens and has started its apps, not on
        # time passing. One process binds its socket after its startup; with --workers the
        # parent binds first and each worker starts its app after.
        listening, started = False, 0
        for line in proc.stdout:
            lines.append(line)
            listening = listening or "Uvicorn running on" in line
            started += "Application startup complete" in line
            if listening and started == workers:
                break
        else:
            pytest.fail("server exited before starting:\n" + "".join(lines))
        reader = threading.Thread(target=lines.extend, args=(proc.stdout,), daemon=True)
        reader.start()
        yield f"http://127.0.0.1:{port}", lines
    finally:
        proc.send_signal(signal.SIGTERM)
        if reader is None:
            rest, _ = proc.communicate(timeout=STARTUP_TIMEOUT)
            lines.append(rest)
        else:
            proc.wait(timeout=STARTUP_TIMEOUT)
            reader.join(timeout=STARTUP_TIMEOUT)
    killed = pid is not None and proc.returncode == -signal.SIGKILL
    assert proc.returncode == 0 or killed, "".join(lines)


def metric(exposition: str, name: str, **labels: str) -> float | None:
    """The value of the sample `name` with these labels (and any others: every sample also
    names its replica) in Prometheus text, or None."""
    for family in text_string_to_metric_families(exposition):
        for found in family.samples:
            if found.name == name and labels.items() <= found.labels.items():
                return float(found.value)
    return None


@asynccontextmanager
async def app_from(
    database_url: str, address: str, **settings: Any
) -> AsyncIterator[httpx.AsyncClient]:
    """An app of its own on the test database (its own limits' counters), with `settings`,
    reached in this process from `address`."""
    app = create_app(Settings(**settings), url=database_url)
    transport = httpx.ASGITransport(app=app, client=(address, 1234))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://pressroom") as client,
    ):
        yield client
