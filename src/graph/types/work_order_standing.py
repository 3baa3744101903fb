"""Where a work order stands besides its status: why, since when and by whom it is on
hold, and how many of its tasks are done."""

from datetime import datetime

import strawberry

from db.rows import WorkOrderRow
from graph.context import Info
from graph.loaders import now_or_later
from graph.types.loading import required
from graph.types.people import User


@strawberry.type(description="Why and since when a work order is on hold, and who held it.")
class Hold:
    reason: str = strawberry.field(description="Why the order is on hold, in words.")
    since: datetime = strawberry.field(description="When it was put on hold.")
    _by: strawberry.Private[int]

    @classmethod
    def of(cls, row: WorkOrderRow) -> "Hold | None":
        if row.held_at is None or row.held_by is None or row.hold_reason is None:
            return None
        return cls(reason=row.hold_reason, since=row.held_at, _by=row.held_by)

    @strawberry.field(description="Who put it on hold.")
    def by(self, info: Info) -> User:
        return now_or_later(
            info.context.loaders.user.load(self._by), lambda r: required(r, User.of)
        )


@strawberry.type(description="How far a work order's tasks have come.")
class Progress:
    done: int = strawberry.field(description="Tasks completed.")
    total: int = strawberry.field(description="All the order's tasks, delivery included.")

    @classmethod
    def of(cls, counted: tuple[int, int]) -> "Progress":
        done, total = counted
        return cls(done=done, total=total)
