"""Flow figures: how long tasks wait and take, department by department, over a window of
history (db/flow.py reads them in SQL; the rules of what counts are written there)."""

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from domain.validation import invalid, zoned

MAX_DAYS = 400


@dataclass(frozen=True)
class Window:
    """[start, end): the moments a figure looks at."""

    start: datetime
    end: datetime

    def days(self, zone: ZoneInfo) -> list[date]:
        """The calendar days in `zone` that the window touches, in order."""
        first = self.start.astimezone(zone).date()
        last = (self.end - timedelta(microseconds=1)).astimezone(zone).date()
        return [first + timedelta(days=n) for n in range((last - first).days + 1)]


def window(start: datetime, end: datetime) -> Window:
    for value, field in ((start, "from"), (end, "to")):
        zoned(value, field)
    if end <= start:
        raise invalid("The end of the window must be later than its start.", "to")
    if end - start > timedelta(days=MAX_DAYS):
        raise invalid(f"A window can be at most {MAX_DAYS} days long.", "to")
    return Window(start, end)


def waiting_since(available_at: datetime | None, reopened_at: datetime | None) -> datetime | None:
    """When a task's present wait began, as a flow figure's waitTime measures it up to the
    task's start: the later of when it became available and its last reopen (a release
    or a hold does not restart it); None while its gate is closed."""
    if available_at is None:
        return None
    return max(available_at, reopened_at) if reopened_at is not None else available_at


@dataclass(frozen=True)
class DurationStats:
    """Seconds: the median, the 85th percentile (interpolated) and the longest, over
    `count` tasks; none of them when there are none."""

    count: int
    p50: float | None
    p85: float | None
    max: float | None


@dataclass(frozen=True)
class DepartmentFlow:
    department_id: int
    started: int
    completed: int
    wait: DurationStats
    work: DurationStats
    wip: int
    waiting: int
    per_day: list[tuple[date, int]]


@dataclass(frozen=True)
class OrderFlow:
    completed_with_due: int
    on_time: int
    # Active orders past their due date now, due before the window's end: late already,
    # whenever they are done, so the rate counts them as late (an order still open
    # cannot make a late shop read 100 %).
    late_now: int
    lead: DurationStats
    # Of the orders with proofs: how long their proofs waited for the customer's decision.
    customer_wait: DurationStats

    @property
    def on_time_rate(self) -> float | None:
        counted = self.completed_with_due + self.late_now
        return self.on_time / counted if counted else None
