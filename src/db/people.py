"""Departments, users, memberships and tokens."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row
from sqlalchemy.ext.asyncio import AsyncConnection

from db import reads
from db.credentials import (
    Lane,
    hash_password,
    new_token,
    outdated,
    token_hash,
    verify_password,
)
from db.idempotency import Once, made_before
from db.queries import Q
from db.rows import DepartmentRow, TokenRow, UserRow
from domain import workflow
from domain.enums import DepartmentKind, TokenKind
from domain.errors import DomainError, ErrorCode
from domain.routing import DepartmentFacts


async def create_department(
    conn: AsyncConnection,
    code: str,
    name: str,
    kind: DepartmentKind,
    gates_delivery: bool | None = None,
    needs_approved_proof: bool = False,
) -> DepartmentRow:
    """`gates_delivery` None takes the domain's default for the kind."""
    params = {
        "code": code,
        "name": name,
        "kind": kind.value,
        "gates_delivery": workflow.gates_delivery(kind, gates_delivery),
        "needs_approved_proof": workflow.needs_approved_proof(kind, needs_approved_proof),
    }
    row = (await conn.execute(Q["insert_department"], params)).first()
    if row is not None:
        return DepartmentRow.of(row)
    if kind is DepartmentKind.DELIVERY and any(
        d.kind == DepartmentKind.DELIVERY for d in await reads.all_departments(conn)
    ):
        raise DomainError(
            ErrorCode.DUPLICATE,
            "There is already a delivery department: a shop has exactly one.",
            "kind",
        )
    raise DomainError(
        ErrorCode.DUPLICATE, f"A department with the code '{code}' exists already.", "code"
    )


def facts(row: DepartmentRow) -> DepartmentFacts:
    return DepartmentFacts(row.id, row.code, DepartmentKind(row.kind), row.name)


async def departments_by_codes(
    conn: AsyncConnection, codes: list[str], field: str = "departmentCodes"
) -> list[DepartmentRow]:
    by_code = {d.code: d for d in await reads.all_departments(conn)}
    unknown = [c for c in codes if c not in by_code]
    if unknown:
        raise DomainError(
            ErrorCode.NOT_FOUND, f"Unknown department code(s): {', '.join(unknown)}.", field
        )
    return [by_code[c] for c in codes]


@dataclass(frozen=True)
class UserChange:
    user: UserRow
    changed: bool


async def _made_before(conn: AsyncConnection, once: Once) -> UserChange | None:
    made = await made_before(conn, "user_by_key", once, "user")
    if made is None:
        return None
    [user] = await reads.users(conn, [made])
    return UserChange(user, changed=False)


async def create_user(
    conn: AsyncConnection,
    *,
    email: str,
    name: str,
    password: str | None,
    is_admin: bool,
    department_ids: list[int],
    idempotency_key: str | None = None,
) -> UserChange:
    """A new user. With a key already used for the same email, name, admin flag and
    departments: that user, unchanged. The password is no part of what a retry repeats
    (it is never kept but hashed): the first one stands."""
    asked = {
        "email": email,
        "name": name,
        "is_admin": is_admin,
        "departments": sorted(department_ids),
    }
    once = Once.of(idempotency_key, asked)
    repeated = await _made_before(conn, once)
    if repeated is not None:
        return repeated
    password_hash = await hash_password(password) if password is not None else None
    found = (
        await conn.execute(
            Q["insert_user"],
            {
                "email": email,
                "name": name,
                "password_hash": password_hash,
                "is_admin": is_admin,
                **once.params(),
            },
        )
    ).first()
    if found is None:
        # A create with this key committed meanwhile, or the email is taken.
        repeated = await _made_before(conn, once)
        if repeated is not None:
            return repeated
        raise DomainError(ErrorCode.DUPLICATE, f"A user with email {email} exists.", "email")
    row = UserRow.of(found)
    await conn.execute(Q["add_memberships"], {"user_id": row.id, "department_ids": department_ids})
    return UserChange(row, changed=True)


async def upsert_user(
    conn: AsyncConnection,
    *,
    email: str,
    name: str | None,
    password: str | None,
    is_admin: bool,
    department_ids: list[int],
) -> UserRow:
    """For the CLI: create, or update an existing user without ever demoting an admin."""
    existing = await user_by_email(conn, email)
    if existing is None:
        made = await create_user(
            conn,
            email=email,
            name=name or email.split("@")[0],
            password=password,
            is_admin=is_admin,
            department_ids=department_ids,
        )
        return made.user
    password_hash = await hash_password(password) if password is not None else None
    row = UserRow.of(
        (
            await conn.execute(
                Q["promote_user"],
                {
                    "user_id": existing.id,
                    "is_admin": is_admin,
                    "password_hash": password_hash,
                    "name": name,
                },
            )
        ).one()
    )
    await conn.execute(Q["add_memberships"], {"user_id": row.id, "department_ids": department_ids})
    return row


async def set_user_departments(
    conn: AsyncConnection, user_id: int, department_ids: list[int]
) -> UserRow:
    user = await _user(conn, user_id)
    await conn.execute(
        Q["replace_memberships"], {"user_id": user_id, "department_ids": department_ids}
    )
    return user


@dataclass(frozen=True)
class IssuedToken:
    token: str
    row: TokenRow


async def issue_token(
    conn: AsyncConnection,
    *,
    kind: TokenKind,
    name: str,
    user_id: int,
    ttl_seconds: int | None,
    department_ids: list[int] | None = None,
    expires_at: datetime | None = None,
) -> IssuedToken:
    """A new token; it expires after `ttl_seconds`, at `expires_at`, or never."""
    token = new_token(kind)
    row = (
        await conn.execute(
            Q["insert_token"],
            {
                "kind": kind.value,
                "name": name,
                "token_hash": token_hash(token),
                "user_id": user_id,
                "department_ids": department_ids,
                "ttl_seconds": ttl_seconds,
                "expires_at": expires_at,
            },
        )
    ).one()
    return IssuedToken(token, TokenRow.of(row))


async def user_by_email(conn: AsyncConnection, email: str) -> UserRow | None:
    """The user with this email, given as domain.validation.email() normalises it."""
    return UserRow.maybe((await conn.execute(Q["user_by_email"], {"email": email})).first())


@dataclass(frozen=True)
class Proven:
    """A sign-in's password proved: the user, and their password's hash remade when it was
    made with parameters of an earlier version (start_session stores it)."""

    user: UserRow
    new_hash: str | None = None


async def verify_login(user: UserRow | None, password: str, lane: Lane) -> Proven:
    """`user` (as user_by_email found it) if the password is theirs and they may sign in.
    An unknown email costs the same password check as a known one. Holds no connection:
    the check takes tens of ms of a worker thread, and may wait for one."""
    ok = await verify_password(user.password_hash if user else None, password, lane)
    if user is None or not ok or not user.is_active:
        raise DomainError(ErrorCode.INVALID_INPUT, "Email or password is incorrect.")
    if user.password_hash is not None and outdated(user.password_hash):
        return Proven(user, await hash_password(password, lane))
    return Proven(user)


async def start_session(
    conn: AsyncConnection, proven: Proven, ttl_seconds: int, name: str
) -> IssuedToken:
    user_id = proven.user.id
    if proven.new_hash is not None:
        await conn.execute(
            Q["set_password"], {"user_id": user_id, "password_hash": proven.new_hash}
        )
    return await issue_token(
        conn, kind=TokenKind.SESSION, name=name, user_id=user_id, ttl_seconds=ttl_seconds
    )


async def authenticate(conn: AsyncConnection, token: str) -> Row[Any] | None:
    """The live token with its user's rights; None if it is unknown, revoked, expired or
    its user is deactivated."""
    return (await conn.execute(Q["authenticate"], {"token_hash": token_hash(token)})).first()


async def revoke_tokens(conn: AsyncConnection, token_ids: list[int]) -> list[TokenRow]:
    """Revoke these tokens (those not revoked yet), each with a TOKEN_REVOKED event, so
    every server process closes the live connections that use them."""
    return TokenRow.all(await conn.execute(Q["revoke_tokens"], {"ids": token_ids}))


async def token_by_id(conn: AsyncConnection, token_id: int) -> TokenRow | None:
    return TokenRow.maybe((await conn.execute(Q["token_by_id"], {"token_id": token_id})).first())


async def revoke_token(conn: AsyncConnection, token_id: int) -> TokenRow:
    """Revoke one token (who may, the caller decided); INVALID_TRANSITION if it already
    was."""
    revoked = await revoke_tokens(conn, [token_id])
    if not revoked:
        raise DomainError(ErrorCode.INVALID_TRANSITION, "The token is already revoked.", "tokenId")
    return revoked[0]


SESSIONS = (TokenKind.SESSION,)
# What a password proves: revoked when it changes (the account is presumed compromised).
PASSWORD_MADE = (TokenKind.SESSION, TokenKind.API)


async def revoke_sessions(
    conn: AsyncConnection,
    user_id: int,
    keep: int | None = None,
    kinds: tuple[TokenKind, ...] = SESSIONS,
) -> int:
    """End a user's live tokens of these kinds (sessions unless told), but for the token
    `keep`; how many ended."""
    params = {"user_id": user_id, "kinds": [k.value for k in kinds]}
    ids = (await conn.execute(Q["live_tokens_of"], params)).scalars()
    return len(await revoke_tokens(conn, [i for i in ids if i != keep]))


async def _user(conn: AsyncConnection, user_id: int) -> UserRow:
    user = (await conn.execute(Q["users_by_id"], {"ids": [user_id]})).first()
    if user is None:
        raise DomainError(ErrorCode.NOT_FOUND, "No such user.", "userId")
    return UserRow.of(user)


async def set_active(conn: AsyncConnection, user_id: int, active: bool, actor_id: int) -> UserRow:
    """Deactivate (or reactivate) a user. A deactivated user cannot sign in and every token
    of theirs stops working at once; the event closes their live subscriptions. Their
    sessions and API tokens are revoked, so reactivation brings none of them back (the
    account is presumed compromised); display tokens they made work again."""
    if not active and user_id == actor_id:
        raise DomainError(ErrorCode.INVALID_INPUT, "Admins cannot deactivate themselves.", "userId")
    user = await _user(conn, user_id)
    moved = (
        await conn.execute(Q["set_user_active"], {"user_id": user_id, "active": active})
    ).first()
    if moved is None:
        state = "active" if user.is_active else "deactivated"
        raise DomainError(ErrorCode.INVALID_TRANSITION, f"The user is already {state}.", "userId")
    if not active:
        await revoke_sessions(conn, user_id, kinds=PASSWORD_MADE)
    return UserRow.of(moved)


async def set_password(conn: AsyncConnection, user_id: int, password: str) -> UserRow:
    """An admin sets a password: the account is presumed compromised, so its sessions and
    API tokens end (they sign in with the new one, and make new API tokens)."""
    await _user(conn, user_id)
    params = {"user_id": user_id, "password_hash": await hash_password(password)}
    user = UserRow.of((await conn.execute(Q["set_password"], params)).one())
    await revoke_sessions(conn, user_id, kinds=PASSWORD_MADE)
    return user


async def password_hash_of(conn: AsyncConnection, user_id: int) -> str | None:
    return (await _user(conn, user_id)).password_hash


async def check_password(password_hash: str | None, password: str, field: str) -> None:
    """The signed-in person proves it is them again (INVALID_INPUT on `field` if not),
    against the hash password_hash_of read; holds no connection."""
    if not await verify_password(password_hash, password):
        raise DomainError(ErrorCode.INVALID_INPUT, "The password is incorrect.", field)


async def change_password(
    conn: AsyncConnection,
    user_id: int,
    session_id: int,
    new_hash: str,
    *,
    revoke_api_tokens: bool = False,
) -> UserRow:
    """A user changes their own password (having proved the old one, check_password, and
    hashed the new one, both before the transaction); their other sessions end. Their API
    tokens stay unless they ask (a leak suspected): they were made with the password, by
    them."""
    params = {"user_id": user_id, "password_hash": new_hash}
    changed = UserRow.of((await conn.execute(Q["set_password"], params)).one())
    kinds = PASSWORD_MADE if revoke_api_tokens else SESSIONS
    await revoke_sessions(conn, user_id, keep=session_id, kinds=kinds)
    return changed
