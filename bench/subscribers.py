"""Wall-display subscribers in a process of their own, so that receiving events does not
steal the load generator's event loop (and the load generator does not delay receipts).
It imports nothing of the project, so it starts in a fraction of a second.

Each subscriber is one websocket speaking graphql-transport-ws, authenticated by a display
token in connection_init, subscribed to `queueEvents` of its department. The sockets are
aiohttp's, whose frame reader is in C: the subscribers share the machine with the server
under test, and the `websockets` client took about 80 µs of CPU per message received,
as much as the server took to send it. The latency of
an event is its receipt time minus its `occurredAt` (the writing transaction's start,
`now()` in PostgreSQL, on the same clock): commit-to-receipt plus the transaction's own
few milliseconds, so an upper bound.

The parent drives it with one command per line on stdin, and it answers with one JSON
line on stdout: on "connect" it opens every subscription and answers "connected"; it
records latencies between "window" and "report"; it answers "totals" with the events each
subscriber received so far, and "totals N" also with how many of them came twice and how
many are events up to id N (the log's last event before a window); it stops on "quit", at
the end of its input, or at its deadline, whichever comes first.
"""

import argparse
import asyncio
import base64
import json
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import aiohttp
import orjson

SUBSCRIPTION = """
subscription Queue($department: String!) {
  queueEvents(department: $department) {
    cursor kind occurredAt task { id status workOrder { orderNumber } }
  }
}"""
CONNECT_CONCURRENCY = 50
CONNECT_TIMEOUT = 15


class Subscribers:
    def __init__(self, url: str, specs: list[tuple[str, str]], compression: bool) -> None:
        self.url = url
        self.specs = specs
        self.compression = compression
        self.session: aiohttp.ClientSession | None = None
        self.sockets: list[aiohttp.ClientWebSocketResponse] = []
        self.received = [0] * len(specs)
        # The ids of the events each subscriber received (a cursor is ["e", xid, id]).
        self.ids: list[list[int]] = [[] for _ in specs]
        self.window_received = [0] * len(specs)
        self.latencies: list[float] = []
        self.recording = False
        self.failed_to_connect = 0
        self.dropped = 0  # the server ended the subscription (error, complete or close)
        self.errors: list[str] = []
        self.readers: list[asyncio.Task[None]] = []

    def _error(self, message: str) -> None:
        if len(self.errors) < 5:
            self.errors.append(message[:300])

    async def _open(self, index: int, gate: asyncio.Semaphore) -> None:
        assert self.session is not None
        token, department = self.specs[index]
        async with gate:
            try:
                ws = await self.session.ws_connect(
                    self.url,
                    protocols=("graphql-transport-ws",),
                    compress=15 if self.compression else 0,
                    timeout=aiohttp.ClientWSTimeout(ws_close=CONNECT_TIMEOUT),
                    max_msg_size=0,
                    heartbeat=None,  # the server pings; aiohttp answers with pongs
                )
                # graphql-transport-ws speaks in text frames.
                await ws.send_str(
                    orjson.dumps(
                        {"type": "connection_init", "payload": {"authorization": f"Bearer {token}"}}
                    ).decode()
                )
                ack = orjson.loads(await asyncio.wait_for(ws.receive_str(), CONNECT_TIMEOUT))
                if ack.get("type") != "connection_ack":
                    raise RuntimeError(f"no connection_ack: {ack}")
                await ws.send_str(
                    orjson.dumps(
                        {
                            "id": "q",
                            "type": "subscribe",
                            "payload": {
                                "query": SUBSCRIPTION,
                                "operationName": "Queue",
                                "variables": {"department": department},
                            },
                        }
                    ).decode()
                )
            except (OSError, TimeoutError, aiohttp.ClientError, RuntimeError, ValueError) as error:
                self.failed_to_connect += 1
                self._error(f"connect: {error!r}")
                return
        self.sockets.append(ws)
        self.readers.append(asyncio.create_task(self._read(index, ws)))

    async def _read(self, index: int, ws: aiohttp.ClientWebSocketResponse) -> None:
        async for frame in ws:
            now = time.time()
            if frame.type is not aiohttp.WSMsgType.TEXT:
                break
            message: dict[str, Any] = orjson.loads(frame.data)
            kind = message.get("type")
            if kind == "next":
                payload = message.get("payload") or {}
                if payload.get("errors"):
                    self._error(f"next: {payload['errors']}")
                    continue
                event = payload["data"]["queueEvents"]
                self.received[index] += 1
                self.ids[index].append(json.loads(base64.urlsafe_b64decode(event["cursor"]))[2])
                if self.recording:
                    occurred = datetime.fromisoformat(event["occurredAt"]).timestamp()
                    self.latencies.append(now - occurred)
                    self.window_received[index] += 1
            elif kind == "ping":
                await ws.send_str('{"type": "pong"}')
            elif kind in ("error", "complete"):
                self.dropped += 1
                self._error(f"{kind}: {message}")
                return
        # The socket closed (or sent what graphql-transport-ws never sends) while subscribed.
        self.dropped += 1
        self._error(f"closed: {ws.close_code} {ws.exception()!r}")

    async def connect_all(self) -> None:
        # No limit on connections: each subscriber holds one for its life.
        self.session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        gate = asyncio.Semaphore(CONNECT_CONCURRENCY)
        await asyncio.gather(*(self._open(i, gate) for i in range(len(self.specs))))

    def window(self) -> None:
        self.latencies = []
        self.window_received = [0] * len(self.specs)
        self.recording = True

    def report(self) -> dict[str, Any]:
        self.recording = False
        return {
            "latencies": self.latencies,
            "events": sum(self.window_received),
            "subscribers_receiving": sum(1 for n in self.window_received if n),
            "connected": len(self.sockets),
            "failed_to_connect": self.failed_to_connect,
            "dropped": self.dropped,
            "errors": list(self.errors),
        }

    def totals(self, through: int) -> dict[str, list[int]]:
        """Per subscriber: events received, how many of them more than once, and how many
        distinct ones have an id up to `through`."""
        return {
            "received": list(self.received),
            "repeated": [len(ids) - len(set(ids)) for ids in self.ids],
            "before": [len({i for i in ids if i <= through}) for ids in self.ids],
        }

    async def close(self) -> None:
        for task in self.readers:
            task.cancel()
        await asyncio.gather(*self.readers, return_exceptions=True)
        await asyncio.gather(
            *(asyncio.wait_for(ws.close(), 5) for ws in self.sockets), return_exceptions=True
        )
        if self.session is not None:
            await self.session.close()


async def _main(url: str, specs: list[tuple[str, str]], compression: bool, deadline: float) -> None:
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)

    async def command() -> str:
        """The parent's next command; "quit" at end of input or at the deadline."""
        try:
            line = await asyncio.wait_for(stdin.readline(), max(0.0, deadline - time.time()))
        except TimeoutError:
            return "quit"
        return line.decode().strip() or "quit"

    subscribers = Subscribers(url, specs, compression)
    try:
        if await command() != "connect":
            return
        await asyncio.wait_for(subscribers.connect_all(), max(1.0, deadline - time.time()))
        answer("connected", subscribers.report())
        while (what := await command()) != "quit":
            if what == "window":
                subscribers.window()
            elif what == "report":
                answer("report", subscribers.report())
            elif what == "totals":
                answer("totals", {"received": list(subscribers.received)})
            elif what.startswith("totals "):
                answer("totals", subscribers.totals(int(what.split()[1])))
    finally:
        await subscribers.close()


def answer(kind: str, body: Any) -> None:
    sys.stdout.write(json.dumps({"kind": kind, "body": body}) + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    """`python -m bench.subscribers --url WS --specs FILE --seconds N`: FILE holds the
    [token, department code] pairs as JSON; the process ends by itself after N seconds."""
    p = argparse.ArgumentParser(prog="bench.subscribers")
    p.add_argument("--url", required=True)
    p.add_argument("--specs", type=Path, required=True)
    p.add_argument("--seconds", type=float, required=True)
    p.add_argument("--no-compression", action="store_true")
    args = p.parse_args(argv)
    specs = [(token, code) for token, code in json.loads(args.specs.read_text())]
    try:
        asyncio.run(_main(args.url, specs, not args.no_compression, time.time() + args.seconds))
    except Exception as error:  # reported to the parent, which decides
        answer("failed", repr(error))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
