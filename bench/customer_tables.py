"""The tables `python -m bench.customer` prints from its figures: uploads beside the floor,
the customer pages, and the CPU each process group used in each phase."""

from typing import Any

from rich.console import Group
from rich.table import Table

from bench.customer_measuring import Plan
from bench.customer_pages import POLL_SECONDS
from bench.floor import REQUESTS, WORKERS
from bench.output import cpu_table, fmt, p50_p99, verdict
from bench.proof_files import KINDS
from bench.stats import ratio

TARGET_P99_RATIO = 1.5
TARGET_RSS_TIMES_FILE = 2.0
TARGET_STATE_P99_MS = 1000.0


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


def customer_cpu_table(results: dict[str, Any], plan: Plan) -> Table:
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
    return cpu_table(rows, CPU_GROUPS, "; 'others' is every other process on it")


def report(results: dict[str, Any], plan: Plan) -> Group:
    parts: list[Any] = []
    if "uploads" in results:
        parts.append(uploads_table(results["uploads"], plan))
    if "pages" in results:
        parts.append(pages_table(results["pages"]))
    parts.append(customer_cpu_table(results, plan))
    return Group(*parts)
