"""Creates made once per idempotency key (domain.idempotency): work orders, customers and
users keep the key and the fingerprint of what they were asked on their own row, so the
key is claimed by the insert itself (a unique index, `ON CONFLICT DO NOTHING`)."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from db.queries import Q
from domain import idempotency


@dataclass(frozen=True)
class Once:
    """A create's key (None: made without one) and the fingerprint of what it asks."""

    key: str | None
    fingerprint: str | None

    @classmethod
    def of(cls, key: str | None, asked: Mapping[str, Any]) -> "Once":
        return cls(key, None if key is None else idempotency.fingerprint(asked))

    def params(self) -> dict[str, str | None]:
        return {"idempotency_key": self.key, "idempotency_fingerprint": self.fingerprint}


async def made_before(conn: AsyncConnection, by_key: str, once: Once, what: str) -> int | None:
    """The id of what this key made, when it was asked the same (a retry); None when the
    key is new (or there is none). Asked otherwise: DUPLICATE, naming the key. `by_key` is
    the table's lookup statement."""
    if once.key is None:
        return None
    found = (await conn.execute(Q[by_key], {"idempotency_key": once.key})).first()
    if found is None:
        return None
    idempotency.repeat(once.key, found.idempotency_fingerprint == once.fingerprint, what)
    return int(found.id)
