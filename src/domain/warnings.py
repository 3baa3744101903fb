"""What a person should know of a change that was made: a mutation's `warnings`, beside
its `userErrors` (which say what was refused)."""

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class WarningCode(StrEnum):
    # The order's due date has passed: it is late from the start (taken late, or moved).
    DUE_IN_PAST = "DUE_IN_PAST"


@dataclass(frozen=True, slots=True)
class Notice:
    code: WarningCode
    message: str


def due_notices(due_at: datetime | None, now: datetime) -> list[Notice]:
    """An order taken or rescheduled with a due date already passed is accepted (it is late,
    and the shop should see it so), and the answer says so."""
    if due_at is None or due_at > now:
        return []
    return [Notice(WarningCode.DUE_IN_PAST, "This order is already late: its due date has passed.")]
