"""Refusals: what a document over the shape limits costs the server, and whether others wait.

    .venv/bin/python -m bench.refusals      # about half a minute

Fragments spread twice per level double at each level what a walk that follows every
spread must visit (`fragment F1 on Query { ...F2 ...F2 }`, ...); `src/graph/shape.py`
refuses such documents visiting each fragment once. Measured through `pressroom serve`
in a subprocess, anonymously, as an attacker would send them:

1. Server CPU per refusal (psutil CPU time of the server process over `--requests`
   refusals in a row, each a distinct text so that no cache answers, divided by their
   number) of the doubling document at 18, 30, 199 (the deepest under the token cap) and
   400 levels, beside a trivial `{ __typename }` answered the same way. Target: under
   50 ms per refusal on a 2-core machine.
2. `/healthz` latency (p50, p99 of `--probes` probes) with the server idle, and while
   `--attackers` clients keep sending the 199-level document: the ratio says whether the
   event loop stays free for others.

Uses the embedded PostgreSQL (`.pressroom/bench-pgdata`) or DATABASE_URL, in a fresh
database dropped at the end.
"""

import argparse
import asyncio
import functools
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/refusals.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
from rich.table import Table

from bench import fixture
from bench.output import fmt, log, verdict
from bench.stats import percentile, process_cpu_seconds

# 199: the deepest doubling document under the 2,000-token cap; 400 is refused by the cap.
LEVELS = (18, 30, 199, 400)
TARGET_CPU_MS = 50.0


def doubling(levels: int) -> str:
    """Each fragment spreads the next twice; the last selects one field."""
    spreads = "".join(
        f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} }}\n" for i in range(1, levels)
    )
    return f"query Q {{ ...F1 }}\n{spreads}fragment F{levels} on Query {{ __typename }}\n"


async def cpu_ms_per_request(
    client: httpx.AsyncClient, url: str, pid: int, query: str, requests: int
) -> tuple[float, str]:
    """Server CPU per request, and the code of the first error (or 'answered')."""
    outcome = "answered"
    before = process_cpu_seconds(pid)
    for n in range(requests):
        # A distinct text each time: the server's per-text caches must not answer for it.
        body = (await client.post(url, json={"query": f"{query}# {n}\n"})).json()
        if body.get("errors"):
            outcome = body["errors"][0].get("extensions", {}).get("code", "?")
    return (process_cpu_seconds(pid) - before) * 1000 / requests, outcome


async def health_latencies(client: httpx.AsyncClient, base: str, probes: int) -> list[float]:
    seconds = []
    for _ in range(probes):
        started = time.perf_counter()
        (await client.get(f"{base}/healthz")).raise_for_status()
        seconds.append(time.perf_counter() - started)
        await asyncio.sleep(0.01)
    return seconds


async def attack(url: str, query: str, stop: asyncio.Event) -> int:
    sent = 0
    async with httpx.AsyncClient(timeout=30, trust_env=False) as client:
        while not stop.is_set():
            await client.post(url, json={"query": f"{query}# {sent}\n"})
            sent += 1
    return sent


def latency(seconds: list[float]) -> dict[str, float | None]:
    return {"p50_ms": _ms(percentile(seconds, 50)), "p99_ms": _ms(percentile(seconds, 99))}


def _ms(value: float | None) -> float | None:
    return None if value is None else value * 1000


async def run(args: argparse.Namespace, url: str, embedded_server: bool) -> dict[str, Any]:
    await fixture.create_database(url)
    server = fixture.ServerProcess(url)
    results: dict[str, Any] = {"cpu_ms": {}, "healthz": {}}
    async with server.running(), httpx.AsyncClient(timeout=30, trust_env=False) as client:
        assert server.pid is not None
        base = server.http_url.removesuffix("/graphql")
        cases = [("{ __typename }", "{ __typename }")]
        cases += [(f"doubling, {n} levels", doubling(n)) for n in LEVELS]
        for name, query in cases:
            await client.post(server.http_url, json={"query": query})  # warm up
            per_request, outcome = await cpu_ms_per_request(
                client, server.http_url, server.pid, query, args.requests
            )
            results["cpu_ms"][name] = {"ms": per_request, "outcome": outcome}
            log(f"{name}: {per_request:.1f} ms of server CPU per request ({outcome})")
        results["healthz"]["idle"] = latency(await health_latencies(client, base, args.probes))
        stop = asyncio.Event()
        attackers = [
            asyncio.create_task(attack(server.http_url, doubling(199), stop))
            for _ in range(args.attackers)
        ]
        try:
            under = await health_latencies(client, base, args.probes)
        finally:
            stop.set()
            sent = sum(await asyncio.gather(*attackers))
        results["healthz"]["attacked"] = {**latency(under), "refusals_sent": sent}
    return results


def report(results: dict[str, Any], attackers: int) -> Table:
    table = Table(title="Refused documents", title_justify="left")
    table.add_column("measure")
    table.add_column("figure", justify="right")
    table.add_column("target", justify="right")
    table.add_column("")
    for name, figure in results["cpu_ms"].items():
        is_refusal = name.startswith("doubling")
        table.add_row(
            f"server CPU per request: {name} ({figure['outcome']})",
            fmt(figure["ms"], " ms", 1),
            f"< {TARGET_CPU_MS:g} ms" if is_refusal else "",
            verdict(figure["ms"], lambda v: v < TARGET_CPU_MS) if is_refusal else "",
        )
    idle, attacked = results["healthz"]["idle"], results["healthz"]["attacked"]
    table.add_section()
    for figure, name in ((idle, "idle"), (attacked, f"{attackers} clients sending 199 levels")):
        table.add_row(
            f"/healthz p50 / p99, {name}",
            f"{fmt(figure['p50_ms'], ' ms', 1)} / {fmt(figure['p99_ms'], ' ms', 1)}",
        )
    table.add_row("  refusals sent meanwhile", fmt(attacked["refusals_sent"]))
    return table


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench.refusals", description=__doc__)
    p.add_argument("--requests", type=int, default=50, help="requests per document (50)")
    p.add_argument("--probes", type=int, default=200, help="/healthz probes per phase (200)")
    p.add_argument("--attackers", type=int, default=4, help="clients sending refusals (4)")
    args = p.parse_args(argv)
    return fixture.run_and_report(
        "python -m bench.refusals",
        functools.partial(run, args),
        lambda results: report(results, args.attackers),
    )


if __name__ == "__main__":
    sys.exit(main())
