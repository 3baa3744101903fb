"""A token's window of cost points: spent within it, refused whole past it, renewed whole
once it ends; ended windows are let go when many tokens are kept."""

import pytest

from api import cost_window
from api.cost_window import CostWindow


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(cost_window.time, "time", clock)
    return clock


def test_a_window_is_spent_refused_whole_and_renewed(clock: Clock) -> None:
    windows = CostWindow("100/minute")
    assert windows.spend(1, 60)
    clock.now += 30
    assert not windows.spend(1, 41)  # 40 left: refused, and takes nothing
    assert windows.spend(1, 40)
    assert not windows.spend(1, 1)
    window = windows.window(1)
    assert (window.limit, window.remaining, window.reset) == (100, 0, 1_000_060)
    assert window.retry_after == 30
    assert windows.window(2).remaining == 100  # each token its own
    clock.now += 30  # the window started at the first spend has ended
    assert windows.window(1).remaining == 100
    assert windows.spend(1, 100)
    assert windows.window(1).reset == 1_000_120


def test_ended_windows_are_let_go(clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cost_window, "KEPT", 3)
    windows = CostWindow("100/minute")
    for token in (1, 2):
        windows.spend(token, 10)
    clock.now += 59
    windows.spend(3, 10)
    clock.now += 2  # 1 and 2 have ended, 3 has not
    windows.spend(4, 10)
    assert sorted(windows._spent) == [3, 4]
    assert windows.window(3).remaining == 90
