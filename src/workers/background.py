"""A process's background loops (the timers, the webhook relay, the event log's
retention): each one task, started with the app and ended by cancelling it."""

import asyncio
import contextlib

from db.feed import TASK_PREFIX


class BackgroundLoop:
    """Runs `_run` as one task named after `name` (with TASK_PREFIX: what it runs on the
    engine is told apart from what requests run by it) until `stop`."""

    name = "loop"

    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"{TASK_PREFIX}{self.name}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        raise NotImplementedError
