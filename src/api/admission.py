"""Admission control: anonymous work gets a bounded share of the process, and takes its
turn after the floor's.

A request with no valid token (a sign-in, or anyone at all) is anonymous. At most
`limit` anonymous requests are answered at once in one process; the next is refused at
once with 503 and Retry-After, never queued, and is given no connection. Requests with
a valid token (people, API tokens, wall displays) are never counted there, so however
many anonymous requests arrive, the floor's own work finds the pool as it left it.

The pool is not all a request waits for: the event loop is one. A queue read awaits the
database at each of its statements, and at each await every anonymous request ready to
run went first: eight clients sending refused documents back to back (1-5 ms each)
held a signed-in read's p99 at ten times quiet. So an admitted anonymous request does
its own work on the loop (decoding its body, parsing, validating) in stretches
(`working`), one anonymous stretch at a time, each begun only once no signed-in request
is in flight, or after YIELD_SECONDS at most: it is never starved, and a floor's request
that arrives meets at most the one stretch under way, not every anonymous request that
had started. Reading the body comes before (a slow sender holds no stretch) and running
the operation after (a sign-in waits for the database and its hash, not the loop).
"""

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field

# A refused client may try again this soon: an anonymous request is a sign-in's few ms.
RETRY_AFTER_SECONDS = 1
# The longest an admitted anonymous request waits for the floor's requests to finish: a
# floor that is never idle delays a sign-in by this much, no more.
YIELD_SECONDS = 0.5


@dataclass
class AnonymousAdmission:
    limit: int
    in_flight: int = 0
    refused: int = 0
    # Signed-in requests being answered now, and a flag set while there are none.
    floor: int = 0
    yield_seconds: float = YIELD_SECONDS
    _floor_idle: asyncio.Event = field(default_factory=asyncio.Event)
    # Stretches waiting for their turn (`working`).
    queued: int = 0
    _stretch: asyncio.Lock = field(default_factory=asyncio.Lock)

    def __post_init__(self) -> None:
        self._floor_idle.set()

    def enter(self) -> bool:
        """Whether one more anonymous request may run now (then `leave` when it ends)."""
        if self.in_flight >= self.limit:
            self.refused += 1
            return False
        self.in_flight += 1
        return True

    def leave(self) -> None:
        self.in_flight -= 1

    @contextlib.contextmanager
    def admitted(self) -> Iterator[None]:
        """Around an admitted anonymous request (`enter` said yes): its `stretch`es take
        their turns, and it leaves at the end."""
        token = _ADMITTED.set(self)
        try:
            yield
        finally:
            _ADMITTED.reset(token)
            self.leave()

    async def turn(self) -> None:
        """Wait, as an admitted anonymous request, until no signed-in request is in flight
        (at most `yield_seconds`)."""
        if self.floor == 0:
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.yield_seconds):
                await self._floor_idle.wait()

    @contextlib.asynccontextmanager
    async def working(self) -> AsyncIterator[None]:
        """Around a stretch of an admitted anonymous request's work on the event loop:
        one at a time, each after the signed-in requests in flight (`turn`)."""
        self.queued += 1
        try:
            await self._stretch.acquire()
        finally:
            self.queued -= 1
        try:
            await self.turn()
            yield
        finally:
            self._stretch.release()

    @contextlib.contextmanager
    def signed_in(self) -> Iterator[None]:
        """Around a signed-in request: anonymous work waits its turn meanwhile."""
        self.floor += 1
        self._floor_idle.clear()
        try:
            yield
        finally:
            self.floor -= 1
            if self.floor == 0:
                self._floor_idle.set()


# The admission of the anonymous request the current task answers, if it is one.
_ADMITTED: ContextVar[AnonymousAdmission | None] = ContextVar("pressroom_admitted", default=None)


@contextlib.asynccontextmanager
async def stretch() -> AsyncIterator[None]:
    """Around a stretch of a request's own work on the event loop: an admitted anonymous
    request's waits its turn (`AnonymousAdmission.working`); any other's runs at once."""
    admission = _ADMITTED.get()
    if admission is None:
        yield
        return
    async with admission.working():
        yield
