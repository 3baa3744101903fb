"""Authentication: a bearer token (HTTP header, or the websocket's connection_init) to a Viewer."""

from collections.abc import Mapping
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from api.services import Services
from api.viewer import Viewer
from db.engine import reading
from db.people import authenticate
from domain.enums import DepartmentKind, TokenKind

MAX_TOKEN_LENGTH = 200


def bearer(value: str | None) -> str | None:
    if not value:
        return None
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


def init_authorization(params: Mapping[str, Any] | None) -> Any:
    """What a websocket's connection_init payload gives as its authorization, if anything."""
    given = params or {}
    return given.get("authorization") or given.get("Authorization")


def init_token(authorization: Any) -> str | None:
    """The bearer token of that authorization: "Bearer <token>" or the bare token."""
    if not isinstance(authorization, str):
        return None
    return bearer(authorization) if " " in authorization else authorization


async def load_viewer(
    services: Services, token: str | None, conn: AsyncConnection | None = None
) -> Viewer | None:
    """The caller of a bearer token; None when the token does not work (unknown, revoked,
    expired, its user deactivated). From the process's cache when it holds the answer."""
    if token is None or len(token) > MAX_TOKEN_LENGTH:
        return None
    cached = services.viewers.get(token) if conn is None else None
    if cached is not None:
        return cached
    # Taken before the read: a change handed out during it makes the entry stale at once.
    seen = services.viewers.changes()
    if conn is not None:
        row = await authenticate(conn, token)
    else:
        async with reading(services.engine) as fresh:
            row = await authenticate(fresh, token)
    if row is None:
        return None
    viewer = Viewer(
        token_id=row.token_id,
        token_kind=TokenKind(row.kind),
        user_id=row.user_id,
        is_admin=row.is_admin,
        member_department_ids=frozenset(row.member_department_ids),
        display_department_ids=frozenset(row.display_department_ids or ()),
        expires_at=row.expires_at,
        member_department_kinds=frozenset(DepartmentKind(k) for k in row.member_department_kinds),
    )
    services.viewers.put(token, viewer, seen)
    return viewer
