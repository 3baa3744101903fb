"""Part 2 of `python -m bench.customer`: customer pages on live updates. Each page does what
the page's script does (loads, then polls its state and loads again when it differs); the
orders change under them; what each page saw, and when, is read from its log."""

import asyncio
import contextlib
import random
import re
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import orjson
import psutil

from api.ids import encode_id
from bench.customer_measuring import Plan, RssSampler, meter_of, orders_of_tasks
from bench.floor import WORKERS
from bench.load import HTTP_ERRORS, START_TASK, KeepAliveClients
from bench.output import log
from bench.servers import ServerProcess
from bench.shop import TaskPool, seed_shop
from bench.stats import summary_ms
from db import customer_links
from db.engine import create_engine, unit_of_work

POLL_SECONDS = 60  # customer.js: EVERY_MS
PAGE_TIMEOUT = 30
PAGE_RSS_EVERY = 0.5
WARM_LINKS = 20
LIFTED = {"PRESSROOM_CUSTOMER_PAGE_REQUESTS_PER_ADDRESS": "1000000/minute"}
FINGERPRINT = re.compile(rb'data-fingerprint="([0-9a-f]+)"')


@dataclass
class Poll:
    sent: float
    answered: float
    status: int
    fingerprint: str | None


@dataclass
class PageLog:
    """What one page did: when it loaded (and with what fingerprint), and its polls."""

    task_id: int
    loads: list[tuple[float, float, str | None]] = field(default_factory=list)
    polls: list[Poll] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)

    @property
    def first_fingerprint(self) -> str | None:
        return self.loads[0][2] if self.loads else None


@dataclass(frozen=True)
class Change:
    sent: float  # the startTask request sent: the change is committed after
    answered: float  # its answer received: the change was committed before


def seen_figures(pages: list[PageLog], changes: dict[int, Change]) -> dict[str, Any]:
    """For each page whose order changed: the time from the change to the poll that saw
    it (its answer received), the wait for that poll to be sent, and the polls sent after
    the change was committed that still showed the order as before (stale)."""
    to_see: list[float] = []
    to_poll: list[float] = []
    stale = unseen = 0
    for page in pages:
        change = changes.get(page.task_id)
        if change is None:
            continue
        before = page.first_fingerprint
        seen = None
        for poll in page.polls:
            if poll.status != 200 or poll.answered < change.sent:
                continue
            if poll.fingerprint != before:
                seen = poll
                break
            if poll.sent >= change.answered:
                stale += 1
        if seen is None:
            unseen += 1
            continue
        to_see.append(seen.answered - change.sent)
        to_poll.append(max(0.0, seen.sent - change.answered))
    return {
        "pages": len(to_see) + unseen,
        "seen": len(to_see),
        "unseen": unseen,
        "stale_polls": stale,
        "to_see": summary_ms(to_see),
        "to_poll": summary_ms(to_poll),
    }


def answer_times(pages: list[PageLog], start: float, end: float) -> dict[str, Any]:
    """The state endpoint's answer times of the polls sent in [start, end), and their
    statuses."""
    polls = [p for page in pages for p in page.polls if start <= p.sent < end]
    statuses = Counter(str(p.status) for p in polls)
    return {
        **summary_ms([p.answered - p.sent for p in polls if p.status == 200]),
        "statuses": dict(statuses),
    }


class Page:
    """One customer's page, as customer.js keeps it: loaded, then its state asked for every
    poll interval from that moment, and loaded again when the state differs."""

    def __init__(self, base: str, secret: str, log: PageLog) -> None:
        self.base = base
        self.secret = secret
        self.log = log
        self.fingerprint: str | None = None

    async def load(self, session: aiohttp.ClientSession) -> None:
        sent = time.perf_counter()
        async with session.get(f"{self.base}/c/{self.secret}") as response:
            body = await response.read()
        found = FINGERPRINT.search(body)
        if response.status != 200 or found is None:
            self.log.errors[f"page {response.status}"] += 1
            return
        self.fingerprint = found.group(1).decode()
        self.log.loads.append((sent, time.perf_counter(), self.fingerprint))

    async def poll(self, session: aiohttp.ClientSession) -> None:
        sent = time.perf_counter()
        async with session.get(f"{self.base}/c/{self.secret}/state") as response:
            body = await response.read()
        answered = time.perf_counter()
        fingerprint = orjson.loads(body).get("fingerprint") if response.status == 200 else None
        self.log.polls.append(Poll(sent, answered, response.status, fingerprint))
        if fingerprint is not None and fingerprint != self.fingerprint:
            await self.load(session)

    async def run(self, opens_at: float, every: float, until: float) -> None:
        timeout = aiohttp.ClientTimeout(total=PAGE_TIMEOUT)
        connector = aiohttp.TCPConnector(limit=1)
        async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
            await asyncio.sleep(max(0.0, opens_at - time.perf_counter()))
            try:
                await self.load(session)
            except (*HTTP_ERRORS, ValueError) as error:
                self.log.errors[type(error).__name__] += 1
                return
            # setInterval from the script's start: a fixed phase within the interval.
            next_at = time.perf_counter() + every
            while next_at < until:
                await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
                try:
                    await self.poll(session)
                except (*HTTP_ERRORS, ValueError) as error:
                    self.log.errors[type(error).__name__] += 1
                next_at += every


async def make_links(url: str, task_ids: list[int], admin_id: int) -> dict[int, str]:
    """A customer link to each task's order, made as createCustomerLink makes them: each
    task's link's secret."""
    orders = await orders_of_tasks(url, task_ids)
    engine = create_engine(url, pool_size=1, max_overflow=0)
    secrets = {}
    try:
        async with unit_of_work(engine) as conn:
            for task_id in task_ids:
                made = await customer_links.create(conn, orders[task_id], created_by=admin_id)
                secrets[task_id] = made.secret
    finally:
        await engine.dispose()
    return secrets


async def start_tasks(url: str, tokens: list[str], task_ids: list[int]) -> dict[int, Change]:
    """Every task started by WORKERS clients at once, in an order of their own, each
    request's times kept."""
    http = KeepAliveClients(WORKERS, timeout=PAGE_TIMEOUT)
    changes: dict[int, Change] = {}
    # Not in the order the pages opened: each page's wait for its next poll must not follow
    # from when its order's turn came.
    todo = list(task_ids)
    random.Random(len(todo)).shuffle(todo)

    async def worker(client: int) -> None:
        headers = {"authorization": f"Bearer {tokens[client % len(tokens)]}"}
        while todo:
            task_id = todo.pop()
            body = orjson.dumps(
                {
                    "query": START_TASK,
                    "operationName": "StartTask",
                    "variables": {"input": {"taskId": encode_id("DepartmentTask", task_id)}},
                }
            )
            sent = time.perf_counter()
            with contextlib.suppress(*HTTP_ERRORS, ValueError):
                _, content = await http.post(client, url, body, headers)
                payload = (orjson.loads(content).get("data") or {}).get("startTask")
                if payload and payload["changed"]:
                    changes[task_id] = Change(sent, time.perf_counter())

    try:
        await asyncio.gather(*(worker(c) for c in range(WORKERS)))
    finally:
        await http.close()
    return changes


def server_connections(pid: int | None, port: int) -> int:
    """TCP connections the server holds open on its port."""
    if pid is None:
        return 0
    with contextlib.suppress(psutil.Error):
        return sum(
            1
            for c in psutil.Process(pid).net_connections(kind="tcp")
            if c.laddr and c.laddr.port == port and c.status == psutil.CONN_ESTABLISHED
        )
    return 0


class PagesBench:
    def __init__(self, plan: Plan, url: str, postmaster: int | None) -> None:
        self.plan = plan
        self.url = url
        self.postmaster = postmaster

    async def run(self) -> dict[str, Any]:
        plan = self.plan
        shop = await seed_shop(self.url, departments=1, workers=WORKERS, displays=0)
        task_ids = await TaskPool(self.url, shop, prefix="C").take(plan.pages + WARM_LINKS)
        secrets = await make_links(self.url, task_ids, shop.admin_id)
        warm, paged = task_ids[:WARM_LINKS], task_ids[WARM_LINKS:]

        log(f"part 2: starting `pressroom serve` with {LIFTED}")
        server = ServerProcess(self.url, extra_env=LIFTED)
        results: dict[str, Any] = {"pages": plan.pages, "poll_seconds": plan.poll_seconds}
        async with server.running():
            base = server.http_url.removesuffix("/graphql")
            # Warmed up: the first requests of a kind load code and fill caches.
            warm_logs = [PageLog(t) for t in warm]
            async with aiohttp.ClientSession() as session:
                for _ in range(3):
                    for page_log in warm_logs:
                        page = Page(base, secrets[page_log.task_id], page_log)
                        await page.load(session)
                        await page.poll(session)
            rss = RssSampler(server.pid, PAGE_RSS_EVERY)
            rss.start()
            connections: dict[str, list[int]] = {"idle": [], "open": []}
            try:
                await asyncio.sleep(5)
                connections["idle"].append(server_connections(server.pid, server.port))
                logs = [PageLog(t) for t in paged]
                every = plan.poll_seconds
                t0 = time.perf_counter() + 1
                opened = t0 + every
                change_at = opened + plan.rounds * every
                until = change_at + every + 10
                pages = [
                    Page(base, secrets[page_log.task_id], page_log).run(
                        t0 + i * every / len(logs), every, until
                    )
                    for i, page_log in enumerate(logs)
                ]
                running = asyncio.gather(*pages)
                meter = meter_of(server, self.postmaster)
                rss.stage = "opening"
                meter.start()
                log(f"part 2: {len(logs):,} pages opening over {every:g} s")
                await asyncio.sleep(max(0.0, opened - time.perf_counter()))
                results["cpu_opening"] = meter.stop()
                rss.stage = "open"
                meter.start()
                log(f"part 2: the pages poll for {plan.rounds} x {every:g} s")
                while time.perf_counter() < change_at:
                    connections["open"].append(server_connections(server.pid, server.port))
                    await asyncio.sleep(min(5.0, max(0.0, change_at - time.perf_counter())))
                results["cpu_open"] = meter.stop()
                rss.stage = "change"
                meter.start()
                log(f"part 2: starting the {len(logs):,} orders' tasks; the pages poll on")
                changed_at = time.perf_counter()
                changes = await start_tasks(server.http_url, shop.worker_tokens, paged)
                results["change"] = {
                    "started": len(changes),
                    "seconds": round(time.perf_counter() - changed_at, 2),
                }
                await running
                results["cpu_change"] = meter.stop()
                rss.stage = "closed"
                await asyncio.sleep(5)
            finally:
                await rss.stop()
        results["page_loads"] = summary_ms([a - s for page in logs for s, a, _ in page.loads])
        results["page_errors"] = dict(sum((page.errors for page in logs), Counter()))
        results["state_open"] = answer_times(logs, opened, change_at)
        results["state_change"] = answer_times(logs, change_at, until)
        results["seen"] = seen_figures(logs, changes)
        idle, open_ = rss.of("idle"), rss.of("open")
        if idle and open_:
            results["rss_idle_mb"] = round(statistics.median(idle), 1)
            results["rss_open_mb"] = round(statistics.median(open_), 1)
            results["rss_open_peak_mb"] = round(max(open_), 1)
            results["kb_per_page"] = round(
                (results["rss_open_mb"] - results["rss_idle_mb"]) * 1024 / len(logs), 1
            )
        results["connections"] = {
            "idle": connections["idle"][0] if connections["idle"] else None,
            "open_median": statistics.median(connections["open"]) if connections["open"] else None,
        }
        return results
