"""Subscriptions: replay from the event log after a cursor, then live, with no gap and
no duplicate at the seam.

The live queue is joined before the replay is read, so every event is in one or
both; an event is delivered only when its position is past the last one
delivered (and, for a snapshot cursor, unseen by that snapshot).
"""

import inspect
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Protocol, TypeVar

import strawberry
from graphql import GraphQLError, located_error
from strawberry import relay
from strawberry.permission import BasePermission

from api.auth import load_viewer
from api.errors import bad_request, forbidden, not_found, unauthenticated
from api.ids import decode_id
from db import events, reads
from db.event_versions import NewerEventVersion
from db.events import BadCursor, CursorExpired, Filter, Resume
from db.fanout import (
    GATE_CHANNEL,
    GATE_TYPES,
    LEDGER_CHANNEL,
    OVERFLOWED,
    RECHECK,
    Delivered,
    Owner,
    department_channel,
    work_order_channel,
)
from db.feed import EventFeed
from domain.enums import EventType
from graph.context import Info
from graph.permissions import (
    READS_LEDGER,
    SEES_DELIVERY_GATE,
    SEES_QUEUE,
    STAFF,
    allowed,
    viewer_of,
)
from graph.types.events import DeliveryGateEvent, LedgerEvent, QueueEvent, WorkOrderEvent

# Where a subscription resumes: what was missed since comes first.
ResumeAfter = Annotated[
    str | None,
    strawberry.argument(description="Resume after this event cursor: what was missed comes first."),
]

SLOW_CONSUMER = "SLOW_CONSUMER"
CURSOR_EXPIRED = "CURSOR_EXPIRED"
R = TypeVar("R", covariant=True)
log = logging.getLogger("pressroom.subscriptions")


def _feed(info: Info) -> EventFeed:
    feed = info.context.services.feed
    if feed is None:
        raise GraphQLError("Subscriptions are not available on this server.")
    return feed


def _resume(after: str | None) -> Resume | None:
    if after is None:
        return None
    try:
        return events.decode_cursor(after)
    except BadCursor:
        raise bad_request("'after' is not an event cursor.") from None


@contextmanager
def located(info: Info) -> Iterator[None]:
    """An exception a subscription did not raise on purpose, given the field's path: the
    libraries hand what a subscription's stream raises to the client without one, and an
    error without a path is the request's own, never masked (graph/errors.py
    `should_mask`). With it, it is masked as over HTTP."""
    try:
        yield
    except GraphQLError:
        raise
    except Exception as error:
        raise located_error(error, None, info.path.as_list()) from None


async def reauthorize(info: Info, rule: BasePermission, **arguments: Any) -> None:
    """Check a live subscription's rights again: the token must still work
    (UNAUTHENTICATED) and the rule still pass (FORBIDDEN). The viewer comes from the
    process's cache unless an access change was handed out since it was read."""
    again = await load_viewer(info.context.services, info.context.token)
    if again is None:
        raise unauthenticated(token_given=True)
    info.context.viewer = again
    verdict = rule.has_permission(None, info, **arguments)
    if inspect.isawaitable(verdict):
        verdict = await verdict
    if not verdict:
        raise forbidden(rule.message or "No longer allowed.")


class Root(Protocol[R]):
    """A subscription's event type: made from an event and the cursor to resume after it."""

    @classmethod
    def of(cls, delivered: Delivered, cursor: str) -> R: ...


async def stream(
    info: Info,
    channel: str,
    where: Filter,
    after: str | None,
    rule: BasePermission,
    root: type[Root[R]],
    **arguments: Any,
) -> AsyncIterator[R]:
    """Yields each event as a `root` object, with the cursor to resume after it. `rule`
    (with the field's `arguments`) is the subscription's permission, checked again
    whenever its user's access changes, before any event committed after that change is
    delivered. A live event whose answer the engine room can write itself is written
    here instead (`Shortcuts.direct`), and yields nothing.

    One generator from the feed's queue to the field: each level of `async for` costs
    every subscriber a step per event, and keeps an awaitable alive while it waits."""
    feed = _feed(info)
    resume = _resume(after)
    viewer = viewer_of(info)
    direct = info.context.services.shortcuts.direct(info)
    owner = Owner(user_id=viewer.user_id, token_id=viewer.token_id)
    delivered_count = 0
    ended = "closed"

    def wants(position: events.Position) -> bool:
        # Reads `resume` as it stands when the feed hands over an event: whatever the
        # replay already delivered stays out of the buffer, leaving its room for news.
        return resume is None or resume.wants(position)

    log.info(
        "subscription started",
        extra={"channel": channel, "user_id": viewer.user_id, "replay": after is not None},
    )
    try:
        async with feed.subscribe(channel, wants=wants, owner=owner) as live:
            # The field's permission saw the viewer the connection loaded when it opened.
            # An access change handed out since then, before this subscription was
            # registered, left no RECHECK in its queue: check again now (a read only if
            # such a change came). Later changes mark the queue.
            checked: int | None = None

            async def recheck(changes: int) -> None:
                """The rights again, whenever the count of access changes handed out moved."""
                nonlocal checked
                if changes != checked:
                    checked = changes
                    await reauthorize(info, rule, **arguments)

            await recheck(feed.access_changes())
            if resume is not None:
                async for replayed, past in _replay(info, feed, resume, where, recheck):
                    resume = past
                    delivered_count += 1
                    yield root.of(replayed, resume.cursor())
            # Rows read to set the subscription up are not kept while it waits (memory
            # per idle subscriber); each event's execution primes what it needs.
            info.context.loaders.clear_all()
            while True:
                item = await live.get()
                if item.message is RECHECK:
                    await reauthorize(info, rule, **arguments)
                    continue
                if item.message is OVERFLOWED:
                    raise GraphQLError(
                        "This subscriber fell behind and was dropped; subscribe again with "
                        "`after` set to the last cursor it received.",
                        extensions={
                            "code": SLOW_CONSUMER,
                            "resumeAfter": resume.cursor() if resume is not None else None,
                        },
                    )
                delivered: Delivered = item.message
                position = delivered.event.position
                if resume is not None and not resume.wants(position):
                    continue
                resume = resume.past(position) if resume is not None else Resume(position)
                delivered_count += 1
                cursor = resume.cursor()
                if direct is None or not await direct.wrote(delivered, root, cursor):
                    yield root.of(delivered, cursor)
    except GraphQLError as error:
        ended = str((error.extensions or {}).get("code", "error"))
        raise
    finally:
        log.info(
            "subscription ended",
            extra={
                "channel": channel,
                "user_id": viewer.user_id,
                "events": delivered_count,
                "end": ended,
            },
        )
        info.context.services.metrics.subscriptions.labels(channel.split(":")[0], ended).inc()
        # Thousands of displays hanging up at once cancel as many subscriptions in a burst,
        # each leaving its cancellation's traceback alive for a while: counted, the
        # endings spread the garbage collector's work over the burst
        # (graph/engine/collector.py).
        info.context.services.shortcuts.subscription_ended()


async def _replay(
    info: Info,
    feed: EventFeed,
    resume: Resume,
    where: Filter,
    recheck: Callable[[int], Awaitable[None]],
) -> AsyncIterator[tuple[Delivered, Resume]]:
    """The log's events after `resume`, page by page, each with the position past it.
    Whatever the feed handed out before the subscription joined it, the feed had read:
    every page reads at least that far (`feed.settled`).

    It stops at the last event the feed has handed out when the page is read: what came
    later reaches the subscriber's queue, in order, behind the mark of any access change
    before it. Access changes handed out by then are checked (`recheck`) before the
    page is read, so no event committed after a lost right is replayed. A cursor whose
    next events were pruned ends the subscription with CURSOR_EXPIRED, on any page."""
    while True:
        changes, handed_out = feed.handed_out()
        await recheck(changes)
        async with info.context.read() as conn:
            try:
                page = await events.replay_page(conn, resume, feed.settled, where)
            except NewerEventVersion:
                # The feed stops at that event too: nothing past it comes from this process.
                return
            except CursorExpired:
                raise GraphQLError(
                    "This cursor is older than the event log keeps: events after it were "
                    "pruned. Take a new snapshot (a queue's eventCursor, or read what you "
                    "show again) and subscribe from there.",
                    extensions={"code": CURSOR_EXPIRED},
                ) from None
            related = await reads.related(conn, page) if page else None
        for event in page:
            if event.position > handed_out:
                return
            resume = resume.past(event.position)
            yield Delivered(event, related), resume
        if len(page) < events.PAGE:
            return


async def _department_id(info: Info, code: str) -> int:
    """Only the id: a subscription's frame lives as long as it does, and a row would keep
    its result's metadata alive with it (about 2 KB per idle wall display)."""
    department = (await info.context.loaders.department_codes()).get(code)
    if department is None:
        raise not_found(f"No department has the code '{code}'.")
    return int(department.id)


@strawberry.type(
    description="What can be followed over a websocket. Each ends with who may follow it."
)
class Subscription:
    @strawberry.subscription(
        extensions=allowed(SEES_QUEUE),
        description="Changes to a department's queue. With `after` (an event cursor, or "
        "the queue's eventCursor), every change after it is replayed first.",
    )
    async def queue_events(
        self,
        info: Info,
        department: Annotated[str, strawberry.argument(description="The department's code.")],
        after: Annotated[
            str | None,
            strawberry.argument(
                description="Resume after this event cursor (an event's `cursor`, or a `queue` "
                "page's `eventCursor`): what was missed comes first."
            ),
        ] = None,
    ) -> AsyncGenerator[QueueEvent, None]:
        with located(info):
            department_id = await _department_id(info, department)
            where = Filter(department_id=department_id)
            channel = department_channel(department_id)
            live = stream(
                info, channel, where, after, SEES_QUEUE, QueueEvent, department=department
            )
            async for event in live:
                yield event

    @strawberry.subscription(
        extensions=allowed(SEES_DELIVERY_GATE),
        description="Delivery gates opening and closing, on every work order, and a "
        "delivery task in its queue falling due soon or late.",
    )
    async def delivery_gate_events(
        self,
        info: Info,
        after: ResumeAfter = None,
    ) -> AsyncGenerator[DeliveryGateEvent, None]:
        with located(info):
            where = Filter(types=GATE_TYPES, gate=True)
            live = stream(info, GATE_CHANNEL, where, after, SEES_DELIVERY_GATE, DeliveryGateEvent)
            async for event in live:
                yield event

    @strawberry.subscription(
        extensions=allowed(STAFF),
        description="Every change to one work order and its tasks.",
    )
    async def work_order_events(
        self,
        info: Info,
        work_order_id: Annotated[
            relay.GlobalID, strawberry.argument(description="The work order to follow.")
        ],
        after: ResumeAfter = None,
    ) -> AsyncGenerator[WorkOrderEvent, None]:
        with located(info):
            pk = decode_id(work_order_id, "WorkOrder")
            if pk is None or await info.context.loaders.work_order.load(pk) is None:
                raise bad_request("'workOrderId' is not the id of a work order.")
            where = Filter(work_order_id=pk)
            live = stream(info, work_order_channel(pk), where, after, STAFF, WorkOrderEvent)
            async for event in live:
                yield event

    @strawberry.subscription(
        extensions=allowed(READS_LEDGER),
        description="Entries posted to any customer's ledger.",
    )
    async def ledger_events(
        self,
        info: Info,
        after: ResumeAfter = None,
    ) -> AsyncGenerator[LedgerEvent, None]:
        with located(info):
            where = Filter(types=(EventType.LEDGER_ENTRY_POSTED.value,))
            async for event in stream(
                info, LEDGER_CHANNEL, where, after, READS_LEDGER, LedgerEvent
            ):
                yield event
