"""bench.run's arguments: part 3 compares the floor with and without subscribers, so a run
without any is refused before it starts, not by a KeyError minutes into it."""

import pytest

from bench.run import parse_args


@pytest.mark.parametrize("count", ["0", "-3"])
def test_a_run_without_subscribers_is_refused(count: str) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--quick", "--subscribers", count])


def test_one_subscriber_is_a_run() -> None:
    assert parse_args(["--quick", "--subscribers", "1"]).subscribers == 1
