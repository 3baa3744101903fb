"""Flow figures from history (departmentFlow, flowSummary): a day of a shop written through
the real writers at fixed moments, every figure compared with a hand calculation (releases,
a reopen, an admin's completion of a pending task, a cancelled order, a removed task, work
begun before the window and ended after it), days counted in the shop's time zone, and who
may ask."""

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import text

from db import clock, flow
from db.cancellation import cancel_work_order
from db.corrections import remove_department
from db.engine import unit_of_work
from db.tasks import Actor, transition_task
from domain.enums import TaskAction
from domain.flow import window
from tests.support.client import Client
from tests.support.database import task_ids
from tests.support.shop import Shop

BASE = datetime(2026, 11, 2, 20, 0, tzinfo=UTC)
WINDOW = (BASE, BASE + timedelta(days=1))
MIN = 60.0

SUMMARY = """query Flow($from: DateTime!, $to: DateTime!) {
  flowSummary(from: $from, to: $to) {
    departments { department { code } started completed wip waiting
      waitTime { count p50 p85 max } workTime { count p50 p85 max }
      perDay { day completed } }
    onTime { completed onTime lateNow rate } leadTime { count p50 p85 max } } }"""
ONE = """query Flow($d: String!, $from: DateTime!, $to: DateTime!) {
  departmentFlow(department: $d, from: $from, to: $to) {
    started completed wip waiting waitTime { count p50 } workTime { count p50 } } }"""


def at(minute: float) -> datetime:
    return BASE + timedelta(minutes=minute)


class Day:
    """The shop's writers, each step in a transaction of its own stamped at a minute."""

    def __init__(self, shop: Shop) -> None:
        self.shop = shop
        self.tasks: dict[str, dict[str, int]] = {}

    async def order(self, name: str, minute: float, codes: list[str], **extra: Any) -> int:
        order = await self.shop.order(codes, at=at(minute), **extra)
        self.tasks[name] = await task_ids(self.shop.engine, order)
        self.tasks[name]["order"] = order
        return order

    async def move(self, minute: float, name: str, code: str, action: TaskAction, who: str) -> None:
        admin = who == "ada"
        async with unit_of_work(self.shop.engine) as conn:
            await clock.stamp_as_of(conn, at(minute))
            await transition_task(
                conn,
                self.tasks[name][code],
                action,
                Actor(self.shop.users[who], admin),
                "Checked by the office." if admin else None,
            )


async def a_day(shop: Shop) -> None:
    """Print and Finishing gate delivery; no routing (production tasks open at creation).
    Minutes from BASE; the window is the first 1,440 of them."""
    day = Day(shop)
    s, F, R = TaskAction.START, TaskAction.FINISH, TaskAction.RELEASE
    # A: due at 180, completed at 200 (late). Print released and restarted.
    await day.order("A", 0, ["print", "finishing"], due_at=at(180))
    await day.order("D", -60, ["finishing"])
    await day.move(-30, "D", "finishing", s, "fin")
    await day.move(10, "A", "print", s, "pat")
    await day.move(20, "A", "print", R, "pat")
    await day.move(30, "D", "finishing", F, "fin")  # D's delivery gate opens
    await day.order("B", 30, ["print"], due_at=at(300))
    await day.order("C", 40, ["print", "finishing"])
    await day.move(45, "C", "print", s, "pia")
    await day.move(50, "A", "print", s, "pia")
    await day.move(60, "B", "print", s, "pat")
    await day.move(70, "C", "print", F, "pia")
    async with unit_of_work(shop.engine) as conn:
        await clock.stamp_as_of(conn, at(75))
        await cancel_work_order(conn, day.tasks["C"]["order"], shop.users["ada"], "Withdrawn.")
    await day.move(80, "A", "print", F, "pia")
    await day.move(90, "A", "finishing", s, "fin")
    await day.move(100, "B", "print", F, "pat")  # B's delivery gate opens
    await day.move(120, "B", "print", TaskAction.REOPEN, "ada")  # and closes
    await day.move(140, "B", "print", s, "pat")
    await day.move(145, "B", "print", F, "pat")  # and opens again
    await day.move(150, "A", "finishing", F, "fin")  # A's delivery gate opens
    await day.move(160, "B", "delivery", TaskAction.OVERRIDE_COMPLETE, "ada")  # B completed
    await day.move(170, "A", "delivery", s, "dan")
    await day.move(200, "A", "delivery", F, "dan")  # A completed
    await day.order("E", 200, ["print"])
    await day.move(210, "E", "print", s, "pat")
    await day.order("F", 220, ["print", "finishing"])
    await day.order("G", 300, ["finishing"])
    await day.move(310, "G", "finishing", s, "fin")
    await day.move(320, "G", "finishing", R, "fin")
    await day.order("H", 400, ["print", "finishing"])
    async with unit_of_work(shop.engine) as conn:
        await clock.stamp_as_of(conn, at(410))
        await remove_department(
            conn, day.tasks["H"]["order"], "finishing", "Not needed.", None,
            Actor(shop.users["sam"], False, is_sales=True),
        )  # fmt: skip
    await day.move(1500, "D", "delivery", s, "dan")  # after the window


def stats(values: list[float]) -> dict[str, Any]:
    """By hand: percentile_cont's linear interpolation between the closest ranks."""
    ordered = sorted(values)

    def cont(fraction: float) -> float:
        rank = fraction * (len(ordered) - 1)
        low = int(rank)
        high = min(low + 1, len(ordered) - 1)
        return ordered[low] + (rank - low) * (ordered[high] - ordered[low])

    if not ordered:
        return {"count": 0, "p50": None, "p85": None, "max": None}
    return {"count": len(ordered), "p50": cont(0.5), "p85": cont(0.85), "max": ordered[-1]}


EXPECTED = {
    # Starts: A at 50 (available since 0; the release does not restart the wait), B at 140
    # (reopened at 120), E at 210 (since 200); C's is a cancelled order's.
    # Completions: A at 80 (from its start at 50), B at 145 (its last; from 140).
    "print": {
        "started": 3, "completed": 2, "wip": 1, "waiting": 2,  # E started; F, H waiting
        "waitTime": stats([50 * MIN, 20 * MIN, 10 * MIN]),
        "workTime": stats([30 * MIN, 5 * MIN]),
        "perDay": [2, 0],
    },
    # Starts: A at 90 (since 0), G at 310 (since 300; released since, still counted);
    # D's final start was before the window. Completions: A at 150 (from 90), D at 30
    # (from -30). H's task was removed.
    "finishing": {
        "started": 2, "completed": 2, "wip": 0, "waiting": 2,  # F, G
        "waitTime": stats([90 * MIN, 10 * MIN]),
        "workTime": stats([60 * MIN, 60 * MIN]),
        "perDay": [2, 0],
    },
    # Starts: A at 170, its gate open since 150 (D's start is after the window).
    # Completions: A at 200 (from 170), B at 160 by an admin from PENDING (no work time).
    "delivery": {
        "started": 1, "completed": 2, "wip": 1, "waiting": 0,  # D started, after the window
        "waitTime": stats([20 * MIN]),
        "workTime": stats([30 * MIN]),
        "perDay": [2, 0],
    },
    "design": {
        "started": 0, "completed": 0, "wip": 0, "waiting": 0,
        "waitTime": stats([]), "workTime": stats([]), "perDay": [0, 0],
    },
}  # fmt: skip


def as_expected(answer: dict[str, Any]) -> dict[str, Any]:
    return {
        key: [d["completed"] for d in value] if key == "perDay" else value
        for key, value in answer.items()
        if key != "department"
    }


async def test_every_figure_matches_a_hand_calculation(shop: Shop, api: Client) -> None:
    await a_day(shop)
    variables = {"from": WINDOW[0].isoformat(), "to": WINDOW[1].isoformat()}
    answer = (await api.as_(shop.tokens["sam"])(SUMMARY, variables))["flowSummary"]
    by_code = {d["department"]["code"]: as_expected(d) for d in answer["departments"]}
    assert by_code == EXPECTED
    days = [d["day"] for d in answer["departments"][0]["perDay"]]
    assert days == ["2026-11-02", "2026-11-03"]
    # Orders completed in the window: A at 200 (due 180: late; created at 0), B at 160
    # (due 300: on time; created at 30). D is not complete; C was cancelled.
    assert answer["onTime"] == {"completed": 2, "onTime": 1, "lateNow": 0, "rate": 0.5}
    assert answer["leadTime"] == stats([200 * MIN, 130 * MIN])
    one = await api.as_(shop.tokens["ada"])(ONE, {"d": "print", **variables})
    assert one["departmentFlow"] == {
        "started": 3, "completed": 2, "wip": 1, "waiting": 2,
        "waitTime": {"count": 3, "p50": 20 * MIN}, "workTime": {"count": 2, "p50": 17.5 * MIN},
    }  # fmt: skip


async def test_the_on_time_rate_counts_open_orders_late_now_as_late(
    shop: Shop, api: Client
) -> None:
    now = datetime.now(UTC)

    def hours(n: float) -> datetime:
        return now + timedelta(hours=n)

    kept = await shop.order(["print"], at=hours(-5), due_at=hours(2))
    missed = await shop.order(["print"], at=hours(-5), due_at=hours(-2))
    await shop.order(["print"], at=hours(-5), due_at=hours(-1))  # open, late now
    await shop.order(["print"], at=hours(-5), due_at=hours(3))  # open, not due yet
    dropped = await shop.order(["print"], at=hours(-5), due_at=hours(-1))
    await shop.order(["print"], at=hours(-30), due_at=hours(-20))  # late, before the window
    for order in (kept, missed):
        await shop.complete(order)
    async with unit_of_work(shop.engine) as conn:
        await cancel_work_order(conn, dropped, shop.users["ada"], "Withdrawn.")
    variables = {"from": hours(-24).isoformat(), "to": (now + timedelta(minutes=5)).isoformat()}
    answer = (await api.as_(shop.tokens["sam"])(SUMMARY, variables))["flowSummary"]
    # Done on time, done late; two open and late now, one of them due before the window
    # (still late now: it counts); the cancelled one and the one not due yet count nowhere.
    assert answer["onTime"] == {"completed": 2, "onTime": 1, "lateNow": 2, "rate": 0.25}


QUEUE = """query Queue($d: String!) {
  queue(department: $d, first: 10) { edges { node { availableAt waitingSince } } } }"""


async def test_a_queue_card_waits_by_the_rule_the_wait_time_measures(
    shop: Shop, api: Client
) -> None:
    day = Day(shop)
    s, F, R = TaskAction.START, TaskAction.FINISH, TaskAction.RELEASE
    await day.order("A", 0, ["print"])
    await day.move(10, "A", "print", s, "pat")
    await day.move(20, "A", "print", R, "pat")
    await day.order("B", 30, ["print"])
    await day.move(40, "B", "print", s, "pat")
    await day.move(50, "B", "print", F, "pat")
    await day.move(60, "B", "print", TaskAction.REOPEN, "ada")
    answer = await api.as_(shop.tokens["pat"])(QUEUE, {"d": "print"})
    waits = [e["node"] for e in answer["queue"]["edges"]]
    # A was released: its wait still runs from its creation; B's restarted at its reopen,
    # as waitTime would count either when it starts.
    assert [(w["availableAt"], w["waitingSince"]) for w in waits] == [
        (at(0).isoformat(), at(0).isoformat()),
        (at(30).isoformat(), at(60).isoformat()),
    ]


async def projection(shop: Shop) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Every task's flow facts, and every order's last completion."""
    async with shop.engine.connect() as conn:
        tasks = await conn.execute(
            text(
                "SELECT id, last_started_at, waited_seconds, last_completed_at, worked_seconds "
                "FROM department_tasks ORDER BY id"
            )
        )
        orders = await conn.execute(
            text("SELECT id, last_completed_at FROM work_orders ORDER BY id")
        )
        return [tuple(r) for r in tasks], [tuple(r) for r in orders]


async def test_the_writers_keep_the_projection_history_rebuilds(shop: Shop) -> None:
    await a_day(shop)
    tasks, orders = kept = await projection(shop)
    # Two orders a transaction, as `pressroom rebuild-flow` does it a thousand at a time.
    assert await flow.rebuild_all(shop.engine, batch=2) == len(tasks)
    assert await projection(shop) == kept
    # Starts and completions were projected (not a table of nulls agreeing with itself):
    # 9 tasks started, 7 completed, orders A and B completed.
    assert sum(row[1] is not None for row in tasks) == 9
    assert sum(row[3] is not None for row in tasks) == 7
    assert sum(row[1] is not None for row in orders) == 2


async def test_a_window_that_misses_the_work_counts_none_of_it(shop: Shop, api: Client) -> None:
    await a_day(shop)
    later = {"from": at(1441).isoformat(), "to": at(1441 + 60).isoformat()}
    answer = (await api.as_(shop.tokens["sam"])(SUMMARY, later))["flowSummary"]
    delivery = next(d for d in answer["departments"] if d["department"]["code"] == "delivery")
    # D's delivery started at 1500, from its gate's opening at 30.
    assert delivery["started"] == 1 and delivery["waitTime"]["max"] == 1470 * MIN
    assert sum(d["completed"] for d in answer["departments"]) == 0
    assert answer["onTime"] == {"completed": 0, "onTime": 0, "lateNow": 0, "rate": None}


async def test_days_are_counted_in_the_shops_time_zone(shop: Shop) -> None:
    await a_day(shop)
    async with shop.engine.connect() as conn:
        tokyo = await flow.department_flow(
            conn, window(*WINDOW), [shop.departments["print"]], ZoneInfo("Asia/Tokyo")
        )
    # 20:00 UTC is 05:00 the next morning in Tokyo; both completions (21:20, 22:25 UTC)
    # fall on Tokyo's 3 November.
    assert [(d.isoformat(), n) for d, n in tokyo[0].per_day] == [
        ("2026-11-03", 2),
        ("2026-11-04", 0),
    ]


@pytest.mark.parametrize(
    ("who", "allowed"), [("sam", True), ("ada", True), ("abe", False), ("pat", False)]
)
async def test_sales_and_admins_may_ask(shop: Shop, api: Client, who: str, allowed: bool) -> None:
    variables = {"from": WINDOW[0].isoformat(), "to": WINDOW[1].isoformat()}
    body = await api.as_(shop.tokens[who]).raw(SUMMARY, variables)
    codes = [e["extensions"]["code"] for e in body.get("errors", [])]
    assert codes == ([] if allowed else ["FORBIDDEN"])


@pytest.mark.parametrize(
    ("start", "end", "department", "message"),
    [
        (
            "2026-11-02T00:00:00",
            "2026-11-03T00:00:00Z",
            "print",
            "Give the start with its time zone",
        ),
        (
            "2026-11-03T00:00:00Z",
            "2026-11-02T00:00:00Z",
            "print",
            "The end of the window must be later than its start",
        ),
        ("2025-01-01T00:00:00Z", "2026-11-02T00:00:00Z", "print", "at most 400 days"),
        ("2026-11-02T00:00:00Z", "2026-11-03T00:00:00Z", "sales", "not the code of a department"),
        ("2026-11-02T00:00:00Z", "2026-11-03T00:00:00Z", "nope", "not the code of a department"),
    ],
)
async def test_a_bad_window_or_department_is_refused_in_words(
    shop: Shop, api: Client, start: str, end: str, department: str, message: str
) -> None:
    body = await api.as_(shop.tokens["sam"]).raw(ONE, {"d": department, "from": start, "to": end})
    assert body["data"] is None
    assert [e["extensions"]["code"] for e in body["errors"]] == ["BAD_REQUEST"]
    assert message in body["errors"][0]["message"]
