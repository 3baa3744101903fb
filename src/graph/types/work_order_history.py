"""A work order's history: each move of its status, delivery gate, quote, details or
departments, with what a details change changed, as the caller may see it."""

from datetime import datetime

import strawberry

from db.rows import WorkOrderTransitionRow
from domain.corrections import Change
from domain.enums import WorkOrderAction
from domain.transitions import by_system
from graph.context import Info
from graph.loaders import now_or_later
from graph.permissions import SEES_QUOTES, passes
from graph.types.departments import Department
from graph.types.people import User, user_or_none


@strawberry.type(
    description="One part of a work order a details change changed, in words: a detail "
    "(labelled as detailLines labels it), a flag, the customer or the proof requirement."
)
class DetailChange:
    label: str = strawberry.field(
        description=('The part that changed, in words ("Product", "Transport", "Customer").')
    )
    before: str | None = strawberry.field(description="Its value before; null: it was absent.")
    after: str | None = strawberry.field(description="Its value after; null: it was removed.")


@strawberry.type(
    description="A move of the work order's status or of its delivery gate (OPEN/CLOSED)."
)
class WorkOrderTransition:
    action: WorkOrderAction = strawberry.field(description="What moved.")
    from_state: str = strawberry.field(
        description=('What it was before, in words (a status, a quote like "120.00 EUR", or NONE).')
    )
    to_state: str = strawberry.field(description="What it is after, in the same words.")
    reason: str | None = strawberry.field(
        description="Why, when the move takes a reason; null otherwise."
    )
    occurred_at: datetime = strawberry.field(description="When it moved.")
    by_system: bool = strawberry.field(
        description="Whether Pressroom made this move, not a person: a gate opening or "
        "closing because of what its task waits for, and the status that follows the "
        "tasks (actor is null). Whoever caused it is the actor of that cause's own entry."
    )
    changes: list[DetailChange] = strawberry.field(
        description="For DETAILS_CHANGED, each part that changed, in order; empty otherwise."
    )
    _actor_id: strawberry.Private[int | None]
    _department_id: strawberry.Private[int | None]

    @classmethod
    def of(cls, row: WorkOrderTransitionRow) -> "WorkOrderTransition":
        changed = [Change.of(c) for c in row.changes or ()]
        return cls(
            action=row.action,
            from_state=row.from_state,
            to_state=row.to_state,
            reason=row.reason,
            occurred_at=row.occurred_at,
            by_system=by_system(row.action),
            changes=[DetailChange(label=c.label, before=c.before, after=c.after) for c in changed],
            _actor_id=row.actor_id,
            _department_id=row.department_id,
        )

    @strawberry.field(
        description="For a gate's move, the department whose task it is; for a department "
        "added or removed, that department; null otherwise."
    )
    def department(self, info: Info) -> Department | None:
        if self._department_id is None:
            return None
        return now_or_later(
            info.context.loaders.department.load(self._department_id),
            lambda r: Department.of(r) if r else None,
        )

    @strawberry.field(
        description="Who made it; null for a move of the system (bySystem) and for a "
        "customer's proof decision through their link."
    )
    def actor(self, info: Info) -> User | None:
        return user_or_none(info, self._actor_id)


def seen_history(info: Info, rows: list[WorkOrderTransitionRow]) -> list[WorkOrderTransition]:
    """A work order's history as the viewer may see it: quote changes only for those who
    see quotes."""
    sees_quotes = passes(SEES_QUOTES, info)
    return [
        WorkOrderTransition.of(r)
        for r in rows
        if sees_quotes or r.action != WorkOrderAction.QUOTE_CHANGED
    ]
