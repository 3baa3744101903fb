"""Hostile anonymous clients for bench/hostile.py, in a process of their own so that their
work does not delay the legitimate clients' event loop (and their timings). It imports
nothing of the project, so it starts in a fraction of a second.

Each kind of attack is offered at a fixed rate with a cap on requests in flight (a tick
that finds every slot busy is skipped and counted): the same attack, whatever the server
answers, so that runs on two versions of the server compare. Every payload is built once,
before the run; a request's own text differs only by a counter replaced in it (`@N@`),
so that no cache of the server's can answer for it. Every request has a timeout.

Kinds (`KINDS`): sign-in floods with unknown emails and with wrong passwords for one real
account, from this process's own address and from many forged ones (`X-Forwarded-For`,
which the server trusts from loopback as it trusts its balancer's); validation bombs (one
field repeated 1,990 times, 660 aliases, 280 directives on a field, 390 operations, each
just under the server's 2,000-token cap); distinct-document churn (5 KB documents refused
for their 220 aliases, and small accepted ones, each with names of its own); websocket
churn (connect, then drop at once, stay silent, or send connection_init anonymously or
with a bad token, and drop); unsigned POSTs to the payments inbox (a real inbox's name,
and unknown ones).

The parent starts it with `--spec FILE` (JSON: url, seconds, the inbox's name, the
victim's email and the sign-in document); it prints `{"kind": "started"}` once its loops
run, then stops at its deadline, at a line on stdin, or at the end of its input, and
prints `{"kind": "result", "body": ...}`: per kind, requests sent, ticks skipped, answers
by HTTP status and error code, and answer times.
"""

import argparse
import asyncio
import contextlib
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import orjson

MARK = "@N@"
# The server's token cap (graph/schema.py DocumentLimits.MAX_TOKENS): each bomb stays
# just under it, so that the parser lets it through to the rules behind.
MAX_TOKENS = 2000
TIMEOUT = 15
# The attackers yield the processor to the server and the legitimate clients: on the
# real door they would run on machines of their own.
NICENESS = 10
# How long a silent websocket is held before it is dropped.
SILENT_SECONDS = 0.5


# --- payloads ------------------------------------------------------------------------


def repeated_fields(count: int = 1990) -> str:
    """`{ me { id id id ... } }`: graphql-core's overlapping-fields rule compares every
    pair of a selection set's fields."""
    return "query Bomb { me { " + " ".join(["id"] * count) + " } }\n# " + MARK


def many_aliases(count: int = 660) -> str:
    return "query Bomb { me { " + " ".join(f"a{i}: id" for i in range(count)) + " } }\n# " + MARK


def many_directives(count: int = 280) -> str:
    return "query Bomb { me { id " + " ".join(["@skip(if: false)"] * count) + " } }\n# " + MARK


def many_operations(count: int = 390) -> str:
    """Named operations, the first run (`operationName` O0)."""
    return " ".join(f"query O{i} {{ __typename }}" for i in range(count)) + "\n# " + MARK


BOMBS: dict[str, Callable[[], str]] = {
    "repeated fields": repeated_fields,
    "aliases": many_aliases,
    "directives": many_directives,
    "operations": many_operations,
}


def churn_refused(aliases: int = 220) -> str:
    """About 5 KB, refused for its aliases (the server allows 30), every name its own."""
    selections = " ".join(f"r{MARK}x{i}: __typename" for i in range(aliases))
    return f"query R{MARK} {{ {selections} }}"


def churn_accepted(aliases: int = 4) -> str:
    """Small and answered, every name its own."""
    selections = " ".join(f"a{MARK}x{i}: __typename" for i in range(aliases))
    return f"query A{MARK} {{ {selections} }}"


def graphql_body(query: str, operation: str | None = None, variables: Any = None) -> bytes:
    body: dict[str, Any] = {"query": query}
    if operation is not None:
        body["operationName"] = operation
    if variables is not None:
        body["variables"] = variables
    return orjson.dumps(body)


def login_body(sign_in: str, email: str, password: str) -> bytes:
    return graphql_body(sign_in, "SignIn", {"input": {"email": email, "password": password}})


def forged_address(n: int) -> str:
    """One of 62,500 addresses in 10.77.0.0/16, a different one for each n in turn."""
    n %= 62_500
    return f"10.77.{n // 250}.{n % 250 + 1}"


INBOX_BODY = orjson.dumps(
    {"type": "payment.succeeded", "amount": "25.00", "customerId": "Q3VzdG9tZXI6MQ=="}
)


def distinct(template: bytes, n: int) -> bytes:
    return template.replace(MARK.encode(), str(n).encode())


# --- the kinds of attack -------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    name: str
    rate: float  # offered per second
    in_flight: int  # at most this many at once


KINDS = (
    Kind("sign-in, unknown emails, one address", 15, 15),
    Kind("sign-in, wrong password, one address", 5, 5),
    Kind("sign-in, unknown emails, many addresses", 25, 20),
    Kind("validation bomb: repeated fields", 5, 2),
    Kind("validation bomb: aliases", 5, 2),
    Kind("validation bomb: directives", 5, 2),
    Kind("validation bomb: operations", 5, 2),
    Kind("churn, refused documents", 20, 2),
    Kind("churn, accepted documents", 20, 2),
    Kind("websocket churn", 20, 4),
    Kind("payments inbox, unsigned", 40, 4),
)


@dataclass
class Tally:
    sent: int = 0
    skipped: int = 0  # ticks that found every slot busy
    outcomes: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)  # each outcome's first message
    seconds: list[float] = field(default_factory=list)

    def add(self, what: str, message: str, seconds: float) -> None:
        self.outcomes[what] += 1
        self.examples.setdefault(what, message[:200])
        self.seconds.append(seconds)

    def figures(self) -> dict[str, Any]:
        return {
            "sent": self.sent,
            "skipped": self.skipped,
            "outcomes": dict(self.outcomes.most_common()),
            "examples": self.examples,
            "seconds": self.seconds,
        }


def outcome(status: int, content: bytes) -> tuple[str, str]:
    """An answer as `status code` (the first error's `extensions.code`, else the first
    user error's code, else `ok` when there is data), and its first message."""
    try:
        body = orjson.loads(content)
    except orjson.JSONDecodeError:
        return str(status), content[:200].decode(errors="replace")
    if not isinstance(body, dict):
        return str(status), ""
    errors = body.get("errors")
    if errors:
        code = (errors[0].get("extensions") or {}).get("code") or "error"
        return f"{status} {code}", str(errors[0].get("message"))
    for payload in (body.get("data") or {}).values():
        if isinstance(payload, dict) and payload.get("userErrors"):
            first = payload["userErrors"][0]
            return f"{status} {first.get('code')}", str(first.get("message"))
    if body.get("data"):
        return f"{status} ok", ""
    return str(status), ""


Request = tuple[str, bytes, dict[str, str]]  # path, body, headers
# The n-th request of a kind, made: its outcome and first message.
Call = Callable[[int], Awaitable[tuple[str, str]]]


class Attackers:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.base = spec["url"].removesuffix("/graphql")
        self.inbox = spec["inbox"]
        self.victim = spec["victim"]
        sign_in = spec["sign_in"]
        self.tallies = {kind.name: Tally() for kind in KINDS}
        self.session: aiohttp.ClientSession | None = None
        self.unknown = login_body(sign_in, f"nobody{MARK}@bench.test", "guess-" + MARK)
        self.wrong = login_body(sign_in, self.victim, "wrong-" + MARK)
        self.bombs = {
            name: graphql_body(make(), "O0" if name == "operations" else "Bomb")
            for name, make in BOMBS.items()
        }
        self.refused = graphql_body(churn_refused())
        self.accepted = graphql_body(churn_accepted())

    @staticmethod
    def _graphql(template: bytes, forged: bool = False) -> Callable[[int], Request]:
        """The n-th request of a kind: `template` made distinct by n, from this process's
        address or (forged) from the n-th of many."""

        def make(n: int) -> Request:
            headers = {"x-forwarded-for": forged_address(n)} if forged else {}
            return "/graphql", distinct(template, n), headers

        return make

    def _inbox(self, n: int) -> Request:
        name = f"nope{n}" if n % 4 == 3 else self.inbox
        return f"/hooks/payments/{name}", INBOX_BODY, {}

    async def _post(self, request: Request) -> tuple[str, str]:
        assert self.session is not None
        path, body, headers = request
        headers = {"content-type": "application/json", **headers}
        async with self.session.post(self.base + path, data=body, headers=headers) as response:
            return outcome(response.status, await response.read())

    async def _websocket(self, n: int) -> tuple[str, str]:
        """Connect, then (by n) drop at once, stay silent, or init anonymously or with a
        bad token and wait for the answer; then drop."""
        assert self.session is not None
        async with self.session.ws_connect(
            self.base + "/graphql", protocols=("graphql-transport-ws",), heartbeat=None
        ) as ws:
            way = n % 4
            if way == 0:
                return "opened, dropped", ""
            if way == 1:
                await asyncio.sleep(SILENT_SECONDS)
                return "opened, silent, dropped", ""
            payload = {} if way == 2 else {"authorization": f"Bearer bogus{n}"}
            await ws.send_str(
                orjson.dumps({"type": "connection_init", "payload": payload}).decode()
            )
            answer = await ws.receive(TIMEOUT)
            prefix = "init anonymously" if way == 2 else "init with a bad token"
            if answer.type is aiohttp.WSMsgType.TEXT:
                return f"{prefix}: {orjson.loads(answer.data).get('type')}", str(answer.data)
            return f"{prefix}: closed {ws.close_code}", str(answer.extra or "")

    def plans(self) -> list[tuple[Kind, Call]]:
        def post(make: Callable[[int], Request]) -> Call:
            return lambda n: self._post(make(n))

        calls = {
            "sign-in, unknown emails, one address": post(self._graphql(self.unknown)),
            "sign-in, wrong password, one address": post(self._graphql(self.wrong)),
            "sign-in, unknown emails, many addresses": post(
                self._graphql(self.unknown, forged=True)
            ),
            **{
                f"validation bomb: {name}": post(self._graphql(body))
                for name, body in self.bombs.items()
            },
            "churn, refused documents": post(self._graphql(self.refused)),
            "churn, accepted documents": post(self._graphql(self.accepted)),
            "websocket churn": self._websocket,
            "payments inbox, unsigned": post(self._inbox),
        }
        return [(kind, calls[kind.name]) for kind in KINDS]

    async def _paced(self, kind: Kind, call: Call, deadline: float) -> None:
        tally = self.tallies[kind.name]
        slots = asyncio.Semaphore(kind.in_flight)
        running: set[asyncio.Task[None]] = set()

        async def one(n: int) -> None:
            started = time.perf_counter()
            try:
                async with asyncio.timeout(TIMEOUT):
                    what, message = await call(n)
            except TimeoutError:
                what, message = "timeout", ""
            except (aiohttp.ClientError, OSError) as error:
                what, message = f"connection error: {type(error).__name__}", repr(error)
            finally:
                slots.release()
            tally.add(what, message, time.perf_counter() - started)

        start = time.perf_counter()
        tick = 0
        try:
            while time.perf_counter() < deadline:
                if slots.locked():
                    tally.skipped += 1
                else:
                    await slots.acquire()
                    tally.sent += 1
                    task = asyncio.create_task(one(tick))
                    running.add(task)
                    task.add_done_callback(running.discard)
                tick += 1
                await asyncio.sleep(max(0.0, start + tick / kind.rate - time.perf_counter()))
        finally:
            for task in list(running):
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)

    async def run(self, seconds: float, stop: Awaitable[Any]) -> None:
        deadline = time.perf_counter() + seconds
        connector = aiohttp.TCPConnector(limit=0, force_close=False)
        self.session = aiohttp.ClientSession(
            connector=connector, timeout=aiohttp.ClientTimeout(total=TIMEOUT)
        )
        try:
            loops = [
                asyncio.create_task(self._paced(kind, call, deadline))
                for kind, call in self.plans()
            ]
            answer("started", {})
            stopping = asyncio.ensure_future(stop)
            await asyncio.wait([*loops, stopping], return_when=asyncio.FIRST_COMPLETED)
            if stopping.done() or not all(loop.done() for loop in loops):
                for loop in loops:
                    loop.cancel()
            await asyncio.gather(*loops, return_exceptions=True)
            stopping.cancel()
        finally:
            await self.session.close()


async def _main(spec: dict[str, Any]) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)
    attackers = Attackers(spec)
    started = time.process_time()
    await attackers.run(float(spec["seconds"]), stdin.readline())
    return {
        "kinds": {name: tally.figures() for name, tally in attackers.tallies.items()},
        "cpu_seconds": round(time.process_time() - started, 2),
    }


def answer(kind: str, body: Any) -> None:
    sys.stdout.write(json.dumps({"kind": kind, "body": body}) + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench.attackers")
    p.add_argument("--spec", type=Path, required=True)
    args = p.parse_args(argv)
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    try:
        answer("result", asyncio.run(_main(json.loads(args.spec.read_text()))))
    except Exception as error:  # reported to the parent, which decides
        answer("failed", repr(error))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
