"""A year of a busy shop beside a fresh one: what the floor's reads and writes cost with a
year of history behind them.

    .venv/bin/python -m bench.year            # about three minutes on a 2-core machine

Two shops of the same seed (6 production departments gating delivery, 24 workers, a
wall display of department p00), each in a database of its own with a `pressroom serve`
of its own, their histories written by bench/history.py up to the same moment (now):

- the year: `--orders` (50,000) work orders over 365 days, about 250,000 tasks,
  1,000,000 task moves and 1,700,000 events;
- the fresh shop: the same shop's last two weeks only. Its floor is exactly the year's
  (the same open orders, queues, newest orders and last week of events; only row ids
  differ), with nothing older behind it.

On each, the two taking turns request by request (other load on the machine weighs on
both alike; which goes first changes every round):

1. the wall display's first queue page (`WallQueue` of src/web/display/display.js,
   100 tasks) for p00, with its display token;
2. the dashboard's page (bench.dashboard's: 50 work orders and everything they show),
   as the admin;
3. a subscriber's replay from a cursor a week old: the wall display's `queueEvents`
   subscription over a websocket, `after` the last event of the log a week before the
   end, timed from the subscribe message to the last event of the department's log;
4. then, on tasks made for it as Sales makes them (TaskPool), `startTask` and
   `finishTask` through GraphQL, one at a time.

Prints p50 / p99 of each, and year / fresh (target: at most 1.5). Uses the embedded
PostgreSQL (`.pressroom/bench-pgdata`) or DATABASE_URL, in two fresh databases dropped at
the end.
"""

import argparse
import asyncio
import contextlib
import functools
import json
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/year.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiohttp
import asyncpg
from rich.table import Table

from bench import dashboard_page, dashboard_seed, fixture, history
from bench.load import GraphQLClients, KeepAliveClients
from bench.output import fmt, log, verdict
from bench.servers import ServerProcess
from bench.shop import Shop, TaskPool, seed_shop
from bench.stats import ratio, summary_ms
from db import events
from db.events import Position

TARGET_RATIO = 1.5
WEEK = timedelta(days=7)
# The fresh shop's span: the week replayed and the week before, whose open work the
# replayed week carried in.
FRESH_SPAN = 2 * WEEK
# The log's last event a week before the end: where the replay starts. (ORDER BY names
# the table's columns: a bare `xid` there is the text of the SELECT list.)
WEEK_OLD = """
SELECT xid::text AS xid, id FROM events WHERE occurred_at <= $1
ORDER BY events.xid DESC, events.id DESC LIMIT 1"""
# What the replay delivers: the department's events after that cursor.
REPLAYED = """
SELECT count(*) FROM events WHERE department_id = $1 AND (xid, id) > ($2::text::xid8, $3)"""
REPLAY_TIMEOUT = 300


WALL_QUEUE = fixture.web_operation("display/display.js", "WALL_QUEUE")
WALL_QUEUE_EVENTS = fixture.web_operation("display/display.js", "WALL_QUEUE_EVENTS")


@dataclass
class Floor:
    """One shop under measure, and what was measured on it."""

    name: str
    url: str
    shop: Shop = field(default_factory=Shop)
    server: ServerProcess | None = None
    admin_token: str = ""
    after: Position = events.START  # a week before the end
    built: dict[str, Any] = field(default_factory=dict)
    # Made once its server is up: one keep-alive connection for the pages, one for moves.
    readers: KeepAliveClients | None = None
    movers: GraphQLClients | None = None
    seconds: dict[str, list[float]] = field(default_factory=dict)
    last: dict[str, bytes] = field(default_factory=dict)  # the last answer of each page
    replayed: list[int] = field(default_factory=list)

    @property
    def http_url(self) -> str:
        assert self.server is not None
        return self.server.http_url

    @property
    def display(self) -> tuple[str, str]:
        return self.shop.displays[0]

    def took(self, measure: str, seconds: list[float]) -> None:
        self.seconds.setdefault(measure, []).extend(seconds)

    def requests(self) -> dict[str, tuple[bytes, dict[str, str]]]:
        """The pages' requests, as bodies and headers."""
        token, code = self.display
        queue = {"query": WALL_QUEUE, "variables": {"department": code}}
        page = {
            "query": dashboard_page.DASHBOARD_PAGE,
            "variables": {"first": dashboard_page.PAGE_SIZE},
        }
        return {
            "queue": (json.dumps(queue).encode(), {"authorization": f"Bearer {token}"}),
            "dashboard": (
                json.dumps(page).encode(),
                {"authorization": f"Bearer {self.admin_token}"},
            ),
        }


async def prepare(floor: Floor, shape: history.Shape, end: datetime) -> None:
    """The floor's database, shop and history, and the cursor a week old."""
    await fixture.create_database(floor.url)
    floor.shop = await seed_shop(
        floor.url, departments=6, workers=24, displays=1, gates_delivery=True
    )
    floor.admin_token = await dashboard_seed.admin_token(floor.url, floor.shop)
    log(f"{floor.name}: writing its history...")
    floor.built = (await history.build(floor.url, floor.shop, shape, end)).summary()
    log(f"{floor.name}: loaded in {floor.built['load_seconds']} s")
    conn = await asyncpg.connect(fixture.dsn(floor.url))
    try:
        row = await conn.fetchrow(WEEK_OLD, end - WEEK)
    finally:
        await conn.close()
    floor.after = Position(int(row["xid"]), row["id"]) if row else events.START


async def page(floor: Floor, measure: str) -> None:
    """One answer of the page `measure` (queue or dashboard), timed."""
    assert floor.readers is not None
    body, headers = floor.requests()[measure]
    started = time.perf_counter()
    status, content = await floor.readers.post(0, floor.http_url, body, headers)
    floor.took(measure, [time.perf_counter() - started])
    if status != 200 or b'"errors"' in content:
        raise RuntimeError(f"{floor.name}: HTTP {status}: {content[:500]!r}")
    floor.last[measure] = content


async def expected_replay(floor: Floor, department_id: int) -> int:
    conn = await asyncpg.connect(fixture.dsn(floor.url))
    try:
        count: int = await conn.fetchval(
            REPLAYED, department_id, str(floor.after.xid), floor.after.id
        )
    finally:
        await conn.close()
    return count


async def replay(floor: Floor, session: aiohttp.ClientSession) -> tuple[float, int]:
    """The wall display's subscription from the cursor a week old, over a websocket:
    seconds from the subscribe message to the last event of the log, and how many."""
    assert floor.server is not None
    token, code = floor.display
    department = floor.shop.department_ids[floor.shop.department_codes.index(code)]
    expected = await expected_replay(floor, department)
    async with session.ws_connect(
        floor.server.ws_url, protocols=("graphql-transport-ws",), max_msg_size=0
    ) as ws:
        await ws.send_json(
            {"type": "connection_init", "payload": {"authorization": f"Bearer {token}"}}
        )
        ack = await ws.receive_json()
        if ack.get("type") != "connection_ack":
            raise RuntimeError(f"no connection_ack: {ack}")
        variables = {"department": code, "after": events.encode_position(floor.after)}
        started = time.perf_counter()
        await ws.send_json(
            {
                "id": "replay",
                "type": "subscribe",
                "payload": {"query": WALL_QUEUE_EVENTS, "variables": variables},
            }
        )
        received = 0
        async with asyncio.timeout(REPLAY_TIMEOUT):
            while received < expected:
                message = await ws.receive_json()
                if message.get("type") == "ping":
                    await ws.send_json({"type": "pong"})
                elif message.get("type") != "next" or message["payload"].get("errors"):
                    raise RuntimeError(f"replay: {str(message)[:500]}")
                else:
                    received += 1
        return time.perf_counter() - started, received


async def move(floor: Floor, task: int) -> None:
    """startTask, then finishTask, of `task`, timed."""
    assert floor.movers is not None
    for name, measure in (("StartTask", "startTask"), ("FinishTask", "finishTask")):
        result = await floor.movers.each(name, [task])
        if result.errors:
            raise RuntimeError(f"{floor.name}: {result.first_error}")
        floor.took(measure, result.latencies)


def in_turn(floors: list[Floor], n: int) -> list[Floor]:
    """The floors in the order of round `n`: each goes first every other round."""
    return floors if n % 2 == 0 else floors[::-1]


async def reads(floors: list[Floor], n: int, count: int, session: aiohttp.ClientSession) -> None:
    """A round of reads: `count` of each page, then a replay, the floors taking turns."""
    for measure in ("queue", "dashboard"):
        for _ in range(count):
            for floor in in_turn(floors, n):
                await page(floor, measure)
    for floor in in_turn(floors, n):
        took, received = await replay(floor, session)
        floor.took("replay", [took])
        floor.replayed.append(received)


def same_floor(fresh: Floor, year: Floor) -> dict[str, bool]:
    """Whether the two shops answered the same pages (row ids aside)."""

    def numbers(answer: bytes) -> list[str]:
        edges = json.loads(answer)["data"]["queue"]["edges"]
        return [e["node"]["workOrder"]["orderNumber"] for e in edges]

    def shape(answer: bytes) -> dashboard_page.PageShape:
        return dashboard_page.page_shape(json.loads(answer), dashboard_page.PRESSROOM_FIELDS)

    return {
        "queue": numbers(fresh.last["queue"]) == numbers(year.last["queue"]),
        "dashboard": shape(fresh.last["dashboard"]) == shape(year.last["dashboard"]),
        "replay": fresh.replayed == year.replayed,
    }


MEASURES = ("queue", "dashboard", "replay", "startTask", "finishTask")


async def run(args: argparse.Namespace, url: str, embedded_server: bool) -> dict[str, Any]:
    await fixture.drop_stale_databases(url)
    year_shape = history.Shape(orders=args.orders, every=history.YEAR / args.orders)
    fresh = Floor("fresh", fixture.sibling_database(url, "fresh"))
    year = Floor("year", url)
    end = datetime.now(UTC).replace(microsecond=0)
    try:
        await prepare(fresh, year_shape.last(FRESH_SPAN), end)
        await prepare(year, year_shape, end)
        floors = [fresh, year]
        async with contextlib.AsyncExitStack() as running:
            for floor in floors:
                floor.server = ServerProcess(floor.url, extra_env=history.KEEP_THE_YEAR)
                await running.enter_async_context(floor.server.running())
                floor.readers = KeepAliveClients(1, timeout=60)
                floor.movers = GraphQLClients(floor.http_url, floor.shop.worker_tokens, 1)
                running.push_async_callback(floor.readers.close)
                running.push_async_callback(floor.movers.close)
            session = await running.enter_async_context(aiohttp.ClientSession())
            # Warm: statements prepared, the tokens' viewers cached.
            await reads(floors, 0, 3, session)
            for floor in floors:
                floor.seconds.clear()
                floor.replayed.clear()
            for n in range(args.rounds):
                log(f"reads, round {n + 1} of {args.rounds}")
                await reads(floors, n, args.pages, session)
            log("making tasks to start and finish")
            pools = [
                await TaskPool(f.url, f.shop, prefix="T").take(args.rounds * args.moves + 3)
                for f in floors
            ]
            for floor, pool in zip(floors, pools, strict=True):  # warm
                for _ in range(3):
                    await move(floor, pool.pop())
                del floor.seconds["startTask"], floor.seconds["finishTask"]
            for n in range(args.rounds):
                log(f"moves, round {n + 1} of {args.rounds}")
                for _ in range(args.moves):
                    for floor in in_turn(floors, n):
                        await move(floor, pools[floors.index(floor)].pop())
    finally:
        with contextlib.suppress(Exception):
            await fixture.drop_database(fresh.url)
    return {
        "end": end.isoformat(),
        "built": {f.name: f.built for f in floors},
        "replayed": {f.name: f.replayed for f in floors},
        "same": same_floor(fresh, year),
        "measures": {
            measure: {
                "fresh": summary_ms(fresh.seconds[measure]),
                "year": summary_ms(year.seconds[measure]),
            }
            for measure in MEASURES
        },
    }


TITLES = {
    "queue": "wall display's queue page (100 tasks of p00)",
    "dashboard": "dashboard page (50 work orders)",
    "replay": "replay of a week of p00's events over a websocket",
    "startTask": "startTask",
    "finishTask": "finishTask",
}


def report(results: dict[str, Any]) -> Table:
    table = Table(title="A year of a busy shop beside a fresh one", title_justify="left")
    for name, justify in (
        ("measure", "left"),
        ("fresh p50 / p99 ms", "right"),
        ("year p50 / p99 ms", "right"),
        ("year / fresh p50 / p99", "right"),
        ("target", "right"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    table.add_column("")
    for measure, figures in results["measures"].items():
        fresh, year = figures["fresh"], figures["year"]
        p50, p99 = ratio(year["p50_ms"], fresh["p50_ms"]), ratio(year["p99_ms"], fresh["p99_ms"])
        table.add_row(
            TITLES[measure],
            f"{fmt(fresh['p50_ms'], '', 1)} / {fmt(fresh['p99_ms'], '', 1)}",
            f"{fmt(year['p50_ms'], '', 1)} / {fmt(year['p99_ms'], '', 1)}",
            f"{fmt(p50, '', 2)} / {fmt(p99, '', 2)}",
            f"<= {TARGET_RATIO:g}",
            verdict(p50, lambda v: v <= TARGET_RATIO),
        )
    table.add_section()
    for name, built in results["built"].items():
        table.add_row(
            f"{name}: orders / tasks / task moves / events",
            f"{built['work_orders']:,} / {built['department_tasks']:,} / "
            f"{built['task_transitions']:,} / {built['events']:,}",
        )
        table.add_row(
            "  written in (generated + loaded)",
            f"{built['generate_seconds'] + built['load_seconds']:.0f} s "
            f"({built['generate_seconds']:.0f} + {built['load_seconds']:.0f})",
        )
    replayed = results["replayed"]
    table.add_row(
        "events per replay, fresh / year", f"{replayed['fresh'][0]:,} / {replayed['year'][0]:,}"
    )
    same = results["same"]
    table.add_row(
        "the same queue page, dashboard page and replay on both",
        " / ".join("yes" if same[k] else "[red]no[/red]" for k in ("queue", "dashboard", "replay")),
    )
    return table


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench.year", description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--orders", type=int, default=50_000, help="work orders in the year (50000)")
    p.add_argument("--rounds", type=int, default=6, help="rounds (6)")
    p.add_argument("--pages", type=int, default=20, help="pages of each kind a round (20)")
    p.add_argument("--moves", type=int, default=20, help="tasks started and finished a round (20)")
    args = p.parse_args(argv)
    return fixture.run_and_report("python -m bench.year", functools.partial(run, args), report)


if __name__ == "__main__":
    sys.exit(main())
