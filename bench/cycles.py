"""Cycles: what an attack at the door leaves for the full collection.

    .venv/bin/python -m bench.cycles [--seconds S]      # about 5 minutes at 120 s

A full collection walks every object the process holds, so its pause grows with what
waits there: the live heap, and objects in reference cycles that only it frees. The
pacer (src/graph/engine/collector.py) moves whatever outlives two of its collections
(100 ms) to the old generation, so a cycle made by anything that lives that long (a
connection, a sign-in waiting for a password worker) waits there for the next full
collection, at most PRESSROOM_GC_FULL_COLLECTION_SECONDS away.

The server runs in this process (on uvloop, as `pressroom serve` does), so that the
collector can be asked what it found; the attackers of bench.hostile (bench/attackers.py)
knock at its door for `--seconds`, then one full collection is taken with the collector
told to keep what it frees: the objects it found, by type, and its CPU. Twice in one run,
side by side: with uvicorn's stock HTTP protocol, and with the engine room's
(src/graph/engine/http.py). The attackers' victim and inbox do not exist here: their
sign-ins and inbox posts take the unknown-name paths.

Uses the embedded PostgreSQL (`.pressroom/bench-pgdata`) or DATABASE_URL, in a fresh
database dropped at the end.
"""

import argparse
import asyncio
import gc
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/cycles.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import uvicorn
import uvloop
from rich.table import Table

from bench import fixture
from bench.attack import AttackerProcess, attack_spec
from bench.output import fmt, log
from bench.servers import free_port
from pressroom.app import create_app, server_options
from pressroom.settings import Settings

PROTOCOLS = ("uvicorn's stock HTTP protocol", "the engine room's HTTP protocol")
SHOWN_TYPES = 8


class Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.listening = asyncio.Event()

    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets=sockets)
        self.listening.set()


def full_collection() -> dict[str, Any]:
    """One full collection, keeping what it frees to count it by type."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    began = time.thread_time()
    gc.collect()
    cpu_ms = (time.thread_time() - began) * 1000
    kinds = Counter(f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.garbage)
    found = len(gc.garbage)
    gc.set_debug(0)
    gc.garbage.clear()
    gc.collect()
    return {"found": found, "cpu_ms": round(cpu_ms, 1), "kinds": kinds.most_common(SHOWN_TYPES)}


async def one_run(url: str, stock: bool, seconds: float) -> dict[str, Any]:
    port = free_port()
    settings = Settings(public_url=f"http://127.0.0.1:{port}")
    options = server_options(settings)
    if stock:
        options.pop("http")
    server = Server(
        uvicorn.Config(
            create_app(settings, url=url),
            host="127.0.0.1",
            port=port,
            log_level="warning",
            **options,
        )
    )
    serving = asyncio.create_task(server.serve())
    await asyncio.wait_for(server.listening.wait(), 60)
    attackers = AttackerProcess()
    try:
        gc.collect()
        await attackers.start(attack_spec(f"http://127.0.0.1:{port}/graphql", seconds + 60))
        await asyncio.sleep(seconds)
        sent = await attackers.stop()
        collected = full_collection()
    finally:
        server.should_exit = True
        await serving
    requests = sum(kind.get("sent", 0) for kind in sent.get("kinds", {}).values())
    return {**collected, "requests": requests}


async def work(url: str, seconds: float) -> dict[str, Any]:
    await fixture.create_database(url)
    runs = {}
    for name, stock in zip(PROTOCOLS, (True, False), strict=True):
        log(f"{name}: attackers for {seconds:g} s")
        runs[name] = await one_run(url, stock, seconds)
    return {"seconds": seconds, "runs": runs}


def report(results: dict[str, Any]) -> Table:
    table = Table(
        title=f"A full collection after {results['seconds']:g} s of attackers",
        title_justify="left",
    )
    table.add_column("measure")
    for name in PROTOCOLS:
        table.add_column(name, justify="right")
    runs = [results["runs"][name] for name in PROTOCOLS]
    table.add_row("attackers' requests", *(fmt(r["requests"]) for r in runs))
    table.add_row("objects in cycles it found", *(fmt(r["found"]) for r in runs))
    table.add_row("its CPU", *(fmt(r["cpu_ms"], " ms", 1) for r in runs))
    table.add_section()
    for rank in range(SHOWN_TYPES):
        cells = []
        for r in runs:
            kinds = r["kinds"]
            cells.append(
                f"{kinds[rank][0].rsplit('.', 1)[-1]}: {kinds[rank][1]:,}"
                if rank < len(kinds)
                else ""
            )
        table.add_row("most found, by type" if rank == 0 else "", *cells)
    return table


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench.cycles", description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=120, help="attack per run (120)")
    args = p.parse_args(argv)
    # The server runs on uvloop, as `pressroom serve` does: its transports make no
    # cycles of their own, asyncio's do.
    uvloop.install()

    async def run(url: str, embedded_server: bool) -> dict[str, Any]:
        return await work(url, args.seconds)

    return fixture.run_and_report("python -m bench.cycles", run, report)


if __name__ == "__main__":
    sys.exit(main())
