"""A webhook receiver on loopback that answers by plan, and waiting on the session
server's webhook relay by the attempts it writes."""

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from aiohttp import web

from workers.webhooks import WebhookRelay

HOLD = "hold"  # a plan's step: no answer until the sender has given up on this attempt


@dataclass(frozen=True)
class Received:
    headers: dict[str, str]
    body: str

    @property
    def id(self) -> str:
        return self.headers["webhook-id"]

    def json(self) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.body)
        return found


class Receiver:
    """A real HTTP server that takes webhooks: each request gets the next step of its
    `plan` (a status, or HOLD), then 200; every answer after `pause` seconds (a receiver
    that takes its time)."""

    def __init__(
        self, plan: list[int | str] | None = None, hold_seconds: float = 4.0, pause: float = 0.0
    ) -> None:
        self.plan = list(plan or [])
        self.hold_seconds = hold_seconds
        self.pause = pause
        self.requests: list[Received] = []
        self._arrived = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self.url = ""

    async def start(self, path: str = "/hooks") -> "Receiver":
        app = web.Application()
        app.router.add_post(path, self._take)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}{path}"
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _take(self, request: web.Request) -> web.Response:
        self.requests.append(Received(dict(request.headers), await request.text()))
        async with self._arrived:
            self._arrived.notify_all()
        step = self.plan.pop(0) if self.plan else 200
        if self.pause:
            await asyncio.sleep(self.pause)
        if step == HOLD:
            # Answers only after the sender's timeout (its attempt has failed by then).
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.hold_seconds):
                    await asyncio.Event().wait()
            step = 200
        return web.Response(status=int(step))

    def unique(self) -> list[Received]:
        """Each webhook-id's first arrival, in the order they arrived."""
        seen: dict[str, Received] = {}
        for received in self.requests:
            seen.setdefault(received.id, received)
        return list(seen.values())

    async def wait_requests(self, count: int, within: float = 60) -> None:
        """Once `count` requests arrived, repeats included."""
        async with asyncio.timeout(within), self._arrived:
            await self._arrived.wait_for(lambda: len(self.requests) >= count)

    async def wait_for(self, count: int, within: float = 60) -> list[Received]:
        """Once `count` distinct webhook-ids arrived: each one's first arrival."""
        async with asyncio.timeout(within), self._arrived:
            await self._arrived.wait_for(lambda: len(self.unique()) >= count)
        return self.unique()


@pytest.fixture
def relay(running_app: tuple[str, Any]) -> WebhookRelay:
    """The session server's webhook relay: what it wrote is waited for by its count."""
    found: WebhookRelay = running_app[1].state.relay
    return found


async def settled(
    relay: WebhookRelay, check: Callable[[], Awaitable[bool]], within: float = 30
) -> None:
    """Until `check` holds, looking again after each batch of attempts the relay writes."""
    async with asyncio.timeout(within):
        while True:
            seen = relay.written
            if await check():
                return
            await relay.written_past(seen)


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    found = await Receiver().start()
    yield found
    await found.stop()
