"""The tables `python -m bench.hostile` prints from its figures: the floor quiet and hostile
beside its targets, what the attackers got by kind, and the CPU each side used."""

from typing import Any

from rich.console import Group
from rich.table import Table

from bench import attackers
from bench.floor import REQUESTS
from bench.hostile_phases import Plan
from bench.output import collections, cpu_table, fmt, p50_p99, pause, verdict
from bench.stats import ratio, summary_ms

TARGET_P99_RATIO = 2.0
TARGET_RSS_GROWTH_MB = 100.0
TARGET_GC_PAUSE_MS = 50.0


def report(results: dict[str, Any], plan: Plan) -> Group:
    seconds = plan.phase_seconds
    length = f"{seconds / 60:g} min" if seconds % 60 == 0 else f"{seconds:g} s"
    quiet, hostile = results.get("quiet", {}), results.get("hostile", {})
    table = Table(
        title=f"The floor under a hostile door: {length} quiet, then {length} hostile",
        title_justify="left",
    )
    table.add_column("measure")
    table.add_column("quiet", justify="right")
    table.add_column("hostile", justify="right")
    table.add_column("target", justify="right")
    table.add_column("")
    for request in REQUESTS:
        q = quiet.get("floor", {}).get("requests", {}).get(request, {})
        h = hostile.get("floor", {}).get("requests", {}).get(request, {})
        table.add_row(
            f"{request} p50 / p99",
            p50_p99(q),
            p50_p99(h),
        )
        r = ratio(h.get("p99_ms"), q.get("p99_ms"))
        table.add_row(
            "  hostile / quiet p99", "", fmt(r, digits=2), f"<= {TARGET_P99_RATIO:g}",
            verdict(r, lambda v: v <= TARGET_P99_RATIO),
        )  # fmt: skip
    for request in REQUESTS:
        q = quiet.get("floor", {}).get("requests", {}).get(request, {})
        h = hostile.get("floor", {}).get("requests", {}).get(request, {})
        table.add_row(
            f"{request}: done / failed",
            f"{fmt(q.get('ok'))} / {fmt(q.get('errors'))}",
            f"{fmt(h.get('ok'))} / {fmt(h.get('errors'))}",
            "0 failed",
            verdict(h.get("errors"), lambda v: v == 0),
        )
    table.add_row(
        "  cycles begun late (the schedule slipped)",
        fmt(quiet.get("floor", {}).get("late_cycles")),
        fmt(hostile.get("floor", {}).get("late_cycles")),
        end_section=True,
    )
    q_ready = quiet.get("floor", {}).get("readyz", {})
    h_ready = hostile.get("floor", {}).get("readyz", {})
    table.add_row(
        "/readyz p50 / p99",
        p50_p99(q_ready),
        p50_p99(h_ready),
    )
    table.add_row(
        "  /readyz not 200",
        fmt(sum(q_ready.get("failed", {}).values())),
        fmt(sum(h_ready.get("failed", {}).values())),
        end_section=True,
    )
    q_del, h_del = quiet.get("delivery", {}), hostile.get("delivery", {})
    table.add_row(
        f"display events received / expected ({results.get('displays_connected', 0)} displays)",
        f"{fmt(q_del.get('received'))} / {fmt(q_del.get('expected'))}",
        f"{fmt(h_del.get('received'))} / {fmt(h_del.get('expected'))}",
    )
    table.add_row(
        "  missed (displays missing any; most by one display)",
        missed(q_del),
        missed(h_del),
        "0",
        verdict(h_del.get("missing"), lambda v: v == 0),
    )
    q_disp, h_disp = quiet.get("displays", {}), hostile.get("displays", {})
    table.add_row(
        "  commit-to-receipt p50 / p99",
        p50_p99(q_disp.get("receipt_latency", {})),
        p50_p99(h_disp.get("receipt_latency", {})),
    )
    table.add_row(
        "  subscriptions the server ended (so far)",
        fmt(q_disp.get("dropped_so_far")),
        fmt(h_disp.get("dropped_so_far")),
        end_section=True,
    )
    rss = results.get("rss", {})
    table.add_row(
        "server RSS at the start / end of the phase",
        f"{fmt(rss.get('quiet_start_mb'))} / {fmt(rss.get('hostile_start_mb'))} MB",
        f"{fmt(rss.get('hostile_start_mb'))} / {fmt(rss.get('hostile_end_mb'))} MB",
    )
    table.add_row(
        "  growth over the phase",
        fmt(rss.get("quiet_growth_mb"), " MB"),
        fmt(rss.get("hostile_growth_mb"), " MB"),
        f"< {TARGET_RSS_GROWTH_MB:g} MB over 5 min",
        verdict(rss.get("hostile_growth_mb"), lambda v: v < TARGET_RSS_GROWTH_MB),
    )
    table.add_row(
        "  peak in the phase; 10 s after it",
        "",
        f"{fmt(rss.get('hostile_peak_mb'))}; {fmt(rss.get('settled_mb'))} MB",
        end_section=True,
    )
    q_gc, h_gc = quiet.get("gc"), hostile.get("gc")
    table.add_row(
        "longest garbage-collector pause",
        pause(q_gc) if q_gc else "-",
        pause(h_gc) if h_gc else "-",
        f"<= {TARGET_GC_PAUSE_MS:g} ms",
        verdict(h_gc["longest_ms"] if h_gc else None, lambda v: v <= TARGET_GC_PAUSE_MS),
    )
    table.add_row(
        "  collections, generation 0 / 1 / 2",
        collections(q_gc),
        collections(h_gc),
    )
    notes = []
    for phase, figures in (("quiet", quiet), ("hostile", hostile)):
        if "failed" in figures:
            notes.append(f"[red]{phase}: failed: {figures['failed']}[/red]")
        if "halted" in figures:
            notes.append(f"[red]{phase}: stopped early: {figures['halted']}[/red]")
        if figures.get("floor", {}).get("pool_exhausted"):
            notes.append(f"[red]{phase}: the workers ran out of tasks[/red]")
        for error in figures.get("floor", {}).get("first_errors", [])[:3]:
            notes.append(f"{phase}, first errors: {error}")
    return Group(table, attack_table(hostile.get("attack", {})), hostile_cpu_table(results), *notes)


def missed(delivery: dict[str, Any]) -> str:
    if not delivery:
        return "-"
    return (
        f"{fmt(delivery['missing'])} ({fmt(delivery['subscribers_missing'])}; "
        f"{fmt(delivery['most_missed_by_one'])})"
    )


def attack_table(attack: dict[str, Any]) -> Table:
    table = Table(title="What the attackers got, by kind", title_justify="left")
    table.add_column("kind")
    table.add_column("offered/s", justify="right")
    table.add_column("sent", justify="right")
    table.add_column("skipped", justify="right")
    table.add_column("answers (HTTP status and code, or what happened)")
    table.add_column("p50 / p99", justify="right")
    if "failed" in attack:
        table.add_row("[red]the attackers failed[/red]", "", "", "", str(attack["failed"])[:300])
        return table
    kinds = attack.get("kinds", {})
    for kind in attackers.KINDS:
        figures = kinds.get(kind.name)
        if figures is None:
            continue
        answers = ", ".join(f"{what}: {n:,}" for what, n in figures["outcomes"].items())
        summary = summary_ms(figures["seconds"])
        table.add_row(
            kind.name,
            fmt(kind.rate),
            fmt(figures["sent"]),
            fmt(figures["skipped"]),
            answers,
            p50_p99(summary),
        )
    if "cpu_seconds" in attack:
        table.add_row("the attackers' own CPU", "", "", "", fmt(attack["cpu_seconds"], " s", 1))
    return table


CPU_GROUPS = ("bench", "attackers", "displays", "server", "postgres", "irq", "others")


def hostile_cpu_table(results: dict[str, Any]) -> Table:
    rows = [(phase, results.get(phase, {}).get("cpu_cores", {})) for phase in ("quiet", "hostile")]
    return cpu_table(rows, CPU_GROUPS)
