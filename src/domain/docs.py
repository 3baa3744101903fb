"""Renders the transition table for the README, so the docs read the same data as the writer."""

from domain.enums import TaskStatus
from domain.transitions import TRANSITIONS


def transition_table() -> str:
    order = list(TaskStatus)
    rows = [
        "| action | from | to | who | reason | extra guard |",
        "|---|---|---|---|---|---|",
    ]
    for t in TRANSITIONS.values():
        guards = []
        if t.requires_available:
            guards.append("task available (`availableAt <= now`)")
        guards.append(
            "work order ACTIVE" if t.requires_active_order else "work order not CANCELLED"
        )
        if t.requires_unheld:
            guards.append("work order not on hold")
        sources = ", ".join(s.value for s in sorted(t.sources, key=order.index))
        rows.append(
            f"| {t.action.value} | {sources} | {t.target.value} | {t.who.value} "
            f"| {'required' if t.reason_required else '-'} | {'; '.join(guards)} |"
        )
    return "\n".join(rows)
