"""People (admins): createUser and setUserDepartments."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db import people
from domain import idempotency, validation
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.mutations.once import changed_field, idempotency_key_field
from graph.permissions import ADMINS, allowed
from graph.types.people import User


@strawberry.input
class CreateUserInput:
    email: str = strawberry.field(description="The sign-in email, unique in any case.")
    name: str = strawberry.field(description="The name shown to others.")
    password: str = strawberry.field(description="The first password: 8 to 256 characters.")
    department_codes: list[str] = strawberry.field(
        description="The departments the person is a member of (may be empty)."
    )
    is_admin: bool = strawberry.field(
        default=False,
        description="Whether the person is an admin (passes every rule but working on tasks).",
    )
    idempotency_key: str | None = idempotency_key_field(
        " The password is not compared (it is never kept, only its hash): a retry answers "
        "the user with the password the first request set."
    )


@strawberry.type
class CreateUserPayload:
    user: User | None = None
    changed: bool = changed_field()
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(extensions=allowed(ADMINS), description="Makes an account for a person.")
async def create_user(info: Info, input: CreateUserInput) -> CreateUserPayload:
    async def work(conn: AsyncConnection) -> CreateUserPayload:
        with validation.every_problem() as check:
            email = check(validation.email, input.email)
            name = check(validation.text, input.name, "name")
            password = check(validation.password, input.password)
            codes = check(validation.codes, input.department_codes)
            key = check(idempotency.optional_key, input.idempotency_key)
        departments = await people.departments_by_codes(conn, codes)
        made = await people.create_user(
            conn,
            email=email,
            name=name,
            password=password,
            is_admin=input.is_admin,
            department_ids=[d.id for d in departments],
            idempotency_key=key,
        )
        return CreateUserPayload(user=User.of(made.user), changed=made.changed)

    return await mutate(info, CreateUserPayload, work)


@strawberry.input
class SetUserDepartmentsInput:
    user_id: relay.GlobalID = strawberry.field(description="The user whose memberships to replace.")
    department_codes: list[str] = strawberry.field(
        description="The user's complete membership after this call."
    )


@strawberry.type
class SetUserDepartmentsPayload:
    user: User | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ADMINS),
    description="Replaces a person's department memberships; their live subscriptions are checked "
    "again.",
)
async def set_user_departments(
    info: Info, input: SetUserDepartmentsInput
) -> SetUserDepartmentsPayload:
    async def work(conn: AsyncConnection) -> SetUserDepartmentsPayload:
        with validation.every_problem() as check:
            user_id = check(require_id, input.user_id, "User", "userId")
            codes = check(validation.codes, input.department_codes)
        departments = await people.departments_by_codes(conn, codes)
        row = await people.set_user_departments(conn, user_id, [d.id for d in departments])
        return SetUserDepartmentsPayload(user=User.of(row))

    return await mutate(info, SetUserDepartmentsPayload, work, changes_access=True)
