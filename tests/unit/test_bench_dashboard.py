"""bench/dashboard.py leaves out of its round-trip count only what the event feed sends in
the background."""

import pytest

from bench.dashboard_costs import BACKGROUND
from db.queries import native


@pytest.mark.parametrize("name", ["events_head", "events_after", "events_lag", "notify_events"])
def test_the_feeds_statements_are_left_out(name: str) -> None:
    assert BACKGROUND.search(native(name)[0])


@pytest.mark.parametrize("shown", ["SELECT 1", "SELECT $1"])
def test_the_listeners_probe_is_left_out(shown: str) -> None:
    assert BACKGROUND.search(shown)


@pytest.mark.parametrize(
    "name", ["work_orders_page", "tasks_by_work_order", "task_history", "work_order_history"]
)
def test_the_pages_statements_count(name: str) -> None:
    assert not BACKGROUND.search(native(name)[0])
