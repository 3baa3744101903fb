"""Which errors mean "the database cannot be reached now" (503, retry) rather than a bug
(500): table-driven over the errors an outage raises, directly and through PgBouncer."""

import asyncpg
import pytest
from sqlalchemy import exc

from db.engine import unavailable


def chained(outer: BaseException, inner: BaseException) -> BaseException:
    outer.__context__ = inner
    return outer


CASES = [
    (ConnectionRefusedError(), True),
    (asyncpg.exceptions.CannotConnectNowError("the database system is starting up"), True),
    (asyncpg.exceptions.AdminShutdownError("terminating connection"), True),
    (exc.TimeoutError("QueuePool limit reached"), True),
    # PgBouncer's server connection dropped under a statement, then the rollback fails.
    (
        chained(
            asyncpg.exceptions.InterfaceError(
                "cannot call Transaction.rollback(): the underlying connection is closed"
            ),
            asyncpg.exceptions.InternalClientError("cannot switch to state 14"),
        ),
        True,
    ),
    (asyncpg.exceptions.InterfaceError("connection is closed"), True),
    # PostgreSQL ended the session while a request sat between two statements; the
    # connection is not yet seen closed when the COMMIT comes (test_cluster.py found it).
    (
        asyncpg.exceptions.InternalClientError(
            "cannot switch to state 15; another operation (2) is in progress"
        ),
        True,
    ),
    # Two operations at once on one connection (state 12: a statement running): a bug.
    (
        asyncpg.exceptions.InternalClientError(
            "cannot switch to state 15; another operation (12) is in progress"
        ),
        False,
    ),
    # Misuse, not an outage.
    (
        asyncpg.exceptions.InterfaceError(
            "cannot perform operation: another operation is in progress"
        ),
        False,
    ),
    (asyncpg.exceptions.UniqueViolationError("duplicate key"), False),
    (ValueError("a bug"), False),
]


@pytest.mark.parametrize(("error", "expected"), CASES, ids=[repr(e)[:60] for e, _ in CASES])
def test_an_outage_is_told_from_a_bug(error: BaseException, expected: bool) -> None:
    assert unavailable(error) is expected
