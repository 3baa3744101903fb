"""The servers a bench starts: a subprocess on a free port of 127.0.0.1, ready when its
probe answers, and `pressroom serve` as one."""

import abc
import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import httpx
from prometheus_client.parser import text_string_to_metric_families

from bench.fixture import ROOT, dsn
from bench.output import console


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ServerSubprocess(abc.ABC):
    """A server as a subprocess on a free port of 127.0.0.1, its output kept in a
    temporary file: started when its readiness probe answers 200, stopped with SIGTERM
    (then killed)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed in stop)
            prefix=f"pressroom-bench-{name}-", suffix=".log", delete=False
        )

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/graphql"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    @abc.abstractmethod
    def command(self) -> tuple[list[str], dict[str, str], Path]:
        """The command line, its environment and its working directory."""

    @abc.abstractmethod
    async def probe(self, client: httpx.AsyncClient) -> httpx.Response:
        """A request that answers 200 once the server is ready."""

    def failure(self, what: str) -> RuntimeError:
        return RuntimeError(f"the {self.name} {what}; see {self.log.name}")

    def launch(self) -> None:
        command, env, cwd = self.command()
        self.process = subprocess.Popen(
            command, env=env, stdout=self.log, stderr=subprocess.STDOUT, cwd=cwd
        )

    async def start(self, within: float = 60) -> None:
        """Launch, then wait until the probe answers 200."""
        self.launch()
        assert self.process is not None
        deadline = time.monotonic() + within
        async with httpx.AsyncClient(timeout=2, trust_env=False) as client:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise self.failure("exited early")
                with contextlib.suppress(httpx.HTTPError):
                    if (await self.probe(client)).status_code == 200:
                        return
                await asyncio.sleep(0.1)
        raise self.failure(f"was not ready within {within:.0f} s")

    def stop(self, timeout: float = 20) -> None:
        process = self.process
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        self.log.close()

    def remove_log(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self.log.name)

    def tail(self, lines: int = 20, separator: str = "\n") -> str:
        with contextlib.suppress(OSError):
            return separator.join(Path(self.log.name).read_text().strip().splitlines()[-lines:])
        return ""

    def show_tail(self) -> None:
        console.print(f"[red]{self.name} log tail:[/red]\n{self.tail()}")

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Started for the block, then stopped. When the block fails, the log's tail is
        shown and the log kept, to be read."""
        try:
            await self.start()
            yield
        except Exception:
            self.show_tail()
            raise
        finally:
            self.stop()
        self.remove_log()


# Event ids grow as events are written; pruning takes the oldest only.
NEWEST_EVENT = "SELECT coalesce(max(id), 0) FROM events"
WRITTEN_SINCE = "SELECT count(*) FROM events WHERE id > $1"


class ServerProcess(ServerSubprocess):
    """`pressroom serve`."""

    def __init__(self, url: str, *, extra_env: dict[str, str] | None = None) -> None:
        super().__init__("server")
        self.url = url
        self.extra_env = extra_env or {}
        # The newest event of the log when it started: its feed reads every later one.
        self.newest_event_before = 0

    async def start(self, within: float = 60) -> None:
        self.newest_event_before = await self._read(NEWEST_EVENT)
        await super().start(within)

    async def _read(self, query: str, *args: object) -> int:
        # No statement cache: the URL may be a PgBouncer's in transaction mode.
        conn = await asyncpg.connect(dsn(self.url), statement_cache_size=0)
        try:
            return int(await conn.fetchval(query, *args))
        finally:
            await conn.close()

    async def feed_caught_up(self, within: float = 60) -> None:
        """Until its feed has read every event written since it started. A measured window
        begins right after its task pool is made (thousands of orders, some four events
        each): unread, those events would be read inside the window, on the CPU measured."""
        written = await self._read(WRITTEN_SINCE, self.newest_event_before)
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if await self.events_delivered() >= written:
                return
            await asyncio.sleep(0.05)
        raise self.failure(f"had not read the {written} events since its start in {within:.0f} s")

    async def events_delivered(self) -> float:
        for family in text_string_to_metric_families(await self.metrics()):
            for sample in family.samples:
                if sample.name == "pressroom_events_delivered":
                    return sample.value
        raise self.failure("exposes no pressroom_events_delivered")

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/graphql"

    async def metrics(self) -> str:
        """Its /metrics exposition, with the metrics token when one is set."""
        token = {**os.environ, **self.extra_env}.get("PRESSROOM_METRICS_TOKEN")
        headers = {"authorization": f"Bearer {token}"} if token else {}
        async with httpx.AsyncClient(timeout=10, trust_env=False) as client:
            response = await client.get(f"http://127.0.0.1:{self.port}/metrics", headers=headers)
        response.raise_for_status()
        return response.text

    def command(self) -> tuple[list[str], dict[str, str], Path]:
        # The bench measures the server, not a token's window of cost points.
        env = {
            "PRESSROOM_COST_PER_TOKEN": "1000000000/minute",
            **os.environ,
            **self.extra_env,
            "DATABASE_URL": self.url,
        }
        pressroom = Path(sys.executable).with_name("pressroom")
        command = (
            [str(pressroom)] if pressroom.exists() else [sys.executable, "-m", "pressroom.cli"]
        )
        command += ["serve", "--host", "127.0.0.1", "--port", str(self.port)]
        return command, env, ROOT

    async def probe(self, client: httpx.AsyncClient) -> httpx.Response:
        # /readyz: migrated and listening.
        return await client.get(f"http://127.0.0.1:{self.port}/readyz")
