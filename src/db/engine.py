"""Engine creation and the one place a unit of work is opened and committed."""

import uuid
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
from sqlalchemy import event, exc
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine


def holds_password(url: str) -> bool:
    """Whether a database URL carries a password (after the user, or as `?password=`);
    an empty one, as in the embedded server's URLs, is none."""
    parsed = make_url(url)
    return bool(parsed.password) or bool(parsed.query.get("password"))


def async_url(url: str) -> str:
    """Accept plain `postgresql://` URLs (as DATABASE_URL usually is) and pick asyncpg."""
    parsed = make_url(url)
    return parsed.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)


# An execution option of the engine: False runs every statement and transaction through
# SQLAlchemy, none through asyncpg itself (graph/engine/README.md, the engine room).
THROUGH_DRIVER = "pressroom_through_driver"
# An execution option of the engine: True when it reaches PostgreSQL through a PgBouncer in
# transaction mode, where a statement SQLAlchemy prepares must run in the transaction that
# prepared it: nothing runs in autocommit mode.
PGBOUNCER = "pressroom_pgbouncer"


# Event readers wait for the oldest open transaction (docs/realtime.md), so no request
# may hold one open for long. Behind PgBouncer, its connect_query sets them instead.
SESSION_SETTINGS = {"idle_in_transaction_session_timeout": "15000", "statement_timeout": "30000"}


def create_engine(
    url: str,
    *,
    pool_size: int = 10,
    max_overflow: int = 10,
    pool_timeout: float = 30,
    through_driver: bool = True,
    pgbouncer: bool = False,
) -> AsyncEngine:
    """An engine on `url`. With `pgbouncer` (transaction mode), no statement is prepared
    to outlive its transaction: asyncpg keeps no statement cache, SQLAlchemy's statements
    get names of their own, and only parameters PgBouncer passes on are sent at start-up."""
    server_settings = {"application_name": "pressroom"}
    connect_args: dict[str, Any] = {"server_settings": server_settings}
    if pgbouncer:
        connect_args |= {
            "statement_cache_size": 0,
            "prepared_statement_cache_size": 0,
            "prepared_statement_name_func": _statement_name,
        }
    else:
        server_settings |= SESSION_SETTINGS
    engine = create_async_engine(
        async_url(url),
        pool_size=pool_size,
        max_overflow=max_overflow,
        pool_timeout=pool_timeout,
        execution_options={THROUGH_DRIVER: through_driver, PGBOUNCER: pgbouncer},
        # Bound values (password hashes, tokens) never reach an error message or a log.
        hide_parameters=True,
        connect_args=connect_args,
    )
    event.listen(engine.sync_engine.pool, "checkout", _refuse_closed)
    return engine


def _statement_name() -> str:
    # Two clients' statements may meet on one server connection: names never repeat.
    return f"__asyncpg_{uuid.uuid4().hex}__"


def _refuse_closed(dbapi_connection: Any, record: Any, proxy: Any) -> None:
    """A pooled connection whose server went away (a restart, a terminated backend) is
    known closed to asyncpg without a round trip: the pool drops it and checks out
    another. Pinging every checkout instead would cost BEGIN, a query and ROLLBACK."""
    if dbapi_connection.driver_connection.is_closed():
        raise exc.DisconnectionError("connection closed by the server")


@asynccontextmanager
async def unit_of_work(
    engine: AsyncEngine, *, transaction: bool = True
) -> AsyncIterator[AsyncConnection]:
    """One transaction: committed when the block ends normally, rolled back on any exception.

    Services receive the connection and never commit; this is the only commit. BEGIN and
    COMMIT go through asyncpg itself: SQLAlchemy's transaction costs 80 us more of CPU
    (a greenlet each way; measured on a 2-core VM), 7 % of a task's move. Its own
    statements then run in this transaction (its adapter sees one open and sends no
    BEGIN), and what it would roll back when the connection closes is already ended.

    Without `transaction`, for work whose one write is a single statement (PostgreSQL
    makes each statement atomic), every statement commits as it ends: BEGIN and COMMIT
    are two of a task start's three round trips and 100 us of its CPU. Behind PgBouncer
    it is one transaction all the same (`PGBOUNCER`).
    """
    if not transaction and not behind_pgbouncer(engine):
        async with autocommitting(engine).connect() as conn:
            yield conn
        return
    if not through_driver(engine):
        async with engine.begin() as conn:
            yield conn
        return
    async with engine.connect() as conn:
        adapter = driver_adapter(conn)
        await begin(conn, adapter)
        try:
            yield conn
        except BaseException:
            await _end(conn, adapter, commit=False)
            raise
        await _end(conn, adapter, commit=True)


def through_driver(engine: AsyncEngine | AsyncConnection) -> bool:
    """Whether statements and transactions may go through asyncpg itself (`THROUGH_DRIVER`)."""
    if isinstance(engine, AsyncConnection):
        engine = engine.engine
    return bool(engine.get_execution_options().get(THROUGH_DRIVER, True))


def driver_adapter(conn: AsyncConnection) -> Any:
    """SQLAlchemy's adapter around `conn`'s asyncpg connection (`._connection`), without
    the greenlet `get_raw_connection` costs: a checked-out connection already has it."""
    assert conn.sync_connection is not None
    return conn.sync_connection.connection.dbapi_connection


async def begin(conn: AsyncConnection, adapter: Any) -> None:
    """BEGIN through asyncpg, as the adapter sends it. Cut short (cancelled while BEGIN is
    on its way), it leaves asyncpg holding the failed transaction as the connection's
    outermost one, and the server perhaps inside it: the next BEGIN on that connection
    would be a SAVEPOINT and its COMMIT a mere RELEASE, the work acknowledged and then
    lost. Such a connection is invalidated, never pooled again
    (tests/integration/test_native_statements.py)."""
    try:
        async with adapter._execute_mutex:
            await adapter._start_transaction()
    except BaseException:
        await conn.invalidate()
        raise


async def _end(conn: AsyncConnection, adapter: Any, *, commit: bool) -> None:
    """COMMIT or ROLLBACK under the adapter's lock. If that fails (a broken connection, a
    cancellation mid-way), the server may still hold the transaction open: the
    connection is invalidated rather than pooled."""
    try:
        async with adapter._execute_mutex:
            transaction = adapter._transaction
            if transaction is not None:
                await adapter._call_and_discard(
                    transaction.commit if commit else transaction.rollback
                )
    except BaseException:
        await conn.invalidate()
        raise


_autocommit: "weakref.WeakKeyDictionary[AsyncEngine, AsyncEngine]" = weakref.WeakKeyDictionary()


def behind_pgbouncer(engine: AsyncEngine) -> bool:
    return bool(engine.get_execution_options().get(PGBOUNCER, False))


def autocommitting(engine: AsyncEngine) -> AsyncEngine:
    """`engine` with its pooled connections in autocommit mode (made once per engine);
    behind PgBouncer, `engine` itself: its transaction mode keeps a statement's parse and
    its execution on one server connection only inside a transaction, so each read runs
    in one (a connection held across reads must commit after each)."""
    if behind_pgbouncer(engine):
        return engine
    autocommitting = _autocommit.get(engine)
    if autocommitting is None:
        autocommitting = _autocommit[engine] = engine.execution_options(
            isolation_level="AUTOCOMMIT"
        )
    return autocommitting


@asynccontextmanager
async def reading(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A pooled connection in autocommit mode, for reads of one statement each: no
    BEGIN/COMMIT round trips."""
    async with autocommitting(engine).connect() as conn:
        yield conn


@asynccontextmanager
async def one_snapshot(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A read-only REPEATABLE READ transaction: every statement sees the same snapshot."""
    snapshot = engine.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
    async with snapshot.connect() as conn, conn.begin():
        yield conn


def sign_in_refused(error: BaseException | None) -> bool:
    """Whether the server refused the connection's credentials: a wrong or missing
    password, or no pg_hba.conf entry (SQLSTATE class 28)."""
    seen = 0
    while error is not None and seen < 10:
        if isinstance(error, asyncpg.exceptions.InvalidAuthorizationSpecificationError):
            return True
        error = getattr(error, "orig", None) or error.__cause__ or error.__context__
        seen += 1
    return False


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
        # A connection closed under a statement (PgBouncer dropping its server connection
        # when PostgreSQL restarts): asyncpg says so only in words.
        if isinstance(error, asyncpg.exceptions.InterfaceError) and str(error).endswith(
            "connection is closed"
        ):
            return True
        if isinstance(error, exc.DBAPIError) and error.connection_invalidated:
            return True
        # The server ended the session unasked (PostgreSQL shutting down, PgBouncer losing
        # its server connection) while it sat idle in a transaction: asyncpg is still
        # discarding that error (its state 2) when the next statement or COMMIT comes.
        if isinstance(error, asyncpg.exceptions.InternalClientError) and str(error).endswith(
            "another operation (2) is in progress"
        ):
            return True
        error = getattr(error, "orig", None) or error.__cause__ or error.__context__
        seen += 1
    return False
