"""The customer's side: a 25 MB proof uploaded beside the floor, and 1,000 customer pages
kept current.

    .venv/bin/python -m bench.customer            # about 9 minutes
    .venv/bin/python -m bench.customer --quick    # about 3 minutes

Two parts in one run, each with its own `pressroom serve` in a subprocess on one fresh
database (bench/fixture.py):

1. **A proof uploaded beside the floor.** 8 workers (bench.hostile's: session tokens,
   keep-alive clients, a cycle a second each of `startTask`, `finishTask` and a queue
   page) work through phases of `--phase-seconds`: one without uploads, then one per kind
   of file, in which an admin uploads that file as the next version of one order, one
   upload after another (`POST /orders/{id}/proofs`), for the whole phase. The files are
   real and pass the server's checks, each just under PRESSROOM_PROOF_MAX_MB (25 MiB),
   made of random bytes (nothing compresses): a PDF whose 25 MB is an attached file its
   page never draws (what streaming alone costs), a PDF whose one page is a 25 MB photo
   (drawn for the preview, so PDFium decodes it), and a PNG of noise (decoded whole by
   Pillow, as every image is). Figures: each request's p50 / p99 with uploads beside it
   against without (target: p99 at most 1.5 times), and the server's RSS sampled every
   50 ms: its peak over the phase against its RSS before the phase's first upload
   (target: growth under twice the file's size).
2. **Customer pages on live updates.** `--pages` orders, each with a customer link; one
   page per link, each an aiohttp session of its own (a browser), does what the page's
   script (src/routes/static/customer/customer.js) does: it loads `/c/{secret}`, then asks
   `/c/{secret}/state` every `--poll-seconds` (60, the script's interval) from the moment
   it loaded, and loads the page again when the state's fingerprint differs from the
   page's. The pages open over one poll interval, so their polls are spread over it; they
   poll for `--rounds` intervals, then 8 workers start every order's task (each page's
   stage goes from "Received" to "In design") and the pages poll one more interval.
   Figures: the state endpoint's answer time under the pages (p50 / p99); for each page,
   the time from its order's change (the `startTask` request sent) to the poll that saw
   it, and how many polls sent after the change was committed (its answer received) still
   missed it (target 0); the server's RSS with the pages open against before (per page).

   With a poll a minute, an update reaches a page up to a minute after its change (the
   time to its next poll, which the change cannot move) plus the state's answer time:
   the server's part, which is what the target of 1 s is measured on here.

   The customer page's limits (routes/customer_policy.py) allow 300 requests a minute from
   one address: every page here comes from 127.0.0.1, so the server runs with
   PRESSROOM_CUSTOMER_PAGE_REQUESTS_PER_ADDRESS lifted (`LIFTED`). Each link keeps its own
   limit (60 a minute); a page asks once.

Prints the figures and the CPU each process group used in each phase (this machine's
cores are shared by the server, PostgreSQL, the bench and whatever else runs on it).
Uses the embedded PostgreSQL (`.pressroom/bench-pgdata`) or DATABASE_URL, in a fresh
database dropped at the end.
"""

import argparse
import asyncio
import contextlib
import io
import json
import math
import os
import random
import re
import statistics
import sys
import tempfile
import time
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/customer.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiohttp
import asyncpg
import orjson
import psutil
from PIL import Image
from rich.console import Console, Group
from rich.table import Table

from api.ids import encode_id
from bench import dashboard_seed, fixture
from bench.floor import READ_TASKS, REQUESTS, FloorTally, Workers
from bench.load import HTTP_ERRORS, START_TASK, KeepAliveClients
from bench.output import fmt, log, verdict
from bench.servers import ServerProcess
from bench.shop import TaskPool, seed_shop
from bench.stats import CpuMeter, process_tree, ratio, summary_ms, this_process
from db import customer_links
from db.engine import create_engine, unit_of_work

WORKERS = 8  # bench.hostile's Workers, a cycle a second each
DEPARTMENTS = 4  # worked; one more holds the queue page the workers read
# Just under PRESSROOM_PROOF_MAX_MB's default, 25 MiB.
FILE_BYTES = 25 * 2**20 - 16 * 2**10
RSS_EVERY = 0.05
UPLOAD_TIMEOUT = 120
TARGET_P99_RATIO = 1.5
TARGET_RSS_TIMES_FILE = 2.0

POLL_SECONDS = 60  # customer.js: EVERY_MS
PAGE_TIMEOUT = 30
PAGE_RSS_EVERY = 0.5
WARM_LINKS = 20
TARGET_STATE_P99_MS = 1000.0
LIFTED = {"PRESSROOM_CUSTOMER_PAGE_REQUESTS_PER_ADDRESS": "1000000/minute"}
FINGERPRINT = re.compile(rb'data-fingerprint="([0-9a-f]+)"')


@dataclass(frozen=True)
class Plan:
    phase_seconds: float
    kinds: tuple[str, ...]
    pages: int
    poll_seconds: float
    rounds: int
    json: Path | None


# --- the files ---------------------------------------------------------------------------


def pdf(objects: list[bytes]) -> bytes:
    """A PDF of these objects (numbered from 1, the first the catalog), with its cross
    reference table and trailer: what a reader needs to open it."""
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\n" % (len(objects) + 1))
    out.write(b"startxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


def stream(dictionary: bytes, data: bytes) -> bytes:
    return b"<< " + dictionary + b" /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


PAGES_OBJECT = b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>"
A4 = b"/MediaBox [0 0 595 842]"


def pdf_attached(size: int) -> bytes:
    """An A4 page with a coloured box, and a file attached to the document (random bytes)
    that fills it to `size`: the page is drawn without reading the attachment."""

    def made(padding: int) -> bytes:
        return pdf(
            [
                b"<< /Type /Catalog /Pages 2 0 R"
                b" /Names << /EmbeddedFiles << /Names [(artwork.bin) 6 0 R] >> >> >>",
                PAGES_OBJECT,
                b"<< /Type /Page /Parent 2 0 R " + A4 + b" /Contents 4 0 R >>",
                stream(b"", b"0.2 0.4 0.8 rg 50 50 495 742 re f"),
                stream(b"/Type /EmbeddedFile", os.urandom(padding)),
                b"<< /Type /Filespec /F (artwork.bin) /UF (artwork.bin) /EF << /F 5 0 R >> >>",
            ]
        )

    padded = made(size - len(made(0)))
    # The padding's length, written in the PDF, may take more digits than 0 did.
    return made(size - len(made(0)) - (len(padded) - size))


def pdf_photo(size: int) -> bytes:
    """An A4 page filled by one RGB image of random pixels, stored Flate-compressed (which
    random bytes do not shrink), as large as fits in `size`."""
    overhead = len(_photo_pdf(1, b"x"))
    side = math.isqrt((size - overhead) * 999 // 1000 // 3)
    data = zlib.compress(os.urandom(side * side * 3), 1)
    made = _photo_pdf(side, data)
    if len(made) > size:
        raise ValueError(f"the photo PDF came out at {len(made):,} bytes, over {size:,}")
    return made


def _photo_pdf(side: int, data: bytes) -> bytes:
    return pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            PAGES_OBJECT,
            b"<< /Type /Page /Parent 2 0 R " + A4 + b" /Resources << /XObject << /Im1 5 0 R >>"
            b" >> /Contents 4 0 R >>",
            stream(b"", b"q 595 0 0 842 0 0 cm /Im1 Do Q"),
            stream(
                b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB"
                b" /BitsPerComponent 8 /Filter /FlateDecode" % (side, side),
                data,
            ),
        ]
    )


def png_noise(size: int) -> bytes:
    """A square PNG of random RGB pixels, stored uncompressed, as large as fits in `size`."""
    side = math.isqrt(size * 999 // 1000 // 3)
    out = io.BytesIO()
    Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(
        out, format="PNG", compress_level=0
    )
    made = out.getvalue()
    if len(made) > size:
        raise ValueError(f"the PNG came out at {len(made):,} bytes, over {size:,}")
    return made


@dataclass(frozen=True)
class Kind:
    label: str
    file_name: str
    make: Callable[[int], bytes]


KINDS = {
    "pdf-attached": Kind("PDF, 25 MB attached", "attached.pdf", pdf_attached),
    "pdf-photo": Kind("PDF, a 25 MB photo", "photo.pdf", pdf_photo),
    "png": Kind("PNG, 25 MB of noise", "noise.png", png_noise),
}


# --- part 1: uploads beside the floor -----------------------------------------------------


class RssSampler:
    """The server's RSS (its process tree) every `every` seconds, labelled with the stage."""

    def __init__(self, pid: int | None, every: float) -> None:
        self.group = process_tree(pid)
        self.every = every
        self.stage = "idle"
        self.samples: list[tuple[float, str, float]] = []
        self.task: asyncio.Task[None] | None = None

    def now_mb(self) -> float:
        total = 0
        for process in self.group():
            with contextlib.suppress(psutil.Error):
                total += process.memory_info().rss
        return total / 2**20

    async def _run(self) -> None:
        while True:
            self.samples.append((time.perf_counter(), self.stage, self.now_mb()))
            await asyncio.sleep(self.every)

    def start(self) -> None:
        self.task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)

    def of(self, stage: str) -> list[float]:
        return [mb for _, s, mb in self.samples if s == stage]


@dataclass
class Uploads:
    seconds: list[float] = field(default_factory=list)
    refused: Counter[str] = field(default_factory=Counter)


async def upload_loop(
    url: str, token: str, path: Path, name: str, deadline: float, done: Uploads
) -> None:
    """One upload after another until the deadline (the last one may end past it)."""
    timeout = aiohttp.ClientTimeout(total=UPLOAD_TIMEOUT)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            try:
                with path.open("rb") as file:
                    form = aiohttp.FormData()
                    form.add_field(
                        "file", file, filename=name, content_type="application/octet-stream"
                    )
                    async with session.post(
                        url, data=form, headers={"authorization": f"Bearer {token}"}
                    ) as response:
                        body = await response.read()
                        if response.status != 201:
                            done.refused[f"{response.status}: {body[:200]!r}"] += 1
                            await asyncio.sleep(1)
                            continue
            except HTTP_ERRORS as error:
                done.refused[repr(error)[:200]] += 1
                continue
            done.seconds.append(time.perf_counter() - started)


class UploadBench:
    def __init__(self, plan: Plan, url: str, postmaster: int | None) -> None:
        self.plan = plan
        self.url = url
        self.postmaster = postmaster

    async def run(self, files: dict[str, Path]) -> dict[str, Any]:
        seeded = await seed_shop(self.url, departments=DEPARTMENTS + 1, workers=WORKERS, displays=0)
        reads = seeded.department_codes[-1]
        worked = replace(
            seeded,
            department_codes=seeded.department_codes[:-1],
            department_ids=seeded.department_ids[:-1],
        )
        read_view = replace(
            seeded,
            department_codes=seeded.department_codes[-1:],
            department_ids=seeded.department_ids[-1:],
        )
        await TaskPool(self.url, read_view, prefix="R").take(READ_TASKS)
        [upload_task] = await TaskPool(self.url, read_view, prefix="U").take(1)
        [order_id] = (await orders_of_tasks(self.url, [upload_task])).values()
        token = await dashboard_seed.admin_token(self.url, seeded)
        phases = ("without", *self.plan.kinds)
        per_phase = int(WORKERS * self.plan.phase_seconds * 4 / 3) + WORKERS
        tasks = TaskPool(self.url, worked)
        pools = {phase: await tasks.take(per_phase) for phase in phases}

        log("part 1: starting `pressroom serve`")
        server = ServerProcess(self.url)
        results: dict[str, Any] = {"file_bytes": {k: files[k].stat().st_size for k in files}}
        async with server.running():
            base = server.http_url.removesuffix("/graphql")
            upload_url = f"{base}/orders/{encode_id('WorkOrder', order_id)}/proofs"
            workers = Workers(server.http_url, worked.worker_tokens, reads)
            rss = RssSampler(server.pid, RSS_EVERY)
            rss.start()
            try:
                for phase in phases:
                    results[phase] = await self.phase(
                        phase, server, rss, workers, pools[phase], token, upload_url, files
                    )
            finally:
                await rss.stop()
                await workers.close()
        return results

    async def phase(
        self,
        phase: str,
        server: ServerProcess,
        rss: RssSampler,
        workers: Workers,
        pool: list[int],
        token: str,
        upload_url: str,
        files: dict[str, Path],
    ) -> dict[str, Any]:
        log(
            f"part 1, {KINDS[phase].label if phase in KINDS else phase}: "
            f"{self.plan.phase_seconds:g} s"
        )
        rss.stage = f"before {phase}"
        await asyncio.sleep(2)  # a settled RSS to measure from
        meter = meter_of(server, self.postmaster)
        tally = FloorTally()
        uploads = Uploads()
        rss.stage = phase
        meter.start()
        deadline = time.perf_counter() + self.plan.phase_seconds
        floor = asyncio.create_task(
            workers.run(pool, self.plan.phase_seconds, asyncio.Event(), tally)
        )
        if phase in KINDS:
            await upload_loop(
                upload_url, token, files[phase], KINDS[phase].file_name, deadline, uploads
            )
        await floor
        cpu = meter.stop()
        rss.stage = f"after {phase}"
        before = rss.of(f"before {phase}")
        during = rss.of(phase)
        return {
            "floor": tally.figures(),
            "uploads": {
                "done": len(uploads.seconds),
                **summary_ms(uploads.seconds),
                "refused": dict(uploads.refused),
            },
            "rss_before_mb": round(statistics.median(before), 1) if before else None,
            "rss_peak_mb": round(max(during), 1) if during else None,
            "cpu_cores": cpu,
            "seconds": round(meter.elapsed, 1),
        }


def meter_of(server: ServerProcess, postmaster: int | None) -> CpuMeter:
    return CpuMeter(
        {
            "bench": this_process,
            "server": process_tree(server.pid),
            "postgres": process_tree(postmaster),
        }
    )


async def orders_of_tasks(url: str, task_ids: list[int]) -> dict[int, int]:
    """Each task's work order."""
    conn = await asyncpg.connect(fixture.dsn(url))
    try:
        rows = await conn.fetch(
            "SELECT id, work_order_id FROM department_tasks WHERE id = ANY($1)", task_ids
        )
    finally:
        await conn.close()
    return {row["id"]: row["work_order_id"] for row in rows}


# --- part 2: customer pages ----------------------------------------------------------------


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


# --- the run -------------------------------------------------------------------------------


async def work(plan: Plan, url: str, embedded_server: bool) -> dict[str, Any]:
    postmaster = fixture.postmaster_pid(embedded_server)
    for name in await fixture.drop_stale_databases(url):
        log(f"dropped {name}, left behind by a run that was killed")
    log("creating the bench database (migrations)")
    await fixture.create_database(url)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="pressroom-bench-proofs-") as folder:
        files = {}
        for kind in plan.kinds:
            files[kind] = Path(folder) / KINDS[kind].file_name
            files[kind].write_bytes(KINDS[kind].make(FILE_BYTES))
        if plan.phase_seconds > 0:
            results["uploads"] = await UploadBench(plan, url, postmaster).run(files)
    if plan.pages > 0:
        log("part 2: the bench database made again, for a shop of its own")
        await fixture.create_database(url)
        results["pages"] = await PagesBench(plan, url, postmaster).run()
    return results


# --- output --------------------------------------------------------------------------------


def p50_p99(figures: dict[str, Any]) -> str:
    return f"{fmt(figures.get('p50_ms'), digits=1)} / {fmt(figures.get('p99_ms'), digits=1)} ms"


def uploads_table(results: dict[str, Any], plan: Plan) -> Table:
    phases = ("without", *plan.kinds)
    table = Table(
        title=f"A 25 MB proof uploaded beside {WORKERS} workers, {plan.phase_seconds:g} s a "
        "phase, one upload after another",
        title_justify="left",
    )
    table.add_column("measure")
    for phase in phases:
        table.add_column(
            KINDS[phase].label if phase in KINDS else "without uploads", justify="right"
        )
    table.add_column("target", justify="right")
    table.add_column("")
    floors = [results.get(p, {}).get("floor", {}).get("requests", {}) for p in phases]
    for request in REQUESTS:
        figures = [floor.get(request, {}) for floor in floors]
        table.add_row(f"{request} p50 / p99", *(p50_p99(f) for f in figures))
        ratios = [ratio(f.get("p99_ms"), figures[0].get("p99_ms")) for f in figures[1:]]
        worst = max((r for r in ratios if r is not None), default=None)
        table.add_row(
            "  p99 with / without",
            "",
            *(fmt(r, "x", 2) for r in ratios),
            f"<= {TARGET_P99_RATIO:g}x",
            verdict(worst, lambda v: v <= TARGET_P99_RATIO),
        )
    table.add_row(
        "floor requests failed",
        *(fmt(results.get(p, {}).get("floor", {}).get("errors")) for p in phases),
        "0",
        end_section=True,
    )
    sizes = results.get("file_bytes", {})
    table.add_row("file size", "", *(fmt(sizes.get(k, 0) / 2**20, " MiB", 2) for k in plan.kinds))
    ups = [results.get(k, {}).get("uploads", {}) for k in plan.kinds]
    table.add_row(
        "uploads done (refused)",
        "",
        *(f"{fmt(u.get('done'))} ({fmt(sum(u.get('refused', {}).values()))})" for u in ups),
    )
    table.add_row(
        "  each, p50 / max",
        "",
        *(
            f"{fmt(u.get('p50_ms', 0) / 1000 if u.get('p50_ms') else None, digits=2)} / "
            f"{fmt(u.get('max_ms', 0) / 1000 if u.get('max_ms') else None, digits=2)} s"
            for u in ups
        ),
    )
    table.add_row(
        "server RSS before / peak",
        *(
            f"{fmt(results.get(p, {}).get('rss_before_mb'), digits=1)} / "
            f"{fmt(results.get(p, {}).get('rss_peak_mb'), digits=1)} MB"
            for p in phases
        ),
    )
    growths = [rss_growth(results.get(k, {})) for k in plan.kinds]
    times = [
        g / (sizes[k] / 2**20) if g is not None and sizes.get(k) else None
        for g, k in zip(growths, plan.kinds, strict=True)
    ]
    worst = max((t for t in times if t is not None), default=None)
    table.add_row(
        "  peak growth, and in files' sizes",
        fmt(rss_growth(results.get("without", {})), " MB", 1),
        *(f"{fmt(g, ' MB', 1)}, {fmt(t, 'x', 2)}" for g, t in zip(growths, times, strict=True)),
        f"< {TARGET_RSS_TIMES_FILE:g}x",
        verdict(worst, lambda v: v < TARGET_RSS_TIMES_FILE),
    )
    return table


def rss_growth(phase: dict[str, Any]) -> float | None:
    before, peak = phase.get("rss_before_mb"), phase.get("rss_peak_mb")
    return round(peak - before, 1) if before is not None and peak is not None else None


def pages_table(results: dict[str, Any]) -> Table:
    pages, every = results.get("pages", 0), results.get("poll_seconds", POLL_SECONDS)
    table = Table(
        title=f"{pages:,} customer pages, each asking for its order's state every {every:g} s",
        title_justify="left",
    )
    table.add_column("measure")
    table.add_column("figure", justify="right")
    table.add_column("target", justify="right")
    table.add_column("")
    loads = results.get("page_loads", {})
    table.add_row(f"page loads ({fmt(loads.get('count'))}) p50 / p99", p50_p99(loads))
    errors = results.get("page_errors", {})
    table.add_row(
        "  requests failed in transit, or pages not shown",
        ", ".join(f"{k}: {v:,}" for k, v in errors.items()) or "0",
    )
    open_, change = results.get("state_open", {}), results.get("state_change", {})
    for name, figures in (("with the pages open", open_), ("while the orders change", change)):
        table.add_row(
            f"state answers ({fmt(figures.get('count'))}) {name}, p50 / p99",
            p50_p99(figures),
            f"p99 <= {TARGET_STATE_P99_MS:g} ms",
            verdict(figures.get("p99_ms"), lambda v: v <= TARGET_STATE_P99_MS),
        )
        table.add_row(
            "  by status",
            ", ".join(f"{k}: {v:,}" for k, v in sorted(figures.get("statuses", {}).items())),
        )
    table.add_section()
    made = results.get("change", {})
    table.add_row(
        f"the change: tasks started by {WORKERS} workers, in",
        f"{fmt(made.get('started'))} in {fmt(made.get('seconds'), ' s', 1)}",
    )
    seen = results.get("seen", {})
    table.add_row(
        "pages that saw their order's change / changed",
        f"{fmt(seen.get('seen'))} / {fmt(seen.get('pages'))}",
        "all",
        verdict(seen.get("unseen"), lambda v: v == 0),
    )
    table.add_row(
        "  polls sent after the change was committed that missed it",
        fmt(seen.get("stale_polls")),
        "0",
        verdict(seen.get("stale_polls"), lambda v: v == 0),
    )
    to_see, to_poll = seen.get("to_see", {}), seen.get("to_poll", {})
    table.add_row(
        "  change to seen, p50 / p99 / max",
        f"{fmt(ms_s(to_see.get('p50_ms')), digits=1)} / {fmt(ms_s(to_see.get('p99_ms')), digits=1)}"
        f" / {fmt(ms_s(to_see.get('max_ms')), digits=1)} s",
        f"<= {every:g} s + answer",
    )
    table.add_row(
        "  of which waiting for the page's next poll, p50 / p99",
        f"{fmt(ms_s(to_poll.get('p50_ms')), digits=1)} / "
        f"{fmt(ms_s(to_poll.get('p99_ms')), digits=1)} s",
        end_section=True,
    )
    table.add_row(
        "server RSS, idle / pages open (median; peak)",
        f"{fmt(results.get('rss_idle_mb'), digits=1)} / {fmt(results.get('rss_open_mb'), digits=1)}"
        f" MB ({fmt(results.get('rss_open_peak_mb'), digits=1)})",
    )
    table.add_row("  per page open", fmt(results.get("kb_per_page"), " KB", 1))
    conns = results.get("connections", {})
    table.add_row(
        "  connections the server held, idle / pages open (median)",
        f"{fmt(conns.get('idle'))} / {fmt(conns.get('open_median'))}",
    )
    return table


def ms_s(value: float | None) -> float | None:
    return None if value is None else value / 1000


CPU_GROUPS = ("bench", "server", "postgres", "irq", "others")


def cpu_table(results: dict[str, Any], plan: Plan) -> Table:
    table = Table(
        title=f"CPU used during each phase, in cores ({os.cpu_count()} on this machine; "
        "'others' is every other process on it)",
        title_justify="left",
    )
    table.add_column("phase")
    for group in CPU_GROUPS:
        table.add_column(group, justify="right")
    rows: list[tuple[str, dict[str, float]]] = []
    uploads = results.get("uploads", {})
    for phase in ("without", *plan.kinds):
        label = KINDS[phase].label if phase in KINDS else "without uploads"
        rows.append((f"part 1, {label}", uploads.get(phase, {}).get("cpu_cores", {})))
    pages = results.get("pages", {})
    for key, label in (
        ("cpu_opening", "pages opening"),
        ("cpu_open", "pages open"),
        ("cpu_change", "the orders changing"),
    ):
        rows.append((f"part 2, {label}", pages.get(key, {})))
    for label, cpu in rows:
        table.add_row(label, *(fmt(cpu.get(g), digits=2) for g in CPU_GROUPS))
    return table


def report(results: dict[str, Any], plan: Plan) -> Group:
    parts: list[Any] = []
    if "uploads" in results:
        parts.append(uploads_table(results["uploads"], plan))
    if "pages" in results:
        parts.append(pages_table(results["pages"]))
    parts.append(cpu_table(results, plan))
    return Group(*parts)


def parse_args(argv: list[str] | None) -> Plan:
    p = argparse.ArgumentParser(prog="bench.customer", description=(__doc__ or "").split("\n\n")[0])
    p.add_argument(
        "--quick",
        action="store_true",
        help="15-second phases, 200 pages polling every 15 s, one round",
    )
    p.add_argument(
        "--phase-seconds",
        type=float,
        default=40,
        help="length of each upload phase (40; 0 skips part 1)",
    )
    p.add_argument(
        "--kinds", default=",".join(KINDS), help=f"files to upload, of {', '.join(KINDS)} (all)"
    )
    p.add_argument("--pages", type=int, default=1000, help="customer pages (1000; 0 skips part 2)")
    p.add_argument(
        "--poll-seconds",
        type=float,
        default=POLL_SECONDS,
        help=f"each page's poll interval ({POLL_SECONDS}, the page script's)",
    )
    p.add_argument(
        "--rounds",
        type=int,
        default=2,
        help="poll intervals with the pages open before the change (2)",
    )
    p.add_argument("--json", type=Path, help="also write the figures there")
    args = p.parse_args(argv)
    kinds = tuple(k for k in args.kinds.split(",") if k)
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        p.error(f"unknown kinds {unknown}: choose from {', '.join(KINDS)}")
    if args.quick:
        return Plan(15, kinds, 200, 15, 1, args.json)
    return Plan(
        args.phase_seconds, kinds, args.pages, args.poll_seconds, max(1, args.rounds), args.json
    )


def main(argv: list[str] | None = None) -> int:
    plan = parse_args(argv)

    async def run(url: str, embedded_server: bool) -> dict[str, Any]:
        return {
            "plan": plan.__dict__ | {"json": str(plan.json)},
            **await work(plan, url, embedded_server),
        }

    results = fixture.run_in_database("python -m bench.customer", run)
    if results is None:
        return 130
    if plan.json is not None:
        plan.json.write_text(json.dumps(results, indent=2) + "\n")
    Console(width=None if sys.stdout.isatty() else 140).print(report(results, plan))
    return 0


if __name__ == "__main__":
    sys.exit(main())
