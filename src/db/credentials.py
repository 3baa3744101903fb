"""Password hashes (argon2) and bearer tokens (random, stored as SHA-256)."""

import asyncio
import hashlib
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from domain.enums import TokenKind

_hasher = PasswordHasher()
# Verified against when the email is unknown, so both paths cost the same time.
_DUMMY_HASH = _hasher.hash("pressroom-dummy-password")
_PREFIX = {TokenKind.SESSION: "prs_s_", TokenKind.API: "prs_a_", TokenKind.DISPLAY: "prs_d_"}


async def hash_password(password: str) -> str:
    # argon2 is deliberately slow; keep it off the event loop.
    return await asyncio.to_thread(_hasher.hash, password)


async def verify_password(password_hash: str | None, password: str) -> bool:
    def verify() -> bool:
        try:
            return _hasher.verify(password_hash or _DUMMY_HASH, password) and bool(password_hash)
        except (VerificationError, InvalidHashError):
            return False

    return await asyncio.to_thread(verify)


def new_token(kind: TokenKind) -> str:
    return _PREFIX[kind] + secrets.token_urlsafe(32)


def token_hash(token: str) -> bytes:
    # Tokens carry 256 random bits, so a fast hash is enough to make a leaked table useless.
    return hashlib.sha256(token.encode()).digest()
