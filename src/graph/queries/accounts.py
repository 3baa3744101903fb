"""Who uses the shop: the caller (`me`), every user, and the tokens they sign in and
call with (their own, or every one for admins)."""

import strawberry
from strawberry import relay

from db import reads
from graph.context import Info
from graph.permissions import ADMINS, STAFF, allowed, passes, viewer_of
from graph.types.pagination import Before, Last, Window, by_id, window
from graph.types.people import User
from graph.types.tokens import Token, TokenConnection


async def _tokens(info: Info, user_id: int | None, page: Window) -> TokenConnection:
    edges, page_info = await by_id(info, page, reads.tokens_page, Token.of, user_id=user_id)
    return TokenConnection(edges=edges, page_info=page_info)


@strawberry.field(description="The signed-in user (null for a wall display token).")
async def me(info: Info) -> User | None:
    if not passes(STAFF, info):
        return None
    row = await info.context.loaders.user.load(viewer_of(info).user_id)
    return User.of(row) if row else None


@strawberry.field(extensions=allowed(ADMINS), description="Every user, oldest first.")
async def users(
    info: Info,
    first: int | None = None,
    after: str | None = None,
    last: Last = None,
    before: Before = None,
) -> relay.Connection[User]:
    page = window(first, after, last, before)
    edges, page_info = await by_id(info, page, reads.users_page, User.of)
    return relay.Connection(edges=edges, page_info=page_info)


@strawberry.field(
    extensions=allowed(STAFF),
    description="The caller's own tokens (sessions, API tokens, displays made), newest first.",
)
async def my_tokens(
    info: Info,
    first: int | None = None,
    after: str | None = None,
    last: Last = None,
    before: Before = None,
) -> TokenConnection:
    return await _tokens(info, viewer_of(info).user_id, window(first, after, last, before))


@strawberry.field(extensions=allowed(ADMINS), description="Every token, newest first.")
async def tokens(
    info: Info,
    first: int | None = None,
    after: str | None = None,
    last: Last = None,
    before: Before = None,
) -> TokenConnection:
    return await _tokens(info, None, window(first, after, last, before))
