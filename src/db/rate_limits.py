"""A storage for the `limits` library in PostgreSQL, so that every server process on one
database (`serve --workers N`, replicas) counts sign-in attempts together.

One row per hit in `rate_limit_hits`; a moving window is the key's rows younger than its
expiry. Times are the database's, the one clock all processes share. Only the moving
window strategy is supported (what the sign-in throttle uses), plus giving a hit back
(`release_entry`: the throttle reserves a failure before it checks a password).

The storage is given an engine of its own (`counters_engine`), never the requests' pool:
a sign-in holding a request's connection while it waited for a second one from the same
pool let 40 concurrent sign-ins exhaust it for everyone.
"""

import itertools
from typing import Any

from limits.aio.storage import MovingWindowSupport, Storage
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from db.engine import create_engine, reading, unit_of_work
from db.queries import Q

# Every this many admissions, hits older than any window are swept for every key.
_SWEEP_EVERY = 1000


# Each hit is a short transaction, and sign-ins wait for the password workers rather than
# for these (db/credentials.py): a few connections serve a flood.
COUNTERS_POOL = 2
COUNTERS_OVERFLOW = 2
# A counter that cannot be had this soon fails the sign-in (503), not the floor.
COUNTERS_TIMEOUT_SECONDS = 5


def counters_engine(url: str, **options: Any) -> AsyncEngine:
    """An engine for the counters alone; `options` as create_engine takes them."""
    return create_engine(
        url,
        pool_size=COUNTERS_POOL,
        max_overflow=COUNTERS_OVERFLOW,
        pool_timeout=COUNTERS_TIMEOUT_SECONDS,
        **options,
    )


class PostgresStorage(Storage, MovingWindowSupport):
    STORAGE_SCHEME = None  # made with an engine, not from a storage URI

    def __init__(self, engine: AsyncEngine) -> None:
        super().__init__()
        self.engine = engine
        self._admissions = itertools.count(1)

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return (DBAPIError, OSError)

    async def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        if amount > limit:
            return False
        params = {"key": key, "limit": limit, "expiry": expiry, "amount": amount}
        async with unit_of_work(self.engine) as conn:
            await conn.execute(Q["rate_limit_lock"], params)
            admitted = bool((await conn.execute(Q["rate_limit_acquire"], params)).all())
            if next(self._admissions) % _SWEEP_EVERY == 0:
                await conn.execute(Q["rate_limit_sweep"])
        return admitted

    async def release_entry(self, key: str) -> None:
        async with unit_of_work(self.engine, transaction=False) as conn:
            await conn.execute(Q["rate_limit_release"], {"key": key})

    async def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        async with reading(self.engine) as conn:
            row = (await conn.execute(Q["rate_limit_window"], {"key": key, "expiry": expiry})).one()
        return float(row.started), int(row.hits)

    async def clear(self, key: str) -> None:
        async with unit_of_work(self.engine, transaction=False) as conn:
            await conn.execute(Q["rate_limit_clear"], {"key": key})

    async def reset(self) -> int | None:
        async with unit_of_work(self.engine, transaction=False) as conn:
            return (await conn.execute(Q["rate_limit_reset"])).rowcount

    async def check(self) -> bool:
        async with reading(self.engine) as conn:
            return bool(await conn.scalar(Q["ping"]))

    # The fixed-window strategies' counters: not kept here.
    async def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        raise NotImplementedError("PostgresStorage keeps moving windows only")

    async def get(self, key: str) -> int:
        raise NotImplementedError("PostgresStorage keeps moving windows only")

    async def get_expiry(self, key: str) -> float:
        raise NotImplementedError("PostgresStorage keeps moving windows only")
