"""setDepartmentFollows (admins): which departments' tasks a department's tasks wait for."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection

from db.routing import set_follows
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import ADMINS, allowed
from graph.types.departments import Department


@strawberry.input
class SetDepartmentFollowsInput:
    department_code: str = strawberry.field(
        description="The production department whose list to replace."
    )
    follows_codes: list[str] = strawberry.field(
        description="The production departments it follows (empty: none). Replaces the "
        "list; a loop is refused."
    )


@strawberry.type
class SetDepartmentFollowsPayload:
    department: Department | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ADMINS),
    description="Route work: on every order, the department's task waits until the "
    "order's tasks of the departments it follows are completed (through departments the "
    "order lacks). Open orders follow the new routing at once.",
)
async def set_department_follows(
    info: Info, input: SetDepartmentFollowsInput
) -> SetDepartmentFollowsPayload:
    async def work(conn: AsyncConnection) -> SetDepartmentFollowsPayload:
        row = await set_follows(conn, input.department_code, input.follows_codes)
        return SetDepartmentFollowsPayload(department=Department.of(row))

    return await mutate(info, SetDepartmentFollowsPayload, work)
