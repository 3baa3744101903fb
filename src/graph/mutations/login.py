"""login: exchange email and password for a session token."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from db import people
from domain import validation
from graph.auth import load_viewer
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.throttle import Namespace, email_account, throttled, user_account
from graph.types.people import User


@strawberry.input
class LoginInput:
    email: str
    password: str


@strawberry.type
class LoginPayload:
    token: str | None = strawberry.field(
        default=None, description="Send as 'Authorization: Bearer <token>'; it expires."
    )
    token_id: relay.GlobalID | None = strawberry.field(
        default=None, description="The session's id (for myTokens, revokeToken)."
    )
    user: User | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation
async def login(info: Info, input: LoginInput) -> LoginPayload:
    async def work(conn: AsyncConnection) -> LoginPayload:
        email = validation.email(input.email)
        password = validation.text(input.password, "password", max_len=validation.MAX_PASSWORD)
        context = info.context
        user = await people.user_by_email(conn, email)
        # Counted per person once found: every spelling of an address counts together.
        account = user_account(user.id) if user is not None else email_account(email)
        issued = await throttled(
            info,
            Namespace.SIGN_IN,
            account,
            lambda: people.login(conn, user, password, context.services.session_ttl_seconds),
        )
        assert user is not None
        # The rest of this request acts as the user who just signed in (so that, for
        # example, `login { user { email } }` is readable).
        context.viewer = await load_viewer(context.services, issued.token, conn)
        return LoginPayload(
            token=issued.token,
            token_id=relay.GlobalID("Token", str(issued.row.id)),
            user=User.of(user),
        )

    return await mutate(info, LoginPayload, work)
