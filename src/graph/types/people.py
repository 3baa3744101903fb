"""People: users, and the user a relation names."""

from collections.abc import Iterable

import strawberry
from strawberry import relay

from api.rules import sees_person
from db.rows import (
    DepartmentRow,
    UserRow,
)
from graph.context import Info
from graph.loaders import all_now_or_later, now_or_later
from graph.permissions import (
    SELF,
    SELF_OR_ADMIN,
    STAFF,
    AccessRule,
    allowed,
    rules_passed,
    viewer_of,
)
from graph.prefetch import read_ahead
from graph.types.departments import Department
from graph.types.loading import node_rows


@strawberry.type(description="A person who signs in: staff of the shop's departments, or an admin.")
class User(relay.Node):
    id: relay.NodeID[int]
    name: str = strawberry.field(description="The name shown to others.")
    is_admin: bool = strawberry.field(
        description="Visible to the user and to admins (null with an error to others).",
        extensions=allowed(SELF_OR_ADMIN),
    )
    is_active: bool = strawberry.field(
        extensions=allowed(STAFF),
        description="Whether the person may sign in; false once deactivated.",
    )

    _email: strawberry.Private[str]

    @strawberry.field(
        description="Visible to the user and to admins (null with an error to others).",
        extensions=allowed(SELF_OR_ADMIN),
    )
    def email(self) -> str | None:
        return self._email

    @strawberry.field(
        description="The access rules this person passes, for the screens to offer what "
        "the server allows; only for the person themselves.",
        extensions=allowed(SELF),
    )
    def access(self, info: Info) -> list[AccessRule]:
        return rules_passed(info)

    @strawberry.field(
        extensions=allowed(STAFF),
        metadata=read_ahead("picker_departments"),
        description="The departments the person is a member of.",
    )
    def departments(self, info: Info) -> list[Department]:
        loaders = info.context.loaders
        made = loaders.departments_of_user
        if self.id in made:
            return made[self.id]

        def nodes(rows: list[DepartmentRow | None]) -> list[Department]:
            departments = [Department.of(r) for r in rows if r is not None]
            made[self.id] = departments
            return departments

        return now_or_later(
            loaders.memberships.load(self.id),
            lambda links: all_now_or_later(
                [loaders.department.load(m.department_id) for m in links], nodes
            ),
        )

    @classmethod
    def of(cls, row: UserRow) -> "User":
        return cls(
            id=row.id,
            name=row.name,
            is_admin=row.is_admin,
            is_active=row.is_active,
            _email=row.email,
        )

    @classmethod
    async def resolve_nodes(  # type: ignore[override]
        cls, *, info: Info, node_ids: Iterable[str], required: bool = False
    ) -> list["User | None"]:
        viewer = viewer_of(info)
        loaders = info.context.loaders
        rows = await node_rows(loaders.user, node_ids)
        links = await loaders.memberships.load_many([r.id if r else 0 for r in rows])
        return [
            cls.of(row)
            if row is not None
            and sees_person(viewer, row.id, frozenset(m.department_id for m in memberships))
            else None
            for row, memberships in zip(rows, links, strict=True)
        ]


def user_or_none(info: Info, user_id: int | None) -> User | None:
    """The user, now or (as an awaitable) once loaded; None for no id or no such user."""
    if user_id is None:
        return None
    return now_or_later(
        info.context.loaders.user.load(user_id), lambda r: User.of(r) if r else None
    )
