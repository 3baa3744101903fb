"""Tokens: login sessions, integrators' API tokens and read-only wall display tokens."""

from collections.abc import Iterable
from datetime import UTC, datetime

import strawberry
from strawberry import relay

from api.rules import owns_or_administers
from db.rows import TokenRow
from domain.enums import TokenKind
from domain.validation import expired
from graph.context import Info
from graph.permissions import viewer_of
from graph.types.departments import Department
from graph.types.enums import describe_values
from graph.types.loading import node_rows
from graph.types.people import User

strawberry.enum(TokenKind, description="How a token was made, and so what it may do.")
describe_values(
    TokenKind,
    {
        TokenKind.SESSION: "Made by signing in with a password; ends on logout or when it expires.",
        TokenKind.API: "Made by a person for a program; acts for them until revoked or expired.",
        TokenKind.DISPLAY: "A wall display's: reads its departments' queues and nothing else.",
    },
)


@strawberry.type(description="A bearer token's record; the secret itself is never stored.")
class Token(relay.Node):
    id: relay.NodeID[int]
    kind: TokenKind = strawberry.field(description="What made the token, and so what it may do.")
    name: str = strawberry.field(
        description="What it is for; a session's is the device it signed in from."
    )
    created_at: datetime = strawberry.field(description="When it was made.")
    expires_at: datetime | None = strawberry.field(
        description="When it stops working; null when it does not expire by date."
    )
    revoked_at: datetime | None = strawberry.field(
        description="When it was revoked; null while it is not."
    )
    _user_id: strawberry.Private[int]
    _department_ids: strawberry.Private[list[int]]

    @classmethod
    def of(cls, row: TokenRow) -> "Token":
        return cls(
            id=row.id,
            kind=TokenKind(row.kind),
            name=row.name,
            created_at=row.created_at,
            expires_at=row.expires_at,
            revoked_at=getattr(row, "revoked_at", None),
            _user_id=row.user_id,
            _department_ids=list(row.department_ids or []),
        )

    @strawberry.field(
        description="Whether expiresAt has passed, by the server's clock: it no longer works "
        "(false for one that never expires; a revoked one says so in revokedAt)."
    )
    def expired(self) -> bool:
        return expired(self.expires_at, datetime.now(UTC))

    @strawberry.field(description="Who it acts as; for a display token, who created it.")
    async def user(self, info: Info) -> User:
        row = await info.context.loaders.user.load(self._user_id)
        assert row is not None
        return User.of(row)

    @strawberry.field(description="For a display token: the queues it may read.")
    async def departments(self, info: Info) -> list[Department]:
        rows = await info.context.loaders.department.load_many(self._department_ids)
        return [Department.of(r) for r in rows if r is not None]

    @classmethod
    async def resolve_nodes(  # type: ignore[override]
        cls, *, info: Info, node_ids: Iterable[str], required: bool = False
    ) -> list["Token | None"]:
        """Only the caller's own tokens, or any for admins: others' do not exist here."""
        viewer = viewer_of(info)
        rows = await node_rows(info.context.loaders.token, node_ids)
        return [cls.of(r) if r and owns_or_administers(viewer, r.user_id) else None for r in rows]


@strawberry.type
class TokenConnection(relay.Connection[Token]):
    pass
