"""login: exchange email and password for a session token."""

from datetime import datetime

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.auth import load_viewer
from api.throttle import Namespace, email_account, user_account
from db import people
from db.credentials import Lane
from domain import devices, validation
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.mutations.throttled import throttled
from graph.types.people import User


@strawberry.input
class LoginInput:
    email: str = strawberry.field(description="The sign-in email, in any case.")
    password: str = strawberry.field(description="The password.")


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


@strawberry.mutation(
    description="Signs in with email and password and answers a session token (the secret, shown "
    "once)."
)
async def login(info: Info, input: LoginInput) -> LoginPayload:
    context = info.context
    proven: people.Proven | None = None

    async def prove() -> None:
        nonlocal proven
        with validation.every_problem() as check:
            email = check(validation.email, input.email)
            password = check(
                validation.text, input.password, "password", max_len=validation.MAX_PASSWORD
            )
        async with context.read() as conn:
            found = await people.user_by_email(conn, email)
        # Counted per person once found: every spelling of an address counts together.
        account = user_account(found.id) if found is not None else email_account(email)
        lane = Lane.ANONYMOUS if context.viewer is None else Lane.SIGNED_IN
        proven = await throttled(
            info, Namespace.SIGN_IN, account, lambda: people.verify_login(found, password, lane)
        )

    async def work(conn: AsyncConnection) -> LoginPayload:
        assert proven is not None
        now = datetime.now(context.services.time_zone)
        name = devices.session_name(context.user_agent, now)
        ttl = context.services.session_ttl_seconds
        issued = await people.start_session(conn, proven, ttl, name)
        # The rest of this request acts as the user who just signed in (so that, for
        # example, `login { user { email } }` is readable).
        context.viewer = await load_viewer(context.services, issued.token, conn)
        return LoginPayload(
            token=issued.token,
            token_id=relay.GlobalID("Token", str(issued.row.id)),
            user=User.of(proven.user),
        )

    return await mutate(info, LoginPayload, work, before=prove)
