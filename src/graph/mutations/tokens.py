"""createApiToken, createDisplayToken and revokeToken."""

from datetime import datetime

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from api.rules import owns_or_administers
from db import people
from domain import validation
from domain.enums import TokenKind
from domain.errors import DomainError, ErrorCode
from graph.context import Info
from graph.errors import UserError
from graph.mutations.account import check_password
from graph.mutations.base import mutate
from graph.permissions import ADMINS, SESSION, STAFF, allowed, viewer_of
from graph.types.tokens import Token

API_TOKEN_DEFAULT_DAYS = 90


@strawberry.type
class CreateApiTokenPayload:
    token: Token | None = None
    secret: str | None = strawberry.field(
        default=None,
        description="Send as 'Authorization: Bearer <secret>'. Shown only this once.",
    )
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class CreateApiTokenInput:
    name: str = strawberry.field(description="What the token is for, shown in token lists.")
    password: str = strawberry.field(
        description="The caller's password again: a stolen session alone cannot make one."
    )
    expires_at: datetime | None = strawberry.field(
        default=None,
        description=f"When it stops working: {API_TOKEN_DEFAULT_DAYS} days ahead when "
        "omitted, at most PRESSROOM_API_TOKEN_MAX_DAYS (365 by default).",
    )


@strawberry.mutation(
    extensions=allowed(SESSION),
    description="A token for an integrator, acting as the caller, made from a signed-in "
    f"session with the caller's password again; it expires at expiresAt "
    f"({API_TOKEN_DEFAULT_DAYS} days ahead when omitted, at most "
    "PRESSROOM_API_TOKEN_MAX_DAYS).",
)
async def create_api_token(info: Info, input: CreateApiTokenInput) -> CreateApiTokenPayload:
    name = ""
    expires_at: datetime | None = None

    async def prove() -> None:
        nonlocal name, expires_at
        with validation.every_problem() as check:
            name = check(validation.text, input.name, "name")
            expires_at = check(
                validation.expiry,
                input.expires_at,
                "expiresAt",
                default_days=API_TOKEN_DEFAULT_DAYS,
                max_days=info.context.services.api_token_max_days,
            )
            check(validation.storable, input.password, "password")
        await check_password(info, input.password)

    async def work(conn: AsyncConnection) -> CreateApiTokenPayload:
        viewer = viewer_of(info)
        issued = await people.issue_token(
            conn,
            kind=TokenKind.API,
            name=name,
            user_id=viewer.user_id,
            ttl_seconds=None,
            expires_at=expires_at,
        )
        return CreateApiTokenPayload(token=Token.of(issued.row), secret=issued.token)

    return await mutate(info, CreateApiTokenPayload, work, before=prove)


@strawberry.input
class CreateDisplayTokenInput:
    name: str = strawberry.field(description="Where the display hangs, shown in token lists.")
    department_codes: list[str] = strawberry.field(description="The queues it may show.")
    expires_at: datetime | None = strawberry.field(
        default=None, description="When it stops working; never when omitted."
    )


@strawberry.type
class CreateDisplayTokenPayload:
    token: Token | None = None
    secret: str | None = strawberry.field(
        default=None,
        description="Open /display/{departmentCode}?token=<secret> on the wall display.",
    )
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(SESSION, ADMINS),
    description="A read-only token for wall displays, limited to the named queues; made "
    "from a signed-in session.",
)
async def create_display_token(
    info: Info, input: CreateDisplayTokenInput
) -> CreateDisplayTokenPayload:
    async def work(conn: AsyncConnection) -> CreateDisplayTokenPayload:
        with validation.every_problem() as check:
            name = check(validation.text, input.name, "name")
            expires_at = check(validation.future, input.expires_at, "expiresAt")
            codes = check(_display_codes, input.department_codes)
        departments = await people.departments_by_codes(conn, codes)
        issued = await people.issue_token(
            conn,
            kind=TokenKind.DISPLAY,
            name=name,
            user_id=viewer_of(info).user_id,
            ttl_seconds=None,
            department_ids=[d.id for d in departments],
            expires_at=expires_at,
        )
        return CreateDisplayTokenPayload(token=Token.of(issued.row), secret=issued.token)

    return await mutate(info, CreateDisplayTokenPayload, work)


def _display_codes(values: list[str]) -> list[str]:
    codes = validation.codes(values)
    if not codes:
        raise validation.invalid(
            "A display token needs at least one department.", "departmentCodes"
        )
    return codes


@strawberry.input
class RevokeTokenInput:
    token_id: relay.GlobalID = strawberry.field(
        description="The token to revoke: the caller's own, or any for an admin."
    )


@strawberry.type
class RevokeTokenPayload:
    token: Token | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(STAFF),
    description="Admins revoke any token, others their own. Live connections using it close.",
)
async def revoke_token(info: Info, input: RevokeTokenInput) -> RevokeTokenPayload:
    async def work(conn: AsyncConnection) -> RevokeTokenPayload:
        token_id = require_id(input.token_id, "Token", "tokenId")
        viewer = viewer_of(info)
        existing = await people.token_by_id(conn, token_id)
        if existing is None or not owns_or_administers(viewer, existing.user_id):
            raise DomainError(ErrorCode.NOT_FOUND, "No such token.", "tokenId")
        row = await people.revoke_token(conn, token_id)
        return RevokeTokenPayload(token=Token.of(row))

    return await mutate(info, RevokeTokenPayload, work, changes_access=True)
