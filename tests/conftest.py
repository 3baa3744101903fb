"""Test databases: a real PostgreSQL, one database per xdist worker, built by the migrations.

DATABASE_URL selects a server; without it the embedded server runs from
`.pressroom/test-pgdata` (separate from the development data).
"""

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest
from _pytest.nodeid import NodeId
from sqlalchemy.ext.asyncio import AsyncEngine

from db import admin, credentials, embedded, migrate
from db.engine import create_engine
from db.tables import metadata
from pressroom.settings import Settings

# Passwords are hashed at OWASP's minimum cost, in this process and in every server and
# command the tests start (they inherit the environment): an eighth of the CPU the
# defaults take, and the tests check which passwords are hashed and checked, and when,
# never how long it takes. The defaults are checked in tests/unit/test_password_cost.py.
os.environ.setdefault("PRESSROOM_PASSWORD_MEMORY_KIB", str(credentials.FLOOR.memory_kib))
os.environ.setdefault("PRESSROOM_PASSWORD_TIME_COST", str(credentials.FLOOR.time_cost))
Settings().configure_hashing()

# The real servers, HTTP client, shop, webhook receiver and mail server fixtures, for
# integration and e2e tests alike, and the --cpu-by-module option; imported here too, so
# their assertions are rewritten before this import.
pytest.register_assert_rewrite("tests.support")
pytest_plugins = [
    "tests.support.servers",
    "tests.support.client",
    "tests.support.shop",
    "tests.support.webhooks",
    "tests.support.mail",
    "tests.support.cpu_by_module",
]
from tests.support.database import recreate_test_database  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Puts the tests of an `xdist_group` on one worker again under `--dist loadgroup`.
    xdist tells its scheduler a test's group by a suffix to the test's id, which it sets
    in a field pytest 9.2 no longer reads (pytest-dev/pytest-xdist#1386): the suffix was
    lost, and a group's tests went to every worker, each building the group's cluster."""
    if not config.getoption("loadgroup", False):
        return
    for item in items:
        names = sorted({str(mark.args[0]) for mark in item.iter_markers("xdist_group")})
        suffix = f"@{'_'.join(names)}"
        if names and not item.nodeid.endswith(suffix):
            item._id = NodeId.parse(item.nodeid + suffix)


def _server_url() -> str:
    url = os.environ.get("DATABASE_URL")
    if url:
        return url
    return embedded.start(ROOT / ".pressroom" / "test-pgdata")


def pytest_configure(config: pytest.Config) -> None:
    """Under xdist the controller starts the embedded server before any worker does: on a
    fresh checkout the workers found no data directory, each ran initdb, and the later ones
    failed on the first's files ("exists but is not empty"), erroring every test they had.
    The workers then join the running server; the controller, leaving last, stops it."""
    if (
        not hasattr(config, "workerinput")
        and config.getoption("numprocesses", None)
        and not os.environ.get("DATABASE_URL")
    ):
        _server_url()


@pytest.fixture(scope="session")
def server_url() -> str:
    return _server_url()


@pytest.fixture(scope="session")
def worker_id(request: pytest.FixtureRequest) -> str:
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


@pytest.fixture(scope="session")
def database_url(server_url: str, worker_id: str) -> Iterator[str]:
    # The pid keeps concurrent pytest runs on one server apart.
    url = embedded.with_database(server_url, f"pressroom_test_{worker_id}_{os.getpid()}")
    asyncio.run(recreate_test_database(url))
    migrate.upgrade_sync(url)
    yield url
    asyncio.run(admin.drop_database(url))


@pytest.fixture(scope="session")
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(database_url, pool_size=20, max_overflow=40)
    yield engine
    await engine.dispose()


# Times the emptying of the tables is tried: see `clean_db`.
CLEANING_ATTEMPTS = 5


@pytest.fixture
async def clean_db(engine: AsyncEngine) -> AsyncEngine:
    """Every test that writes starts from empty tables. Ids are not restarted: the
    session's server outlives each test, and a row id never names two different rows.
    A statement of a server still serving (a screen's read of several tables) may hold
    one table and wait for another this has locked: PostgreSQL then ends one of the two
    as deadlocked, and when it is this one, the emptying starts again."""
    for attempt in range(1, CLEANING_ATTEMPTS + 1):
        try:
            async with engine.connect() as conn:
                raw = await conn.get_raw_connection()
                await raw.driver_connection.execute(EMPTY_TABLES)
        except asyncpg.exceptions.DeadlockDetectedError:
            if attempt == CLEANING_ATTEMPTS:
                raise
        else:
            break
    return engine


# One simple query, so one round trip and one transaction (PostgreSQL runs the statements
# of a simple query as one unless they say otherwise): an eighth of the time the same
# statements took one by one, before each of some 2,500 tests.
EMPTY_TABLES = ";\n".join(
    [
        # The ledger, histories and event log refuse DELETE by trigger; a superuser (the
        # tests' role, not the server's) may leave triggers unfired for one transaction.
        "SET LOCAL session_replication_role = replica",
        # The session server's timer loop may be firing, and its webhook relay sending:
        # each of their statements locks `timers` or `webhooks` first and then the tables
        # it writes, so taking those first here waits for them instead of deadlocking
        # with them halfway through the list.
        "LOCK TABLE timers, webhooks IN ACCESS EXCLUSIVE MODE",
        # Every table locked, as TRUNCATE would, then emptied by DELETE: the few rows a
        # test leaves go in a fifth of the time TRUNCATE takes to give each table and
        # index new files. The foreign keys' triggers are unfired too: any order will do.
        f"LOCK TABLE {', '.join(metadata.tables)} IN ACCESS EXCLUSIVE MODE",
        *(f"DELETE FROM {table}" for table in metadata.tables),
        "ALTER SEQUENCE work_order_number_seq RESTART",
    ]
)
