"""bench/dashboard.py asks for the dashboard page the tests know, and leaves out of its
round-trip count only what the event feed sends in the background."""

import pytest

from bench.dashboard_costs import BACKGROUND
from bench.dashboard_page import DASHBOARD_PAGE
from db.queries import native
from tests.support.client import DASHBOARD_PAGE as TESTS_PAGE


def test_the_bench_page_is_the_dashboard_page() -> None:
    # The bench keeps a copy (it does not import the tests): it must not drift.
    assert DASHBOARD_PAGE == TESTS_PAGE


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
