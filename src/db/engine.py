"""Engine creation and the one place a unit of work is opened and committed."""

import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
from sqlalchemy import event, exc
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine


def async_url(url: str) -> str:
    """Accept plain `postgresql://` URLs (as DATABASE_URL usually is) and pick asyncpg."""
    parsed = make_url(url)
    return parsed.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)


def create_engine(url: str, *, pool_size: int = 10, max_overflow: int = 10) -> AsyncEngine:
    engine = create_async_engine(
        async_url(url),
        pool_size=pool_size,
        max_overflow=max_overflow,
        # Bound values (password hashes, tokens) never reach an error message or a log.
        hide_parameters=True,
        connect_args={
            "server_settings": {
                "application_name": "pressroom",
                # Event readers wait for the oldest open transaction (docs/realtime.md),
                # so no request may hold one open for long.
                "idle_in_transaction_session_timeout": "15000",
                "statement_timeout": "30000",
            },
        },
    )
    event.listen(engine.sync_engine.pool, "checkout", _refuse_closed)
    return engine


def _refuse_closed(dbapi_connection: Any, record: Any, proxy: Any) -> None:
    """A pooled connection whose server went away (a restart, a terminated backend) is
    known closed to asyncpg without a round trip: the pool drops it and checks out
    another. Pinging every checkout instead would cost BEGIN, a query and ROLLBACK."""
    if dbapi_connection.driver_connection.is_closed():
        raise exc.DisconnectionError("connection closed by the server")


@asynccontextmanager
async def unit_of_work(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """One transaction: committed when the block ends normally, rolled back on any exception.

    Services receive the connection and never commit; this is the only commit.
    """
    async with engine.begin() as conn:
        yield conn


_autocommit: "weakref.WeakKeyDictionary[AsyncEngine, AsyncEngine]" = weakref.WeakKeyDictionary()


@asynccontextmanager
async def reading(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A pooled connection in autocommit mode, for reads of one statement each: no
    BEGIN/COMMIT round trips."""
    reader = _autocommit.get(engine)
    if reader is None:
        reader = _autocommit[engine] = engine.execution_options(isolation_level="AUTOCOMMIT")
    async with reader.connect() as conn:
        yield conn


@asynccontextmanager
async def one_snapshot(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A read-only REPEATABLE READ transaction: every statement sees the same snapshot."""
    snapshot = engine.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
    async with snapshot.connect() as conn, conn.begin():
        yield conn


_UNAVAILABLE = (
    OSError,  # refused, reset, unreachable
    asyncpg.exceptions.PostgresConnectionError,
    asyncpg.exceptions.CannotConnectNowError,  # starting up or shutting down
    asyncpg.exceptions.AdminShutdownError,
    asyncpg.exceptions.CrashShutdownError,
    asyncpg.exceptions.ConnectionDoesNotExistError,
    exc.TimeoutError,  # no pooled connection came free
)


def unavailable(error: BaseException | None) -> bool:
    """Whether an error means the database cannot be reached now (rather than a bug)."""
    seen = 0
    while error is not None and seen < 10:
        if isinstance(error, _UNAVAILABLE):
            return True
        if isinstance(error, exc.DBAPIError) and error.connection_invalidated:
            return True
        error = getattr(error, "orig", None) or error.__cause__ or error.__context__
        seen += 1
    return False
