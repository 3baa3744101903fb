"""bench/history.py writes what the writers would: every task's history is a path through
the transition table, ending in the task's status, each move with its event; the gates
and the orders' status follow domain.workflow; transaction ids follow the moments; and a
shorter history is the end of a longer one."""

import collections
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bench import history
from bench.shop import Shop
from domain.enums import TaskAction, TaskStatus, WorkOrderAction
from domain.transitions import TRANSITIONS, by_system

SHOP = Shop(
    department_ids=[1, 2, 3, 4, 5, 6],
    delivery_id=7,
    admin_id=1,
    customer_id=1,
    worker_ids=list(range(2, 10)),
)
END = datetime(2026, 12, 3, 12, tzinfo=UTC)
SHAPE = history.Shape(orders=400, every=timedelta(hours=1))


@pytest.fixture(scope="module")
def rows() -> history.Rows:
    return history.generate(SHOP, SHAPE, END, first_xid=1000).rows


def table(rows: history.Rows, name: str) -> list[dict[str, Any]]:
    return [dict(zip(history.COLUMNS[name], row, strict=True)) for row in rows[name]]


def test_each_task_moves_along_the_transition_table_to_its_status(rows: history.Rows) -> None:
    moves = collections.defaultdict(list)
    for move in table(rows, "task_transitions"):
        moves[move["task_id"]].append(move)
    for task in table(rows, "department_tasks"):
        status = TaskStatus.PENDING
        for move in moves[task["id"]]:
            rule = TRANSITIONS[TaskAction(move["action"])]
            assert move["from_status"] == status and status in rule.sources
            assert move["to_status"] == rule.target
            assert (move["reason"] is not None) == rule.reason_required
            status = rule.target
        assert task["status"] == status
        opened = task["available_at"] not in (None, task["created_at"])
        assert task["version"] == 1 + len(moves[task["id"]]) + opened


def test_every_move_and_gate_has_its_event(rows: history.Rows) -> None:
    kinds = collections.Counter(event[1] for event in rows["events"])
    order_moves = collections.Counter(move[1] for move in rows["work_order_transitions"])
    assert kinds["TASK_CHANGED"] == len(rows["task_transitions"])
    assert kinds["TASK_CREATED"] == len(rows["department_tasks"])
    assert kinds["WORK_ORDER_CREATED"] == len(rows["work_orders"])
    assert kinds["DELIVERY_GATE_OPENED"] == order_moves["OPEN_GATE"]
    assert kinds["WORK_ORDER_CHANGED"] == order_moves["COMPLETE"]


def test_the_systems_moves_name_no_actor(rows: history.Rows) -> None:
    """As settle_work_order writes them: the table refuses an actor on these."""
    moves = table(rows, "work_order_transitions")
    system = [m for m in moves if by_system(WorkOrderAction(m["action"]))]
    assert {m["action"] for m in system} == {"OPEN_GATE", "COMPLETE"}
    assert all(m["actor_id"] is None for m in system)


def test_the_delivery_gate_opens_when_production_is_done_and_orders_complete_with_it(
    rows: history.Rows,
) -> None:
    tasks = collections.defaultdict(list)
    for task in table(rows, "department_tasks"):
        tasks[task["work_order_id"]].append(task)
    for order in table(rows, "work_orders"):
        *production, delivery = tasks[order["id"]]
        assert delivery["department_id"] == SHOP.delivery_id
        done = [t["completed_at"] for t in production if t["status"] == "COMPLETED"]
        if len(done) == len(production):
            assert delivery["available_at"] == max(done)
        else:
            assert delivery["available_at"] is None and delivery["status"] == "PENDING"
        completed = order["status"] == "COMPLETED"
        assert completed == (delivery["status"] == "COMPLETED")
        assert order["last_completed_at"] == (delivery["completed_at"] if completed else None)


def test_transaction_ids_follow_the_moments_and_the_end_leaves_work_open(
    rows: history.Rows,
) -> None:
    events = table(rows, "events")
    assert all(e["occurred_at"] <= END for e in events)
    by_xid = sorted(events, key=lambda e: e["xid"])
    assert [e["occurred_at"] for e in by_xid] == sorted(e["occurred_at"] for e in events)
    assert by_xid[0]["xid"] == 1000
    payloads = [json.loads(e["payload"]) for e in events if e["type"] == "TASK_CHANGED"]
    assert all(p["toStatus"] == p["status"] for p in payloads)
    open_tasks = [t for t in rows["department_tasks"] if t[3] != "COMPLETED"]
    assert 0 < len(open_tasks) < len(rows["department_tasks"]) / 10


def test_a_shorter_history_is_the_end_of_the_longer_one(rows: history.Rows) -> None:
    week = history.generate(SHOP, SHAPE.last(timedelta(days=7)), END).rows
    assert len(week["work_orders"]) == 7 * 24

    def tail(orders: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        return [order[1:] for order in orders[-7 * 24 :]]

    assert tail(week["work_orders"]) == tail(rows["work_orders"])
