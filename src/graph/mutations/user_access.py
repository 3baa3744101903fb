"""Whether and how a person signs in (admins): deactivateUser, reactivateUser, setPassword."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db import people
from domain import validation
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import ADMINS, allowed, viewer_of
from graph.types.people import User


@strawberry.input
class DeactivateUserInput:
    user_id: relay.GlobalID = strawberry.field(
        description="The user to deactivate (not the caller)."
    )


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
    user_id: relay.GlobalID = strawberry.field(description="The deactivated user to let in again.")


@strawberry.type
class ReactivateUserPayload:
    user: User | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ADMINS), description="Lets a deactivated person sign in again."
)
async def reactivate_user(info: Info, input: ReactivateUserInput) -> ReactivateUserPayload:
    async def work(conn: AsyncConnection) -> ReactivateUserPayload:
        user_id = require_id(input.user_id, "User", "userId")
        row = await people.set_active(conn, user_id, True, viewer_of(info).user_id)
        return ReactivateUserPayload(user=User.of(row))

    return await mutate(info, ReactivateUserPayload, work, changes_access=True)


@strawberry.input
class SetPasswordInput:
    user_id: relay.GlobalID = strawberry.field(description="The user whose password to set.")
    password: str = strawberry.field(description="The new password: 8 to 256 characters.")


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
        with validation.every_problem() as check:
            user_id = check(require_id, input.user_id, "User", "userId")
            password = check(validation.password, input.password)
        row = await people.set_password(conn, user_id, password)
        return SetPasswordPayload(user=User.of(row))

    return await mutate(info, SetPasswordPayload, work, changes_access=True)
