"""Refusals: what a hostile document costs the server, and whether others wait.

    .venv/bin/python -m bench.refusals      # under a minute

Each family of hostile documents is one that made graphql-core (or the parser, or the
coercion of variables) work far more than the request weighs: fragments spread twice
per level (`fragment F1 on Query { ...F2 ...F2 }`, ...), one field repeated 1,990 times
(quadratic in graphql-core's OverlappingFieldsCanBeMergedRule), hundreds of aliases,
inline fragments or directives, hundreds of operations or variables, a 200,000-character
string, 30,000 items in a list variable, a list variable nested 500 deep.
`src/graph/shape.py` refuses them before validation. Measured through `pressroom serve`
in a subprocess, anonymously, as an attacker would send them:

1. Server CPU per refusal (psutil CPU time of the server process over `--requests`
   requests in a row, each a distinct text so that no cache answers, divided by their
   number) of each family, beside a trivial `{ __typename }` answered the same way.
   Target: under 20 ms per refusal on a 2-core machine.
2. A signed-in worker's queue read (p50, p99 of `--probes` reads one after another) and
   `/healthz` with the server quiet, and while `--attackers` anonymous clients keep
   sending the families in turn (from a process of their own, at nice 10, as in
   bench.hostile). Target: the worker's p99 at most twice the quiet one.

Uses the embedded PostgreSQL (`.pressroom/bench-pgdata`) or DATABASE_URL, in a fresh
database dropped at the end.
"""

import argparse
import asyncio
import contextlib
import functools
import multiprocessing
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/refusals.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
from rich.table import Table

from bench import attackers, fixture
from bench.output import fmt, log, verdict
from bench.servers import ServerProcess
from bench.shop import seed_shop
from bench.stats import percentile, process_cpu_seconds

# 199: the deepest doubling document under the signed-in token cap (2,000); without a token,
# 199 and 400 levels are longer than a document may be, refused before they are parsed.
LEVELS = (18, 30, 199, 400)
TARGET_CPU_MS = 20.0
TARGET_P99_RATIO = 2.0
# A list variable, coerced item by item before anything runs (signed in or not).
LIST = (
    "mutation($c: [String!]!) "
    '{ createDisplayToken(input: {name: "d", departmentCodes: $c}) { secret } }'
)


def doubling(levels: int) -> str:
    """Each fragment spreads the next twice; the last selects one field."""
    spreads = "".join(
        f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} }}\n" for i in range(1, levels)
    )
    return f"query Q {{ ...F1 }}\n{spreads}fragment F{levels} on Query {{ __typename }}\n"


def nested(depth: int) -> Any:
    value: Any = ["p00"]
    for _ in range(depth):
        value = [value]
    return value


# name: (document, variables)
FAMILIES: dict[str, tuple[str, dict[str, Any]]] = {
    "repeated fields (1,990)": ("{ me { " + "id " * 1990 + "} }", {}),
    "aliases (600)": ("{ me { " + " ".join(f"a{i}: id" for i in range(600)) + " } }", {}),
    "inline fragments (320)": ("{ me { " + "... on User { id } " * 320 + "} }", {}),
    "directives (280)": ("{ __typename " + "@skip(if: false) " * 280 + "}", {}),
    "operations (390)": (" ".join(f"query Q{i} {{ __typename }}" for i in range(390)), {}),
    "variables (390)": (
        "query(" + " ".join(f"$v{i}: Int" for i in range(390)) + ") { __typename }",
        {},
    ),
    "string (200,000 characters)": (
        'mutation { login(input: {email: "' + "x" * 200_000 + '", password: "p"}) { token } }',
        {},
    ),
    "list variable (30,000 items)": (LIST, {"c": [1] * 30_000}),
    "list variable nested 500 deep": (LIST, {"c": nested(500)}),
}


def cases() -> list[tuple[str, str, dict[str, Any]]]:
    found: list[tuple[str, str, dict[str, Any]]] = [("{ __typename }", "{ __typename }", {})]
    found += [(f"doubling, {n} levels", doubling(n), {}) for n in LEVELS]
    found += [(name, query, variables) for name, (query, variables) in FAMILIES.items()]
    return found


def body(query: str, variables: dict[str, Any], n: int) -> dict[str, Any]:
    # A distinct text each time: the server's per-text caches must not answer for it.
    sent: dict[str, Any] = {"query": f"{query}# {n}\n", "variables": variables}
    if query.startswith("query Q0"):
        sent["operationName"] = "Q0"
    return sent


async def cpu_ms_per_request(
    client: httpx.AsyncClient,
    url: str,
    pid: int,
    query: str,
    variables: dict[str, Any],
    requests: int,
) -> tuple[float, str]:
    """Server CPU per request, and the code of the first error (or 'answered')."""
    outcome = "answered"
    before = process_cpu_seconds(pid)
    for n in range(requests):
        answer = await client.post(url, json=body(query, variables, n))
        if answer.status_code >= 400 and not answer.content.startswith(b"{"):
            outcome = f"HTTP {answer.status_code}"
            continue
        errors = answer.json().get("errors")
        if errors:
            outcome = errors[0].get("extensions", {}).get("code", "?")
    return (process_cpu_seconds(pid) - before) * 1000 / requests, outcome


@dataclass
class Probes:
    reads: list[float]
    health: list[float]


async def latencies(client: httpx.AsyncClient, base: str, token: str, probes: int) -> Probes:
    """A worker's queue read and /healthz, one after the other, `probes` times."""
    reads: list[float] = []
    health: list[float] = []
    query = {"query": '{ queue(department: "p00", first: 20) { edges { node { id } } } }'}
    headers = {"authorization": f"Bearer {token}"}
    for _ in range(probes):
        started = time.perf_counter()
        answer = await client.post(f"{base}/graphql", json=query, headers=headers)
        answer.raise_for_status()
        assert not answer.json().get("errors"), answer.text
        reads.append(time.perf_counter() - started)
        started = time.perf_counter()
        (await client.get(f"{base}/healthz")).raise_for_status()
        health.append(time.perf_counter() - started)
        await asyncio.sleep(0.01)
    return Probes(reads, health)


async def attack(url: str, stop: asyncio.Event, offset: int, sent: Any) -> None:
    """Sends the families in turn, each text distinct, until told to stop; counts each
    answered request in `sent` (shared with the bench)."""
    n = 0
    families = list(FAMILIES.values())
    async with httpx.AsyncClient(timeout=60, trust_env=False) as client:
        while not stop.is_set():
            query, variables = families[(offset + n) % len(families)]
            await client.post(url, json=body(query, variables, n * 100 + offset))
            n += 1
            with sent.get_lock():
                sent.value += 1


def attack_process(url: str, clients: int, stop: Any, sent: Any) -> None:
    """The attackers, in a process of their own at a lower priority: in the bench's own
    event loop, encoding their bodies (a 30,000-item list, a 200,000-character string)
    delayed the probes' answers being read, and the bench measured itself. Real attackers
    run on machines of their own."""
    with contextlib.suppress(OSError):
        os.nice(attackers.NICENESS)

    async def main() -> None:
        stopping = asyncio.Event()
        tasks = [asyncio.create_task(attack(url, stopping, n, sent)) for n in range(clients)]
        await asyncio.to_thread(stop.wait)
        stopping.set()
        await asyncio.gather(*tasks)

    asyncio.run(main())


async def attacking(process: Any, sent: Any, clients: int, within: float = 60) -> None:
    """Until the attackers' process has had an answer for as many requests as it has
    clients: it takes seconds to start, and probes taken before would be quiet ones."""
    async with asyncio.timeout(within):
        while sent.value < clients:
            if not process.is_alive():
                raise RuntimeError("the attackers' process ended before attacking")
            await asyncio.sleep(0.05)


def latency(seconds: list[float]) -> dict[str, float | None]:
    return {"p50_ms": _ms(percentile(seconds, 50)), "p99_ms": _ms(percentile(seconds, 99))}


def _ms(value: float | None) -> float | None:
    return None if value is None else value * 1000


async def run(args: argparse.Namespace, url: str, embedded_server: bool) -> dict[str, Any]:
    await fixture.create_database(url)
    shop = await seed_shop(url, departments=1, workers=1, displays=0)
    [token] = shop.worker_tokens
    server = ServerProcess(url)
    results: dict[str, Any] = {"cpu_ms": {}}
    async with server.running(), httpx.AsyncClient(timeout=60, trust_env=False) as client:
        assert server.pid is not None
        base = server.http_url.removesuffix("/graphql")
        for name, query, variables in cases():
            await client.post(server.http_url, json=body(query, variables, -1))  # warm up
            per_request, outcome = await cpu_ms_per_request(
                client, server.http_url, server.pid, query, variables, args.requests
            )
            results["cpu_ms"][name] = {"ms": per_request, "outcome": outcome}
            log(f"{name}: {per_request:.1f} ms of server CPU per request ({outcome})")
        quiet = await latencies(client, base, token, args.probes)
        spawn = multiprocessing.get_context("spawn")
        stop, sent_count = spawn.Event(), spawn.Value("q", 0)
        process = spawn.Process(
            target=attack_process, args=(server.http_url, args.attackers, stop, sent_count)
        )
        process.start()
        try:
            await attacking(process, sent_count, args.attackers)
            already = sent_count.value
            under = await latencies(client, base, token, args.probes)
        finally:
            stop.set()
            await asyncio.to_thread(process.join, 120)
        sent = sent_count.value - already
        results["quiet"] = {"read": latency(quiet.reads), "healthz": latency(quiet.health)}
        results["attacked"] = {
            "read": latency(under.reads),
            "healthz": latency(under.health),
            "refusals_sent": sent,
        }
    return results


def report(results: dict[str, Any], attackers: int) -> Table:
    table = Table(title="Refused documents", title_justify="left")
    table.add_column("measure")
    table.add_column("figure", justify="right")
    table.add_column("target", justify="right")
    table.add_column("")
    for name, figure in results["cpu_ms"].items():
        is_refusal = name != "{ __typename }"
        table.add_row(
            f"server CPU per request: {name} ({figure['outcome']})",
            fmt(figure["ms"], " ms", 1),
            f"< {TARGET_CPU_MS:g} ms" if is_refusal else "",
            verdict(figure["ms"], lambda v: v < TARGET_CPU_MS) if is_refusal else "",
        )
    quiet, attacked = results["quiet"], results["attacked"]
    table.add_section()
    for what, label in (("read", "signed-in queue read"), ("healthz", "/healthz")):
        for figure, name in ((quiet, "quiet"), (attacked, f"{attackers} anonymous attackers")):
            table.add_row(
                f"{label} p50 / p99, {name}",
                f"{fmt(figure[what]['p50_ms'], ' ms', 1)} / "
                f"{fmt(figure[what]['p99_ms'], ' ms', 1)}",
            )
    quiet_p99, attacked_p99 = quiet["read"]["p99_ms"], attacked["read"]["p99_ms"]
    ratio = attacked_p99 / quiet_p99 if quiet_p99 and attacked_p99 is not None else None
    table.add_row(
        "signed-in read p99, attacked / quiet",
        fmt(ratio, "x", 2),
        f"<= {TARGET_P99_RATIO:g}x",
        verdict(ratio, lambda v: v <= TARGET_P99_RATIO),
    )
    table.add_row("  hostile requests sent meanwhile", fmt(attacked["refusals_sent"]))
    return table


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench.refusals", description=__doc__)
    p.add_argument("--requests", type=int, default=50, help="requests per document (50)")
    p.add_argument("--probes", type=int, default=200, help="/healthz probes per phase (200)")
    p.add_argument("--attackers", type=int, default=8, help="clients sending refusals (8)")
    args = p.parse_args(argv)
    return fixture.run_and_report(
        "python -m bench.refusals",
        functools.partial(run, args),
        lambda results: report(results, args.attackers),
    )


if __name__ == "__main__":
    sys.exit(main())
