"""Admission control: anonymous work gets a bounded share of the process, and takes its
turn after the floor's.

A request with no valid token (a sign-in, or anyone at all) is anonymous. At most
`limit` anonymous requests are answered at once in one process; the next is refused at
once with 503 and Retry-After, never queued, and is given no connection. Requests with
a valid token (people, API tokens, wall displays) are never counted there, so however
many anonymous requests arrive, the floor's own work finds the pool as it left it.

The pool is not all a request waits for: the event loop is one. A queue read awaits the
database at each of its statements, and at each await every anonymous request ready to
run went first: eight clients sending refused documents back to back (1-3.5 ms each)
held a signed-in read's p99 at ten times quiet. So an admitted anonymous request starts
its work (reading its body, parsing, validating, running) only once no signed-in request
is in flight, or after YIELD_SECONDS at most: it is never starved, and the floor's
requests meet only the anonymous work that had already started.
"""

import asyncio
import contextlib
from collections.abc import Iterator
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

    async def turn(self) -> None:
        """Wait, as an admitted anonymous request, until no signed-in request is in flight
        (at most `yield_seconds`)."""
        if self.floor == 0:
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.yield_seconds):
                await self._floor_idle.wait()

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
