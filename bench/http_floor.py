"""The bare HTTP floor: the least a Python HTTP server pays for a task's move. uvicorn with
the server's loop and parser (uvloop, httptools), a bare ASGI callable, orjson, the bearer
token found in a dict, and the asyncpg floor's statements on a pool of connections; no
GraphQL, no access rules, no log line, no metrics, no event feed. Part 1 measures it
beside the asyncpg floor and `pressroom serve`, which says how much of the gap between
them any Python server in front of the database pays, and how much is Pressroom's own.

`BareHttpServer` runs it as `python -m uvicorn bench.http_floor:app`, its database and
its tokens' actors in the environment."""

import json
import os
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import orjson

from api.ids import decode_text
from bench.fixture import ROOT
from bench.load import SERVER_SETTINGS, SETTLEMENT_SQL, TRANSITION_SQL, transition_args
from bench.servers import ServerSubprocess
from db.tasks import needs_transaction
from domain.transitions import TRANSITIONS, TaskAction

DSN_VARIABLE = "BENCH_HTTP_FLOOR_DSN"
ACTORS_VARIABLE = "BENCH_HTTP_FLOOR_ACTORS"
POOL_SIZE = 10
# The moves' operations, as the bench sends them: its own documents' names, and the scan
# station's (the trusted documents).
ACTIONS = {
    "StartTask": TaskAction.START,
    "ScanStart": TaskAction.START,
    "FinishTask": TaskAction.FINISH,
    "ScanFinish": TaskAction.FINISH,
}
FIELDS = {TaskAction.START: "startTask", TaskAction.FINISH: "finishTask"}

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class BareMoves:
    """The ASGI app: GET answers 200 (ready: the lifespan opened the pool first); a POST
    of a start or a finish runs the move as RawClients does and answers its payload."""

    def __init__(self) -> None:
        self.pool: asyncpg.Pool | None = None
        self.actors: dict[str, int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
        elif scope["method"] == "POST":
            await self.answer(send, 200, await self.move(await self.body(receive), scope))
        else:
            await self.answer(send, 200, b"ready")

    async def lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self.actors = json.loads(os.environ[ACTORS_VARIABLE])
                self.pool = await asyncpg.create_pool(
                    os.environ[DSN_VARIABLE],
                    min_size=POOL_SIZE,
                    max_size=POOL_SIZE,
                    server_settings=SERVER_SETTINGS,
                )
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self.pool is not None:
                    await self.pool.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    @staticmethod
    async def body(receive: Receive) -> bytes:
        parts = []
        while True:
            message = await receive()
            parts.append(message.get("body", b""))
            if not message.get("more_body"):
                return b"".join(parts)

    async def move(self, body: bytes, scope: Scope) -> bytes:
        assert self.pool is not None
        request = orjson.loads(body)
        action = ACTIONS[request["operationName"]]
        given = request["variables"]["input"]["taskId"]
        task_id = decode_text(given, "DepartmentTask")
        if task_id is None:
            raise ValueError(f"not a task's id: {given!r}")
        token = dict(scope["headers"])[b"authorization"].removeprefix(b"Bearer ").decode()
        args = transition_args(action, task_id, self.actors[token])
        # As the server does: a start is one statement, without BEGIN and COMMIT.
        atomic = needs_transaction(action)
        async with (
            self.pool.acquire() as conn,
            conn.transaction() if atomic else nullcontext(),
        ):
            moved = await conn.fetchrow(TRANSITION_SQL, *args)
            if moved is not None and TRANSITIONS[action].settles_order:
                await conn.fetch(SETTLEMENT_SQL, moved["work_order_id"])
        payload = {"changed": moved is not None, "userErrors": [], "task": {"id": given}}
        return orjson.dumps({"data": {FIELDS[action]: payload}})

    @staticmethod
    async def answer(send: Send, status: int, body: bytes) -> None:
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


app = BareMoves()


class BareHttpServer(ServerSubprocess):
    """The bare HTTP floor as a subprocess, its tokens' actors given."""

    def __init__(self, dsn: str, actors: dict[str, int]) -> None:
        super().__init__("bare HTTP server")
        self.dsn = dsn
        self.actors = actors

    def command(self) -> tuple[list[str], dict[str, str], Path]:
        command = [
            sys.executable,
            "-m",
            "uvicorn",
            "bench.http_floor:app",
            f"--port={self.port}",
            "--loop=uvloop",
            "--http=httptools",
            "--no-access-log",
            "--log-level=warning",
        ]
        env = {**os.environ, DSN_VARIABLE: self.dsn, ACTORS_VARIABLE: json.dumps(self.actors)}
        return command, env, ROOT

    async def probe(self, client: httpx.AsyncClient) -> httpx.Response:
        return await client.get(self.http_url)
