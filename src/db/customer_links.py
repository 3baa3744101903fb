"""Customer links: a secret address that shows one work order's page to its customer
(/c/{secret}). The secret is random (256 bits) and only its SHA-256 is kept, as for
tokens: a leaked table opens no page."""

import secrets

from sqlalchemy.ext.asyncio import AsyncConnection

from db.credentials import token_hash
from db.queries import Q


def new_secret() -> str:
    """43 URL-safe characters: it stands in a path as it is."""
    return secrets.token_urlsafe(32)


async def create_for_email(
    conn: AsyncConnection, work_order_id: int, email: str
) -> tuple[int, str]:
    """A link made for a message to `email`: its id, and its secret (in no table)."""
    secret = new_secret()
    params = {
        "work_order_id": work_order_id,
        "secret_hash": token_hash(secret),
        "emailed_to": email,
    }
    made = (await conn.execute(Q["insert_customer_link_for_email"], params)).one()
    return int(made.id), secret
