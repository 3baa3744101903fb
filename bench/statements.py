"""Database statements per request, counted by pg_stat_statements: what the server sends
for a mutation (BEGIN, COMMIT, ROLLBACK and any ping included), told apart from what its
event feed sends meanwhile, by the statements' text.

pg_stat_statements counts statements executed, each one round trip here: a Parse that
asyncpg sends when a statement is not yet in a connection's cache is not seen, so counts
are taken on a warm server, whose statements are prepared.
"""

import contextlib
import re
from typing import Any

import asyncpg

from db.queries import native

EXTENSION = "pg_stat_statements"
# What an EventFeed sends whatever the requests do: its reader's log reads and lag check,
# its notifier's NOTIFY, and its listener's probe (`SELECT 1` in db/feed.py; queries.sql's
# `ping` has the same text, but only /readyz sends it). Rows of events for subscribers
# (reads.related) are read only when there are subscribers.
FEED_QUERIES = ("events_head", "events_after", "events_lag", "notify_events")
LISTENER_PROBE = "SELECT 1"

# Top-level statements of this database, not the counter's own.
READ = """
SELECT query, calls FROM pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND toplevel AND query NOT LIKE '%pg_stat_statements%'
ORDER BY calls DESC, query
"""
# This database's statistics only: other databases on the server keep theirs.
RESET = """
SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database
                                    WHERE datname = current_database()), 0)
"""


def flat(sql: str) -> str:
    """Without comments, whitespace collapsed."""
    return " ".join(re.sub(r"--[^\n]*", " ", sql).split())


FEED_SOURCES = (*(flat(native(name)[0]) for name in FEED_QUERIES), LISTENER_PROBE)
# pg_stat_statements shows every parameter and constant as `$n`: one token of the source
# (a parameter, a number, a quoted string, or a word such as extract's `epoch`).
TOKEN = r"(?:'[^']*'|[^\s,()']+)"


def from_feed(recorded: str) -> bool:
    """Whether a statement as pg_stat_statements shows it is one of the feed's."""
    parts = re.split(r"\$\d+", flat(recorded))
    pattern = re.compile(TOKEN.join(re.escape(part) for part in parts))
    return any(pattern.fullmatch(source) for source in FEED_SOURCES)


class StatementCounter:
    """pg_stat_statements of one database, through a connection of its own."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.conn: asyncpg.Connection | None = None
        self.track_utility = False

    async def open(self, *, need_utility: bool = True) -> str | None:
        """Create the extension in the database and start counting; or why it cannot.
        With `need_utility`, track_utility off is a reason too: BEGIN and COMMIT would
        not count."""
        try:
            self.conn = await asyncpg.connect(self.dsn)
            # A role that may not create it can still read it, if it is there.
            with contextlib.suppress(asyncpg.PostgresError):
                await self.conn.execute(f"CREATE EXTENSION IF NOT EXISTS {EXTENSION}")
            found = await self.conn.fetchval(
                "SELECT 1 FROM pg_extension WHERE extname = $1", EXTENSION
            )
            if not found:
                return f"the {EXTENSION} extension is not installed in the database"
            # Fails first, and says why, when the server has not loaded the library.
            await self.reset()
            self.track_utility = await self.conn.fetchval(f"SHOW {EXTENSION}.track_utility") == (
                "on"
            )
        except (asyncpg.PostgresError, OSError) as error:
            return f"{EXTENSION} is not available: {error}"
        if need_utility and not self.track_utility:
            return f"{EXTENSION}.track_utility is off: BEGIN and COMMIT would not count"
        return None

    async def close(self) -> None:
        if self.conn is not None:
            await self.conn.close()

    async def reset(self) -> None:
        assert self.conn is not None
        await self.conn.execute(RESET)

    async def executed(self) -> list[tuple[int, str]]:
        """(calls, statement as pg_stat_statements shows it) since the last reset."""
        assert self.conn is not None
        return [(int(r["calls"]), str(r["query"])) for r in await self.conn.fetch(READ)]

    async def count(self) -> dict[str, Any]:
        """Executions since the last reset: the requests', the feed's, and each statement's."""
        statements = [
            {"calls": calls, "feed": from_feed(query), "query": flat(query)[:300]}
            for calls, query in await self.executed()
        ]
        return {
            "request_calls": sum(s["calls"] for s in statements if not s["feed"]),
            "feed_calls": sum(s["calls"] for s in statements if s["feed"]),
            "statements": statements,
        }
