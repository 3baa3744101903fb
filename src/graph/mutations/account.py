"""The caller's own account: logout and changePassword."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection

from api.throttle import Namespace, user_account
from db import people
from db.credentials import hash_password
from domain import validation
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.mutations.throttled import throttled
from graph.permissions import STAFF, allowed, viewer_of
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
                "API tokens are revoked only with signing out everywhere.", "revokeApiTokens"
            )
        if input.everywhere:
            kinds = people.PASSWORD_MADE if input.revoke_api_tokens else people.SESSIONS
            await people.revoke_sessions(conn, viewer.user_id, keep=viewer.token_id, kinds=kinds)
        [revoked] = await people.revoke_tokens(conn, [viewer.token_id])
        return LogoutPayload(token=Token.of(revoked))

    return await mutate(info, LogoutPayload, work, changes_access=True)


async def check_password(info: Info, password: str, field: str = "password") -> None:
    """The signed-in person's password again, throttled like signing in and counted apart
    from it (api/throttle.py): a stolen session cannot guess it. For a mutation's
    `before` (graph/mutations/base.py): it holds a connection only to read the hash."""
    user_id = viewer_of(info).user_id
    async with info.context.read() as conn:
        password_hash = await people.password_hash_of(conn, user_id)
    await throttled(
        info,
        Namespace.PASSWORD_CHECK,
        user_account(user_id),
        lambda: people.check_password(password_hash, password, field),
    )


@strawberry.input
class ChangePasswordInput:
    old_password: str = strawberry.field(description="The caller's current password.")
    new_password: str = strawberry.field(description="The new password: 8 to 256 characters.")
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
    new_hash = ""

    async def prove() -> None:
        nonlocal new_hash
        with validation.every_problem() as check:
            check(validation.storable, input.old_password, "oldPassword")
            new = check(validation.password, input.new_password, "newPassword")
        await check_password(info, input.old_password, "oldPassword")
        new_hash = await hash_password(new)

    async def work(conn: AsyncConnection) -> ChangePasswordPayload:
        viewer = viewer_of(info)
        row = await people.change_password(
            conn,
            viewer.user_id,
            viewer.token_id,
            new_hash,
            revoke_api_tokens=input.revoke_api_tokens,
        )
        return ChangePasswordPayload(user=User.of(row))

    return await mutate(info, ChangePasswordPayload, work, before=prove, changes_access=True)
