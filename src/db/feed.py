"""The live event feed of one server process.

PostgreSQL LISTEN/NOTIFY is only a wake-up; the event table is the truth. One
reader per process follows the log in (xid, id) order and publishes each event to
its channels, whose in-process subscribers db/fanout.py serves. A lost
notification, or a listener connection that died, costs latency (the reader also
polls), never an event.

Writers never NOTIFY inside their transactions (that serialises commits, see
docs/realtime.md). After a commit they `poke()` the feed: the local reader
wakes, and one notifier task sends a single NOTIFY for any number of pokes, from
its own connection. Under a stream of commits the reader and the notifier each
act at most once per `batch_window`: a read then carries a batch of events
instead of one, and writers keep their commit rate. An isolated commit is read
at once.
"""

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import asyncpg
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from db import events
from db.engine import autocommitting
from db.events import Position, Resume, StoredEvent
from db.fanout import TOKENS_CHANNEL, Delivered, FanOut, Item, Owner, channels_of
from db.queries import native

log = logging.getLogger(__name__)

NOTIFY_CHANNEL = "pressroom_events"
# Sent by the statement that arms a timer due soon (arm_order_timers in queries.sql).
TIMERS_CHANNEL = "pressroom_timers"
LISTENER_NAME = "pressroom-listener"
# Every background task of src/db (the feed's, the timer loop) is named so: what it runs
# on the engine is told apart from what requests run by it.
TASK_PREFIX = "background-"
# queries.sql's NOTIFY as asyncpg takes it ($1): it is sent on the listener's own connection.
NOTIFY_SQL = native("notify_events")[0]


Enrich = Callable[[Any, list[StoredEvent]], Any]


@dataclass
class FeedStats:
    delivered: int = 0
    listener_connects: int = 0
    reads: int = 0
    read_errors: int = 0
    # How long the oldest open writing transaction has been holding delivery back.
    held_back_seconds: float = 0.0
    # Commit-to-read delay of the newest event delivered.
    delivery_lag_seconds: float = 0.0


@dataclass
class EventFeed:
    engine: AsyncEngine
    # Where the listener connects: a session of its own (LISTEN), so PostgreSQL itself,
    # never a PgBouncer in transaction mode.
    url: str
    enrich: Enrich | None = None
    buffer: int = 1000
    poll_interval: float = 0.5
    batch_window: float = 0.01
    listener_probe_interval: float = 1.0
    position: Position = events.START
    # The newest position read from the log, handed out or not yet: its transaction and
    # every older one of this database had finished. A replay reads at least this far
    # (see events_after in queries.sql), so what the feed handed out before a subscription
    # joined it is in that subscription's replay.
    settled: Position = events.START
    listening: bool = False
    stats: FeedStats = field(default_factory=FeedStats)

    def __post_init__(self) -> None:
        self.fanout = FanOut(self.buffer)
        self._wake = asyncio.Event()
        # Set when any process armed a timer due within the minute (its NOTIFY), or when the
        # listener reconnects (one may have been missed): the timer loop (db/timers.py)
        # looks again before its poll.
        self.timer_armed = asyncio.Event()
        # One per outbox (`advancing`), each set whenever the reader hands out events, for
        # the outbox to look for work (it clears its own: another's round never hides it).
        self._advanced: list[asyncio.Event] = []
        # Set whenever `listening` flips, for readiness watchers (and tests) to await.
        self.listener_changed = asyncio.Event()
        self._notify = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._read_lock = asyncio.Lock()
        self._origin = secrets.token_hex(8)
        self._lag_checked = 0.0
        self._reader = autocommitting(self.engine)
        # Held, not checked out per read: each checkout's pre-ping is one more query.
        self._reader_conn: AsyncConnection | None = None
        self._listener_conn: asyncpg.Connection | None = None
        # The listener's connection also sends the NOTIFYs and its probe; one at a time.
        self._listener_lock = asyncio.Lock()

    def advancing(self) -> asyncio.Event:
        """An event of the caller's own, set whenever the reader hands out events."""
        advanced = asyncio.Event()
        self._advanced.append(advanced)
        return advanced

    async def start(self) -> None:
        async with self._reader.connect() as conn:
            self.position = self.settled = await events.head(conn)
        self.fanout.position = self.position
        self._tasks = [
            asyncio.create_task(self._listen_forever(), name=f"{TASK_PREFIX}listener"),
            asyncio.create_task(self._read_forever(), name=f"{TASK_PREFIX}reader"),
            asyncio.create_task(self._notify_forever(), name=f"{TASK_PREFIX}notifier"),
        ]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._drop_reader_connection()

    def access_changes(self) -> int:
        """How many access changes (memberships, deactivations, revocations) the feed has
        handed out: a viewer read before this last moved may be out of date."""
        return self.fanout.access_changes

    def handed_out(self) -> tuple[int, Position]:
        """The access changes handed out and the last event handed out, as of now (both
        move together). A subscriber that joined the feed receives every event past
        that position in its buffer, behind the marks of any access change before it;
        a replay reads no further, so that it never runs ahead of those marks."""
        return self.fanout.access_changes, self.fanout.position

    def poke(self) -> None:
        """Called after a commit that wrote events: wake the local reader, notify the others."""
        self._wake.set()
        self._notify.set()

    def subscribe(
        self,
        channel: str,
        wants: Callable[[Position], bool] | None = None,
        owner: Owner | None = None,
    ) -> contextlib.AbstractAsyncContextManager[Any]:
        """Live events of a channel; with `wants`, only the positions it wants are buffered;
        with `owner`, RECHECK marks arrive when that user's access or token changes."""
        accepts = None if wants is None else lambda d: wants(d.event.position)
        return self.fanout.subscribe(channel, accepts=accepts, owner=owner)

    def _on_notify(self, connection: Any, pid: int, channel: str, payload: str) -> None:
        # Our own notifier's NOTIFY comes back here too; poke() already woke the reader.
        if payload != self._origin:
            self._wake.set()

    def _on_timer_armed(self, connection: Any, pid: int, channel: str, payload: str) -> None:
        self.timer_armed.set()

    def _set_listening(self, value: bool) -> None:
        if self.listening != value:
            self.listening = value
            self.listener_changed.set()

    async def _listen_forever(self) -> None:
        backoff = 0.05
        while True:
            conn = None
            dsn = make_url(self.url).set(drivername="postgresql")
            try:
                conn = await asyncpg.connect(
                    dsn.render_as_string(hide_password=False),
                    server_settings={"application_name": LISTENER_NAME},
                )
                closed = asyncio.Event()
                conn.add_termination_listener(lambda _, closed=closed: closed.set())
                await conn.add_listener(NOTIFY_CHANNEL, self._on_notify)
                await conn.add_listener(TIMERS_CHANNEL, self._on_timer_armed)
                self._listener_conn = conn
                self._set_listening(True)
                self.stats.listener_connects += 1
                backoff = 0.05
                # Anything committed while we were not listening is read now.
                self._wake.set()
                self.timer_armed.set()
                while not closed.is_set():
                    try:
                        async with asyncio.timeout(self.listener_probe_interval):
                            await closed.wait()
                    except TimeoutError:
                        # A killed backend is only noticed when the socket is used.
                        async with asyncio.timeout(5), self._listener_lock:
                            await conn.fetchval("SELECT 1")
            except asyncio.CancelledError:
                raise
            except Exception as error:  # any failure means: reconnect
                log.warning("event listener down: %s", error)
            finally:
                self._listener_conn = None
                self._set_listening(False)
                if conn is not None and not conn.is_closed():
                    conn.terminate()
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 2.0)

    async def _read_forever(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for can swallow the
            # cancellation that stop() sends, and the loop would never end.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.poll_interval):
                    await self._wake.wait()
            self._wake.clear()
            began = loop.time()
            try:
                await self._read_available()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                # Whatever went wrong, the reader must live on: it is the only path from
                # the log to subscribers. Its position is unchanged, so nothing is lost.
                self.stats.read_errors += 1
                log.warning("event reader failed, will retry: %r", error)
                await asyncio.sleep(self.poll_interval)
                continue
            await asyncio.sleep(max(0.0, began + self.batch_window - loop.time()))

    async def catch_up(self) -> None:
        """Deliver everything committed so far, now (the reader may be between polls)."""
        await self._read_available()

    async def _drop_reader_connection(self) -> None:
        conn, self._reader_conn = self._reader_conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()

    async def _read_available(self) -> None:
        async with self._read_lock:
            if self._reader_conn is None:
                self._reader_conn = await self._reader.connect()
            conn = self._reader_conn
            try:
                # Behind PgBouncer each read is a transaction, the only way its statements
                # run where they were prepared; it ends here, so the server connection
                # goes back to PgBouncer's pool. In autocommit mode, no round trip.
                async with conn.begin():
                    await self._read_batches(conn)
            except BaseException:
                # A connection that failed, or was cancelled mid-read, is not used again.
                await self._drop_reader_connection()
                raise

    async def _read_batches(self, conn: AsyncConnection) -> None:
        # pg_stat_activity is not cheap: look at the lag at most once per second.
        now = time.monotonic()
        if now - self._lag_checked >= 1.0:
            self._lag_checked = now
            self.stats.held_back_seconds = await events.lag_seconds(conn)
        while True:
            batch = await events.read_page(conn, Resume(self.position), self.settled)
            self.stats.reads += 1
            if not batch:
                return
            self.settled = max(self.settled, batch[-1].position)
            # Related rows serve GraphQL subscribers only; with none, skip reading them.
            channels = {c for e in batch for c in channels_of(e)} - {TOKENS_CHANNEL}
            wanted = self.enrich is not None and self.fanout.listens_to(channels)
            related = await self.enrich(conn, batch) if wanted and self.enrich else None
            self.stats.delivery_lag_seconds = max(
                0.0, (datetime.now(UTC) - batch[-1].occurred_at).total_seconds()
            )
            for event in batch:
                for channel in channels_of(event):
                    self.fanout.dispatch(Item(channel, Delivered(event, related)))
            self.position = batch[-1].position
            self.stats.delivered += len(batch)
            for advanced in self._advanced:
                advanced.set()
            if len(batch) < events.PAGE:
                return

    async def _notify_forever(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._notify.wait()
            self._notify.clear()
            began = loop.time()
            conn = self._listener_conn
            if conn is not None:
                try:
                    async with self._listener_lock:
                        await conn.execute(NOTIFY_SQL, self._origin)
                except asyncio.CancelledError:
                    raise
                except Exception as error:
                    # Other processes then learn of the event from their poll instead.
                    log.warning("event notify failed: %r", error)
            await asyncio.sleep(max(0.0, began + self.batch_window - loop.time()))
