"""Authentication: a bearer token (HTTP header, or the websocket's connection_init) to a Viewer."""

from sqlalchemy.ext.asyncio import AsyncConnection

from db.engine import reading
from db.people import authenticate
from domain.enums import DepartmentKind, TokenKind
from graph.context import Services, Viewer

MAX_TOKEN_LENGTH = 200


def bearer(value: str | None) -> str | None:
    if not value:
        return None
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


async def load_viewer(
    services: Services,
    token: str | None,
    conn: AsyncConnection | None = None,
    *,
    token_id: int | None = None,
) -> Viewer | None:
    """The caller of a bearer token, or again of a known token id (a live subscription
    re-checked after its user's access changed); None when the token no longer works."""
    if token_id is None and (token is None or len(token) > MAX_TOKEN_LENGTH):
        return None
    cached = services.viewers.get(token) if token is not None and conn is None else None
    if cached is not None:
        return cached
    if conn is not None:
        row = await authenticate(conn, token, token_id=token_id)
    else:
        async with reading(services.engine) as fresh:
            row = await authenticate(fresh, token, token_id=token_id)
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
    if token is not None:
        services.viewers.put(token, viewer)
    return viewer
