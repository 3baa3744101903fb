"""The customer's side: a 25 MB proof uploaded beside the floor, and 1,000 customer pages
kept current.

    .venv/bin/python -m bench.customer            # about 9 minutes
    .venv/bin/python -m bench.customer --quick    # about 3 minutes

Two parts in one run, each with its own `pressroom serve` in a subprocess on one fresh
database (bench/fixture.py):

1. **A proof uploaded beside the floor.** 8 workers (bench/floor.py's: session tokens,
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
   PRESSROOM_CUSTOMER_PAGE_REQUESTS_PER_ADDRESS lifted (`customer_pages.LIFTED`). Each link
   keeps its own limit (60 a minute); a page asks once.

Prints the figures and the CPU each process group used in each phase (this machine's
cores are shared by the server, PostgreSQL, the bench and whatever else runs on it).
Uses the embedded PostgreSQL (`.pressroom/bench-pgdata`) or DATABASE_URL, in a fresh
database dropped at the end.
"""

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/customer.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console

from bench import fixture
from bench.customer_measuring import Plan
from bench.customer_pages import POLL_SECONDS, PagesBench
from bench.customer_tables import report
from bench.customer_uploads import UploadBench
from bench.output import log
from bench.proof_files import FILE_BYTES, KINDS


async def work(plan: Plan, url: str, embedded_server: bool) -> dict[str, Any]:
    postmaster = fixture.postmaster_pid(embedded_server)
    await fixture.drop_stale_databases(url)
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
