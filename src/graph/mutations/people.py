"""createDepartment, createUser and setUserDepartments (admin only)."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from db import people
from domain import validation
from domain.enums import DepartmentKind
from domain.enums import DepartmentKind as Kind
from graph.context import Info
from graph.errors import UserError
from graph.ids import require_id
from graph.mutations.base import mutate
from graph.permissions import ADMINS, allowed, viewer_of
from graph.types.nodes import Department, User


@strawberry.input
class CreateDepartmentInput:
    code: str = strawberry.field(description="Lowercase slug, unique.")
    name: str
    kind: DepartmentKind
    gates_delivery: bool | None = strawberry.field(
        default=None,
        description="Defaults to true for PRODUCTION (false for e.g. Design); only "
        "PRODUCTION departments can gate delivery.",
    )


@strawberry.type
class CreateDepartmentPayload:
    department: Department | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(extensions=allowed(ADMINS))
async def create_department(info: Info, input: CreateDepartmentInput) -> CreateDepartmentPayload:
    async def work(conn: AsyncConnection) -> CreateDepartmentPayload:
        row = await people.create_department(
            conn,
            validation.slug(input.code),
            validation.text(input.name, "name"),
            Kind(input.kind),
            input.gates_delivery,
        )
        return CreateDepartmentPayload(department=Department.of(row))

    return await mutate(info, CreateDepartmentPayload, work)


@strawberry.input
class CreateUserInput:
    email: str
    name: str
    password: str
    department_codes: list[str]
    is_admin: bool = False


@strawberry.type
class CreateUserPayload:
    user: User | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(extensions=allowed(ADMINS))
async def create_user(info: Info, input: CreateUserInput) -> CreateUserPayload:
    async def work(conn: AsyncConnection) -> CreateUserPayload:
        email = validation.email(input.email)
        name = validation.text(input.name, "name")
        password = validation.password(input.password)
        departments = await people.departments_by_codes(
            conn, validation.codes(input.department_codes)
        )
        row = await people.create_user(
            conn,
            email=email,
            name=name,
            password=password,
            is_admin=input.is_admin,
            department_ids=[d.id for d in departments],
        )
        return CreateUserPayload(user=User.of(row))

    return await mutate(info, CreateUserPayload, work)


@strawberry.input
class SetUserDepartmentsInput:
    user_id: relay.GlobalID
    department_codes: list[str] = strawberry.field(
        description="The user's complete membership after this call."
    )


@strawberry.type
class SetUserDepartmentsPayload:
    user: User | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(extensions=allowed(ADMINS))
async def set_user_departments(
    info: Info, input: SetUserDepartmentsInput
) -> SetUserDepartmentsPayload:
    async def work(conn: AsyncConnection) -> SetUserDepartmentsPayload:
        user_id = require_id(input.user_id, "User", "userId")
        departments = await people.departments_by_codes(
            conn, validation.codes(input.department_codes)
        )
        row = await people.set_user_departments(conn, user_id, [d.id for d in departments])
        return SetUserDepartmentsPayload(user=User.of(row))

    return await mutate(info, SetUserDepartmentsPayload, work, changes_access=True)


@strawberry.input
class DeactivateUserInput:
    user_id: relay.GlobalID


@strawberry.type
class DeactivateUserPayload:
    user: User | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ADMINS),
    description="The user can no longer sign in; every token of theirs stops working "
    "at once, live subscriptions included.",
)
async def deactivate_user(info: Info, input: DeactivateUserInput) -> DeactivateUserPayload:
    async def work(conn: AsyncConnection) -> DeactivateUserPayload:
        user_id = require_id(input.user_id, "User", "userId")
        row = await people.set_active(conn, user_id, False, viewer_of(info).user_id)
        return DeactivateUserPayload(user=User.of(row))

    return await mutate(info, DeactivateUserPayload, work, changes_access=True)


@strawberry.input
class ReactivateUserInput:
    user_id: relay.GlobalID


@strawberry.type
class ReactivateUserPayload:
    user: User | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(extensions=allowed(ADMINS))
async def reactivate_user(info: Info, input: ReactivateUserInput) -> ReactivateUserPayload:
    async def work(conn: AsyncConnection) -> ReactivateUserPayload:
        user_id = require_id(input.user_id, "User", "userId")
        row = await people.set_active(conn, user_id, True, viewer_of(info).user_id)
        return ReactivateUserPayload(user=User.of(row))

    return await mutate(info, ReactivateUserPayload, work, changes_access=True)


@strawberry.input
class SetPasswordInput:
    user_id: relay.GlobalID
    password: str


@strawberry.type
class SetPasswordPayload:
    user: User | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ADMINS),
    description="Sets a user's password (e.g. for imported users); their sessions end.",
)
async def set_password(info: Info, input: SetPasswordInput) -> SetPasswordPayload:
    async def work(conn: AsyncConnection) -> SetPasswordPayload:
        user_id = require_id(input.user_id, "User", "userId")
        row = await people.set_password(conn, user_id, validation.password(input.password))
        return SetPasswordPayload(user=User.of(row))

    return await mutate(info, SetPasswordPayload, work, changes_access=True)
