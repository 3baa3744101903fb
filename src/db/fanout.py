"""Which channels an event goes to, and how it reaches each subscriber of a channel.

The fan-out (`FanOut`) with a bounded buffer per subscriber, the marks a subscriber finds
in its buffer (overflow, access re-check), and the `Delivered` object every subscriber of
an event shares. The event feed (db/feed.py) reads the log and hands each event to the
fan-out, in the reader's own task, which puts it in the buffers of its channels'
subscribers.

This was broadcaster's fan-out once. Its queues were unbounded, so each part was replaced
in turn (bounded buffers with their marks, the dispatch, the disconnect) until only a
queue and a task of its own were left between the reader and the buffers: two more
hops, and a task chosen at run time, for nothing. The reader calls `dispatch` itself.
"""

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from db.events import START, Position, StoredEvent
from domain.enums import EventType

log = logging.getLogger(__name__)

GATE_CHANNEL = "delivery_gate"
TOKENS_CHANNEL = "tokens"
LEDGER_CHANNEL = "ledger"
ACCESS_CHANNEL = "access"
GATE_TYPES = (EventType.DELIVERY_GATE_OPENED.value, EventType.DELIVERY_GATE_CLOSED.value)


def department_channel(department_id: int) -> str:
    return f"department:{department_id}"


def work_order_channel(work_order_id: int) -> str:
    return f"work_order:{work_order_id}"


def channels_of(event: StoredEvent) -> list[str]:
    found = []
    if event.department_id is not None:
        found.append(department_channel(event.department_id))
    if event.work_order_id is not None:
        found.append(work_order_channel(event.work_order_id))
    if event.type in GATE_TYPES or event.gate_tagged:
        found.append(GATE_CHANNEL)
    if event.type == EventType.TOKEN_REVOKED:
        found.append(TOKENS_CHANNEL)
    if event.type == EventType.LEDGER_ENTRY_POSTED:
        found.append(LEDGER_CHANNEL)
    if event.type == EventType.USER_ACCESS_CHANGED:
        found.append(ACCESS_CHANNEL)
    return found


@dataclass(frozen=True)
class Delivered:
    """An event as handed to subscribers, with rows it refers to, read once per batch.
    One object per event and channel: `results` holds the GraphQL results made for it,
    which subscribers that would get the same answer share (see graph/engine/sharing.py)."""

    event: StoredEvent
    related: Any = None
    results: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)


class Item(NamedTuple):
    """What a subscriber finds in its buffer: a `Delivered` event, or a mark."""

    channel: str
    message: Any


OVERFLOWED = object()
# Put in a subscriber's queue, in log order, when its user's access or its token changed:
# the subscriber checks its rights again before it delivers anything that came later.
RECHECK = object()


@dataclass(frozen=True)
class Owner:
    """Whose subscription a queue serves."""

    user_id: int
    token_id: int


class Mailbox:
    """A subscriber's bounded buffer: the part of asyncio.Queue the feed uses (one reader),
    in one deque. An asyncio.Queue holds four deques and an Event; with thousands of idle
    subscribers that was several KB each. Each websocket's inbox is one too
    (graph/engine/websocket.py). The deque exists only while it holds something: an empty one
    still keeps a 64-slot block (about 0.7 KB per idle mailbox)."""

    __slots__ = ("_items", "_reader", "maxsize")

    def __init__(self, maxsize: int) -> None:
        self._items: deque[Any] | None = None
        self._reader: asyncio.Future[None] | None = None
        self.maxsize = maxsize

    def qsize(self) -> int:
        return len(self._items) if self._items is not None else 0

    def empty(self) -> bool:
        return self._items is None

    def full(self) -> bool:
        return self.qsize() >= self.maxsize

    def put_nowait(self, item: Any) -> None:
        if self.full():
            raise asyncio.QueueFull
        self.put_last(item)

    def put_last(self, item: Any) -> None:
        """Past the bound: for the final mark of a subscriber the fan-out drops."""
        if self._items is None:
            self._items = deque()
        self._items.append(item)
        if self._reader is not None and not self._reader.done():
            self._reader.set_result(None)

    async def get(self) -> Any:
        while self._items is None:
            self._reader = asyncio.get_running_loop().create_future()
            try:
                await self._reader
            finally:
                self._reader = None
        item = self._items.popleft()
        if not self._items:
            self._items = None
        return item


class FanOut:
    """Each event to the buffers of its channels' subscribers, bounded.

    A stalled client must not grow the server's memory without limit: a full buffer gets
    a final mark and is dropped from the channel; the subscriber drains what it has,
    learns it fell behind, and resumes from its last cursor. Memory stays bounded.
    """

    def __init__(self, buffer: int) -> None:
        self.buffer = buffer
        self._filters: dict[Mailbox, Callable[[Any], bool]] = {}
        self._owners: dict[Mailbox, Owner] = {}
        self._mailboxes: dict[str, set[Mailbox]] = {}
        # Subscribers dropped because handing them a message failed (a bug, logged).
        self.failures = 0
        # Access changes (memberships, deactivations, revocations) handed out so far: a
        # viewer loaded before the count last moved may be out of date.
        self.access_changes = 0
        # The last event handed out: every later one reaches the buffers of the channels
        # it is on, after the marks of any access change before it (EventFeed.start sets
        # where the log stood; nothing before that is handed out).
        self.position: Position = START

    def dispatch(self, event: Item) -> None:
        """One message to the buffers of its channel's subscribers.

        This runs in the one task that feeds every subscription of the process (the
        feed's reader): if it raised, all of them would wait forever. A subscriber it
        fails to serve is dropped with the overflow mark instead, and resumes from its
        cursor: nothing is lost."""
        stored = getattr(event.message, "event", None)
        if isinstance(stored, StoredEvent):
            self.position = max(self.position, stored.position)
        if event.channel in (ACCESS_CHANNEL, TOKENS_CHANNEL):
            self.access_changes += 1
            try:
                self._recheck(event.message.event)
            except Exception:
                log.exception("access re-check failed; the owners' subscriptions resume")
                self._drop_all(set(self._owners))
        for queue in list(self._mailboxes.get(event.channel, ())):
            try:
                self._offer(queue, event)
            except Exception:
                log.exception("fan-out to a subscriber failed; it resumes from its cursor")
                self._drop_all({queue})

    def _offer(self, queue: Mailbox, event: Item) -> None:
        accepts = self._filters.get(queue)
        if accepts is not None and not accepts(event.message):
            return
        if queue.qsize() >= self.buffer:
            # The last slot is kept for this mark: what is buffered is still
            # delivered, then the subscriber learns it must resume.
            queue.put_nowait(Item(event.channel, OVERFLOWED))
            self._mailboxes[event.channel].discard(queue)
        else:
            queue.put_nowait(event)

    def _drop_all(self, queues: set[Mailbox]) -> None:
        for channel, subscribers in self._mailboxes.items():
            for queue in subscribers & queues:
                subscribers.discard(queue)
                queue.put_last(Item(channel, OVERFLOWED))
                self.failures += 1

    def _recheck(self, event: StoredEvent) -> None:
        """Mark, before any later event, the queues whose rights this event may have changed."""
        if event.type == EventType.USER_ACCESS_CHANGED:
            user = event.user_id
            affected = [q for q, o in self._owners.items() if o.user_id == user]
        else:
            token = event.token_id
            affected = [q for q, o in self._owners.items() if o.token_id == token]
        for queue in affected:
            if self._has_room(queue):
                queue.put_nowait(Item(ACCESS_CHANNEL, RECHECK))

    def _has_room(self, queue: Mailbox) -> bool:
        """Room for a RECHECK mark: the buffer's last slot stays for the overflow mark. A
        queue with no room will overflow at the next event, and its subscriber then
        subscribes again, its rights checked anew."""
        return queue.qsize() < self.buffer

    def recheck_token(self, token_id: int) -> None:
        """For expiry, which is no event: the token's subscriptions check their rights."""
        for queue, owner in self._owners.items():
            if owner.token_id == token_id and self._has_room(queue):
                queue.put_nowait(Item(TOKENS_CHANNEL, RECHECK))

    @contextlib.asynccontextmanager
    async def subscribe(
        self,
        channel: str,
        accepts: Callable[[Any], bool] | None = None,
        owner: Owner | None = None,
    ) -> AsyncIterator[Mailbox]:
        """`accepts` keeps messages the subscriber would skip (older than its cursor)
        out of its buffer, so a burst of old events cannot overflow a new subscriber."""
        queue = Mailbox(maxsize=self.buffer + 1)
        if accepts is not None:
            self._filters[queue] = accepts
        if owner is not None:
            self._owners[queue] = owner
        self._mailboxes.setdefault(channel, set()).add(queue)
        try:
            yield queue
        finally:
            self._filters.pop(queue, None)
            self._owners.pop(queue, None)
            subscribers = self._mailboxes.get(channel)
            if subscribers is not None:
                subscribers.discard(queue)
                if not subscribers:
                    del self._mailboxes[channel]

    def subscriber_count(self, channel: str | None = None) -> int:
        if channel is not None:
            return len(self._mailboxes.get(channel, ()))
        return sum(len(queues) for queues in self._mailboxes.values())

    def listens_to(self, channels: set[str]) -> bool:
        return any(self._mailboxes.get(channel) for channel in channels)
