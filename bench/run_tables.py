"""The tables `python -m bench.run` prints from its results: every figure beside its
target or peer, the statements of a start, a finish and a dashboard page, CPU per phase,
and the server's garbage collector per phase."""

from collections.abc import Callable
from typing import Any

from rich.table import Table

from bench import dashboard_measure, dashboard_page
from bench.measuring import Plan
from bench.output import collections, cpu_table, fmt, pause, verdict
from bench.throughput import MODES

# A start is its one statement, a finish its transaction of four (BEGIN, the move, the
# order's settlement, COMMIT); the counting window also holds the background loops'
# rounds (the webhook relay's lease, the timers), about 0.05 a request.
ROUND_TRIP_TARGETS = {"startTask": 1.1, "finishTask": 4.1}
# Statements shown per request in the statements table: those sent at least this often.
SHOWN_FROM = 0.05


def statements_table(results: dict[str, Any]) -> Table:
    """Each statement a start, a finish and a dashboard page sent, per request, as
    pg_stat_statements counted them (the event feed's apart): what a new one costs is seen
    the day it lands."""
    table = Table(title="Statements per request (pg_stat_statements)")
    table.add_column("request")
    table.add_column("per request", justify="right")
    table.add_column("statement")
    trips = results.get("round_trips", {})
    page = results.get("dashboard", {}).get("round_trips", {}).get("pressroom", {})
    for name, part, requests in (
        ("startTask", trips.get("startTask"), trips.get("mutations")),
        ("finishTask", trips.get("finishTask"), trips.get("mutations")),
        ("dashboard page", page, page.get("pages")),
    ):
        if not part or not requests or "statements" not in part:
            table.add_row(name, "", "not counted")
            continue
        for statement in part["statements"]:
            per = statement["calls"] / requests
            if statement.get("feed") or per < SHOWN_FROM:
                continue
            table.add_row(name, fmt(per, digits=2), statement["query"][:100])
    return table


def ms_per_transition(figures: dict[str, Any], group: str) -> float | None:
    """CPU of one process group (the server, the bench) per transition, in ms."""
    cores = figures["cpu_cores"].get(group)
    rate = figures["per_second"]
    return cores * 1000 / rate if cores and rate else None


def at_most(limit: float) -> Callable[[float], bool]:
    return lambda value: value <= limit


def report(results: dict[str, Any], plan: Plan) -> Table:
    table = Table(title="Pressroom benchmarks", title_justify="left")
    table.add_column("measure")
    table.add_column("figure", justify="right")
    table.add_column("target", justify="right")
    table.add_column("")
    by_clients = results["graphql_vs_raw"]["by_clients"]
    counts = " / ".join(by_clients)
    n = plan.clients
    gr = by_clients[str(n)]

    def each(value: Callable[[dict[str, Any]], float | None], digits: int = 0) -> str:
        return " / ".join(fmt(value(run), digits=digits) for run in by_clients.values())

    table.add_row(
        f"transitions/s, GraphQL over HTTP, {counts} clients",
        each(lambda run: run["graphql"]["per_second"]),
    )
    table.add_row(
        f"transitions/s, same SQL from asyncpg, {counts} conns",
        each(lambda run: run["raw"]["per_second"]),
    )
    table.add_row(
        f"  PostgreSQL connections opened, GraphQL at {n} clients",
        fmt(gr["graphql"].get("new_connections")),
    )
    per_transition = ms_per_transition(gr["graphql"], "server")
    table.add_row(
        f"  server CPU per transition, {n} clients",
        fmt(per_transition, " ms", 2),
        "<= 1.0 ms",
        verdict(per_transition, lambda ms: ms <= 1.0),
    )
    # The load generator shares the machine: what it takes is not the server's to use.
    table.add_row(
        f"  the bench's own CPU per transition, {counts} clients",
        each(lambda run: ms_per_transition(run["graphql"], "bench"), digits=2) + " ms",
    )

    def ratio_row(label: str, key: str) -> None:
        ratios = [run[key] for run in by_clients.values() if run[key] is not None]
        table.add_row(
            f"  {label} / asyncpg, {counts} clients",
            each(lambda run: run[key], digits=2),
            ">= 0.50",
            verdict(min(ratios, default=None), lambda r: r >= 0.5),
        )

    ratio_row("GraphQL", "ratio")
    # The app's own documents by hash: the engine room runs them compiled.
    table.add_row(
        f"transitions/s, trusted documents, {counts} clients",
        each(lambda run: run["trusted"]["per_second"]),
    )
    compiled = ms_per_transition(gr["trusted"], "server")
    table.add_row(
        f"  server CPU per transition, trusted documents, {n} clients",
        fmt(compiled, " ms", 2),
        "< 0.8 ms",
        verdict(compiled, lambda ms: ms < 0.8),
    )
    ratio_row("trusted documents", "trusted_ratio")
    # What any Python server in front of the same statements pays (bench/http_floor.py):
    # a reference beside the targets, not one of them.
    table.add_row(
        f"transitions/s, bare HTTP floor (uvicorn, no GraphQL), {counts} clients",
        each(lambda run: run["bare_http"]["per_second"]),
    )
    table.add_row(
        f"  server CPU per transition, bare HTTP floor, {n} clients",
        fmt(ms_per_transition(gr["bare_http"], "server"), " ms", 2),
    )
    table.add_row(
        f"  bare HTTP floor / asyncpg, {counts} clients",
        each(lambda run: run["bare_http_ratio"], digits=2),
    )
    table.add_row(
        f"  trusted documents / bare HTTP floor, {counts} clients",
        each(lambda run: run["trusted_bare_ratio"], digits=2),
    )
    trips = results["round_trips"]
    if "skipped" in trips:
        table.add_row("database round trips per mutation", "not counted", "", "see the log")
    else:
        for field_name, target in ROUND_TRIP_TARGETS.items():
            per = trips[field_name]["per_mutation"]
            table.add_row(
                f"database round trips per {field_name} (pg_stat_statements)",
                fmt(per, digits=2),
                f"<= {target}",
                verdict(per, at_most(target)),
            )
        table.add_row(
            "  feed reads per transition, startTask / finishTask",
            " / ".join(
                fmt(trips[f]["feed_per_transition"], digits=2) for f in ("startTask", "finishTask")
            ),
        )
    table.add_row(
        "longest GC pause in the server, whole run",
        pause(results["gc"]),
        "<= 20 ms",
        verdict(results["gc"]["longest_ms"], lambda ms: ms <= 20),
        end_section=True,
    )
    for clients, runs in results["commit_path"]["by_clients"].items():
        modes = [m for m in MODES if m in runs]
        table.add_row(
            f"commits/s, {clients} client(s): " + " / ".join(MODES[m][:4].strip() for m in modes),
            " / ".join(fmt(runs[m]["per_second"]) for m in modes),
        )
        if "notify" in runs:
            table.add_row(
                "  (b) / (a)  pg_notify in every transaction",
                fmt(runs["notify_over_plain"], digits=2),
            )
        if "poke" in runs:
            c = runs["poke_over_plain"]
            table.add_row(
                "  (c) / (a)  our path", fmt(c, digits=2), ">= 0.90", verdict(c, lambda r: r >= 0.9)
            )
        if "notifier" in runs:
            table.add_row("  (c') / (a) notifier alone", fmt(runs["notifier_over_plain"], digits=2))
    table.rows[-1].end_section = True
    subs = results["subscribers"]
    k = subs["subscribers"]
    table.add_row(
        f"transitions/s, 0 / {k} subscribers ({subs['subscribers_per_event']:g} per event)",
        f"{fmt(subs['without']['per_second'])} / {fmt(subs['with']['per_second'])}",
    )
    table.add_row(f"  {k} / 0 subscribers", fmt(subs["ratio"], digits=2))
    for key, label in (("with", f"{n} clients"), ("light", f"{plan.light_rate:g} transitions/s")):
        lat = subs[key]["receipt_latency"]
        table.add_row(
            f"  commit-to-receipt p50 / p99, {label}",
            f"{fmt(lat['p50_ms'], digits=1)} / {fmt(lat['p99_ms'], ' ms', 1)}",
            "p99 < 100 ms",
            verdict(lat["p99_ms"], lambda p: p < 100),
        )
    delivery = subs["delivery"]
    table.add_row(
        "  events delivered / expected (missing)",
        f"{delivery['received']:,} / {delivery['expected']:,} ({delivery['missing']:,})",
        "all",
        verdict(delivery["missing"], lambda m: m == 0),
    )
    table.add_row(
        "  of them twice; written before the window; beyond both",
        f"{delivery['repeated']:,}; {delivery['before_window']:,}; {delivery['extra']:,}",
        "0; any; 0",
        verdict(delivery["repeated"] + delivery["extra"], lambda n: n == 0),
        end_section=True,
    )
    scaling = results["scaling"]
    for step in scaling["steps"]:
        lat = step["light"]["receipt_latency"]
        table.add_row(
            f"{step['subscribers']:,} subscribers ({step['per_event']:g} per event), "
            f"{plan.light_rate:g}/s: p50 / p99, server",
            f"{fmt(lat['p50_ms'], digits=1)} / {fmt(lat['p99_ms'], ' ms', 1)}, "
            f"{fmt(step['light']['cpu_cores'].get('server'), digits=2)} core",
            "p99 <= 100 ms",
            verdict(lat["p99_ms"], lambda p: p <= 100),
        )
    table.add_row(
        "  server memory per idle subscriber",
        fmt(scaling.get("kb_per_idle_subscriber"), " KB", 1),
        "<= 40 KB",
        verdict(scaling.get("kb_per_idle_subscriber"), lambda k: k <= 40),
    )
    last = scaling["steps"][-1]["subscribers"]
    table.add_row(
        f"  transitions/s with {last:,} / with 0 subscribers",
        f"{fmt(scaling['loaded']['per_second'])} / {fmt(subs['without']['per_second'])} "
        f"= {fmt(scaling['ratio'], digits=2)}",
        ">= 0.80",
        verdict(scaling["ratio"], lambda r: r >= 0.8),
        end_section=True,
    )
    dashboard_rows(table, results["dashboard"])
    return table


def dashboard_rows(table: Table, part: dict[str, Any]) -> None:
    """Part 5's rows: Pressroom's figures, PostGraphile's beside them."""
    if "skipped" in part:
        table.add_row(f"dashboard page: not measured ({part['skipped']})")
        return
    if "failed" in part:
        table.add_row("dashboard page: [red]failed[/red]", "", "", "see the log")
        return
    peer = part["postgraphile"]
    trips = part["round_trips"]
    ours = trips.get("pressroom", {})
    theirs = trips.get("postgraphile", {})
    if ours.get("per_page") is None:
        table.add_row(
            "dashboard round trips per page",
            f"not counted (~{fmt(ours.get('transactions_per_page'), digits=1)} transactions)",
            f"<= {dashboard_measure.TARGET_ROUND_TRIPS}",
            "see the log",
        )
    else:
        table.add_row(
            "dashboard round trips per page, Pressroom / PostGraphile",
            f"{fmt(ours['per_page'], digits=2)} / {fmt(theirs.get('per_page'), digits=2)}",
            f"<= {dashboard_measure.TARGET_ROUND_TRIPS}",
            verdict(ours["per_page"], at_most(dashboard_measure.TARGET_ROUND_TRIPS)),
        )
    by_clients = part["by_clients"]
    counts = " / ".join(by_clients)

    def each(server: str, key: str, digits: int = 1) -> str:
        return " / ".join(fmt(run[server].get(key), digits=digits) for run in by_clients.values())

    table.add_row(
        f"dashboard pages/s, {counts} clients: Pressroom", each("pressroom", "pages_per_second")
    )
    table.add_row(
        f"dashboard pages/s, {counts} clients: PostGraphile {peer['version']}",
        each("postgraphile", "pages_per_second"),
    )
    ratios = [run["ratio"] for run in by_clients.values() if run["ratio"] is not None]
    table.add_row(
        f"  Pressroom / PostGraphile, {counts} clients",
        " / ".join(fmt(run["ratio"], digits=2) for run in by_clients.values()),
        f">= {dashboard_measure.TARGET_RATIO:g}",
        verdict(min(ratios, default=None), lambda r: r >= dashboard_measure.TARGET_RATIO),
    )
    for clients, run in by_clients.items():
        mine = run["pressroom"]["server_cpu_ms_per_page"]
        table.add_row(
            f"  server CPU per page, {clients} client{'' if clients == '1' else 's'}: "
            "Pressroom / PostGraphile",
            f"{fmt(mine, digits=1)} / "
            f"{fmt(run['postgraphile'].get('server_cpu_ms_per_page'), ' ms', 1)}",
            f"<= {dashboard_measure.TARGET_CPU_MS:g} ms",
            verdict(mine, at_most(dashboard_measure.TARGET_CPU_MS)),
        )
    if peer["skipped"]:
        table.add_row(f"  PostGraphile skipped: {peer['skipped']}")
    else:
        same = part["pages"].get("same_data")
        table.add_row(
            f"  the same data on both servers' pages ({dashboard_page.PAGE_SIZE} work orders)",
            "yes" if same else "[red]no[/red]",
            "yes",
            verdict(1.0 if same else 0.0, lambda v: v == 1),
        )


def run_cpu_table(results: dict[str, Any]) -> Table:
    part = results.get("dashboard", {})
    pages = part.get("by_clients", {})
    peer = not part.get("postgraphile", {}).get("skipped", True)
    columns: tuple[str, ...] = ("bench", "server", "subscribers", "postgres", "irq", "others")
    if peer:
        columns = ("bench", "server", "postgraphile", "subscribers", "postgres", "irq", "others")
    rows: list[tuple[str, dict[str, float]]] = []
    for clients, run in results["graphql_vs_raw"]["by_clients"].items():
        rows += [
            (f"GraphQL, {clients} client(s)", run["graphql"]["cpu_cores"]),
            (f"asyncpg floor, {clients} conn(s)", run["raw"]["cpu_cores"]),
        ]
    for clients, runs in results["commit_path"]["by_clients"].items():
        for mode in MODES:
            if mode in runs:
                rows.append((f"commits, {clients} client(s), {mode}", runs[mode]["cpu_cores"]))
    subs = results["subscribers"]
    if subs["baseline"].startswith("measured"):
        rows.append(("0 subscribers", subs["without"]["cpu_cores"]))
    rows += [
        (f"{subs['subscribers']} subscribers", subs["with"]["cpu_cores"]),
        ("light load", subs["light"]["cpu_cores"]),
    ]
    for step in results["scaling"]["steps"]:
        rows.append((f"{step['subscribers']:,} subscribers, light", step["light"]["cpu_cores"]))
    scaling = results["scaling"]
    rows.append(
        (f"{scaling['steps'][-1]['subscribers']:,} subscribers", scaling["loaded"]["cpu_cores"])
    )
    for clients, run in pages.items():
        rows.append((f"dashboard, {clients} client(s), Pressroom", run["pressroom"]["cpu_cores"]))
        if peer:
            rows.append(
                (f"dashboard, {clients} client(s), PostGraphile", run["postgraphile"]["cpu_cores"])
            )
    return cpu_table(rows, columns)


def server_phases(results: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(name, figures) of every measured phase with the server, in the order they ran."""
    phases = [
        (f"GraphQL, {clients} client(s)", run["graphql"])
        for clients, run in results["graphql_vs_raw"]["by_clients"].items()
    ]
    trips = results["round_trips"]
    phases += [(f"round trips, {f}", trips[f]) for f in ("startTask", "finishTask") if f in trips]
    subs = results["subscribers"]
    if subs["baseline"].startswith("measured"):
        phases.append(("0 subscribers", subs["without"]))
    phases.append((f"{subs['subscribers']} subscribers connecting", subs.get("connecting", {})))
    phases += [(f"{subs['subscribers']} subscribers", subs["with"]), ("light load", subs["light"])]
    phases.append((f"{subs['subscribers']} subscribers hanging up", subs.get("hanging_up", {})))
    scaling = results["scaling"]
    for step in scaling["steps"]:
        count = f"{step['subscribers']:,} subscribers"
        phases.append((f"{count} connecting", step.get("connecting", {})))
        phases.append((f"{count}, light", step["light"]))
    last = scaling["steps"][-1]["subscribers"]
    phases.append((f"{last:,} subscribers", scaling["loaded"]))
    phases.append((f"{last:,} subscribers hanging up", scaling.get("hanging_up", {})))
    # Results written before the connections were measured have no figures for them.
    phases = [(name, figures) for name, figures in phases if "gc" in figures]
    if "gc" in results["dashboard"]:
        phases.append(("dashboard page, all of part 5", results["dashboard"]))
    return phases


def gc_table(results: dict[str, Any]) -> Table:
    table = Table(title="The server's garbage collector during each phase", title_justify="left")
    table.add_column("phase")
    table.add_column("collections, generation 0 / 1 / 2", justify="right")
    table.add_column("paused in all", justify="right")
    table.add_column("longest pause", justify="right")
    for name, figures in [*server_phases(results), ("whole run", {"gc": results["gc"]})]:
        gc = figures["gc"]
        table.add_row(
            name,
            collections(gc),
            fmt(gc["paused_ms"], " ms", 1),
            pause(gc),
        )
    return table
