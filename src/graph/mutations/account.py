"""The caller's own account: logout and changePassword."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection

from db import people
from domain import validation
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import STAFF, allowed, viewer_of
from graph.throttle import Namespace, throttled, user_account
from graph.types.people import User
from graph.types.tokens import Token


@strawberry.input
class LogoutInput:
    everywhere: bool = strawberry.field(
        default=False, description="Also end every other session of this user."
    )
    revoke_api_tokens: bool = strawberry.field(
        default=False,
        description="With everywhere: end this user's API tokens too (a leak suspected).",
    )


@strawberry.type
class LogoutPayload:
    token: Token | None = strawberry.field(default=None, description="The revoked token.")
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(STAFF), description="Revokes the token the request came with."
)
async def logout(info: Info, input: LogoutInput) -> LogoutPayload:
    """Revokes the token this request came with (a session, or an API token)."""

    async def work(conn: AsyncConnection) -> LogoutPayload:
        viewer = viewer_of(info)
        if input.revoke_api_tokens and not input.everywhere:
            raise validation.invalid(
                "revokeApiTokens goes with everywhere: true.", "revokeApiTokens"
            )
        if input.everywhere:
            kinds = people.PASSWORD_MADE if input.revoke_api_tokens else people.SESSIONS
            await people.revoke_sessions(conn, viewer.user_id, keep=viewer.token_id, kinds=kinds)
        [revoked] = await people.revoke_tokens(conn, [viewer.token_id])
        return LogoutPayload(token=Token.of(revoked))

    return await mutate(info, LogoutPayload, work, changes_access=True)


async def check_password(
    info: Info, conn: AsyncConnection, user_id: int, password: str, field: str = "password"
) -> None:
    """The signed-in person's password again, throttled like signing in and counted apart
    from it (graph/throttle.py): a stolen session cannot guess it."""
    await throttled(
        info,
        Namespace.PASSWORD_CHECK,
        user_account(user_id),
        lambda: people.check_password(conn, user_id, password, field),
    )


@strawberry.input
class ChangePasswordInput:
    old_password: str
    new_password: str
    revoke_api_tokens: bool = strawberry.field(
        default=False, description="End the caller's API tokens too (a leak suspected)."
    )


@strawberry.type
class ChangePasswordPayload:
    user: User | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(STAFF),
    description="The caller's own password, given the current one; other sessions end (and "
    "with revokeApiTokens, the caller's API tokens).",
)
async def change_password(info: Info, input: ChangePasswordInput) -> ChangePasswordPayload:
    async def work(conn: AsyncConnection) -> ChangePasswordPayload:
        viewer = viewer_of(info)
        validation.storable(input.old_password, "oldPassword")
        new = validation.password(input.new_password, "newPassword")
        await check_password(info, conn, viewer.user_id, input.old_password, "oldPassword")
        row = await people.change_password(
            conn, viewer.user_id, viewer.token_id, new, revoke_api_tokens=input.revoke_api_tokens
        )
        return ChangePasswordPayload(user=User.of(row))

    return await mutate(info, ChangePasswordPayload, work, changes_access=True)
