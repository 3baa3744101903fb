"""Admission control: anonymous work gets a bounded share of the process.

A request with no valid token (a sign-in, or anyone at all) is anonymous. At most
`limit` anonymous requests are answered at once in one process; the next is refused at
once with 503 and Retry-After, never queued, and is given no connection. Requests with
a valid token (people, API tokens, wall displays) are never counted here, so however
many anonymous requests arrive, the floor's own work finds the pool as it left it.
"""

from dataclasses import dataclass

# A refused client may try again this soon: an anonymous request is a sign-in's few ms.
RETRY_AFTER_SECONDS = 1


@dataclass
class AnonymousAdmission:
    limit: int
    in_flight: int = 0
    refused: int = 0

    def enter(self) -> bool:
        """Whether one more anonymous request may run now (then `leave` when it ends)."""
        if self.in_flight >= self.limit:
            self.refused += 1
            return False
        self.in_flight += 1
        return True

    def leave(self) -> None:
        self.in_flight -= 1
