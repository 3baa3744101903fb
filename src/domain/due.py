"""How an order stands against its due date, from the server's fields: when it was
completed, and what paper says of it. The screens say the same live (web/lib/format.js,
dueText); lateness now is `is_late` (domain/transitions.py)."""

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from domain.enums import WorkOrderStatus


def paper_due(
    status: WorkOrderStatus, due_at: datetime | None, done_at: datetime | None, zone: ZoneInfo
) -> str | None:
    """A due date on paper (the job ticket, in the app and as a PDF): the whole date in the
    shop's zone, named, as the paper travels without the app; then how a closed order
    ended, by the screens' rule (web/lib/format.js, dueText): "done on time", "done 16 h
    late", "cancelled". An open order's countdown is the screens' alone: paper goes stale."""
    if due_at is None:
        return None
    local = due_at.astimezone(zone)
    line = f"Due {local:%Y-%m-%d %H:%M} {local:%Z}"
    if status is WorkOrderStatus.CANCELLED:
        return f"{line} · cancelled"
    if status is WorkOrderStatus.COMPLETED:
        if done_at is None:
            return f"{line} · done"
        late = done_at - due_at
        return (
            f"{line} · done {_span(late)} late" if late > timedelta(0) else f"{line} · done on time"
        )
    return line


def _span(length: timedelta) -> str:
    """ "under 1 min", "12 min", "3 h 5 min", then "2 days" from 48 hours on (dueText's)."""
    minutes = int(length.total_seconds() // 60)
    if minutes < 1:
        return "under 1 min"
    if minutes < 60:
        return f"{minutes} min"
    if minutes < 48 * 60:
        return f"{minutes // 60} h {minutes % 60} min"
    return f"{minutes // (24 * 60)} days"


def completed_at(status: WorkOrderStatus, last_completed_at: datetime | None) -> datetime | None:
    """When a COMPLETED order was completed (its last completion: a reopened task makes it
    ACTIVE again); null for any other status, and for one imported closed without a date."""
    return last_completed_at if status is WorkOrderStatus.COMPLETED else None
