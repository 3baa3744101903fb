"""The floor under a hostile door: legitimate work beside anonymous attacks, quiet then hostile.

    .venv/bin/python -m bench.hostile               # two 5-minute phases, about 13 minutes
    .venv/bin/python -m bench.hostile --quick       # two 20-second phases, about 2 minutes
    .venv/bin/python -m bench.hostile --minutes 2   # two 2-minute phases

One `pressroom serve` in a subprocess on a fresh database (bench/fixture.py), and two
phases of the same length, each with the same legitimate work:

- 8 workers (session tokens, aiohttp keep-alive clients, GraphQL over HTTP), each on a
  fixed schedule of a cycle a second: start a task, finish it, read a queue page (the
  wall display's first page, `WallQueue`, of a department holding 100 waiting tasks that
  nobody moves, so that the page costs the same in both phases). Every request's time
  counts, failed ones too (a timeout counts as its 30 s).
- 200 wall displays (display tokens, `queueEvents` over graphql-transport-ws, in a
  process of their own: bench/subscribers.py) on the 10 departments the workers work in,
  each event reaching 20 of them. After each phase, once they have received everything
  the server still had to send, each display's count is compared with the events of its
  department in the log: missed events (target 0).
- a probe of `/readyz` twice a second.

The hostile phase adds bench/attackers.py in a process of its own, at nice 10: sign-in
floods, validation bombs, distinct-document churn, websocket churn and unsigned POSTs to
the payments inbox, each offered at a fixed rate (`attackers.KINDS`), so that two
versions of the server meet the same attack.

Prints: the legitimate p50 / p99 of each request (hostile / quiet p99: target at most 2),
legitimate errors (target 0), events missed by displays (target 0), the server's RSS
(psutil; growth over the hostile phase: target under 100 MB over 5 minutes), its longest
garbage-collector pause in each phase (its /metrics, `pressroom_gc_pause_max_seconds`:
target 50 ms), the attackers' answers by kind (HTTP status and error code), and the CPU
each side used (this machine's cores are shared by the server, PostgreSQL, the displays,
the attackers and the bench). Figures go to bench/hostile-results.json.

The bench never waits without bound: every request has a timeout, every loop a deadline,
each phase a ceiling, and the attack stops early if the server's RSS passes
`hostile_phases.RSS_CEILING_MB`; whatever the server does, the figures are printed.
"""

import argparse
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/hostile.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


from bench import fixture
from bench.hostile_phases import Bench, Plan
from bench.hostile_tables import report
from bench.output import written

RESULTS = Path(__file__).with_name("hostile-results.json")


def parse_args(argv: list[str] | None) -> Plan:
    p = argparse.ArgumentParser(prog="bench.hostile", description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=5, help="length of each phase (5)")
    p.add_argument("--quick", action="store_true", help="two 20-second phases")
    p.add_argument("--json", type=Path, default=RESULTS, help="where to write the figures")
    args = p.parse_args(argv)
    return Plan(phase_seconds=20 if args.quick else args.minutes * 60, json=args.json)


def main(argv: list[str] | None = None) -> int:
    plan = parse_args(argv)

    async def work(url: str, embedded_server: bool) -> dict[str, Any]:
        return {
            "plan": {"phase_seconds": plan.phase_seconds},
            **await Bench(plan, url, embedded_server).run(),
        }

    results = fixture.run_in_database("python -m bench.hostile", work)
    if results is None:
        return 130
    written(plan.json, results, report(results, plan), width=140)
    return 0


if __name__ == "__main__":
    sys.exit(main())
