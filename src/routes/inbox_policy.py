"""The payments door's limits (routes/payment_inbox.py), per client address (IPv6 per /64)
with the `limits` library, counted in each process's memory: refusing a flood costs no
database work, and its requests leave no rows.

Per address: requests that did not prove an inbox's secret (no inbox of that name, one
turned off, no signature or a wrong one, a stale timestamp), after which the address
waits whatever it sends; and a generous ceiling on all requests, which bounds the
writes a sender holding a secret can cause. A refused request is HTTP 429 with
Retry-After. How long the requests an inbox answered are kept is here too.
"""

from dataclasses import dataclass

from limits import RateLimitItem, parse
from limits.aio.storage import MemoryStorage
from limits.aio.strategies import MovingWindowRateLimiter

from api.throttle import Refusal, address_key, refusal

# The defaults of PRESSROOM_INBOX_FAILURES_PER_ADDRESS, PRESSROOM_INBOX_REQUESTS_PER_ADDRESS
# and PRESSROOM_INBOX_REQUEST_RETENTION_DAYS.
FAILURES_PER_ADDRESS = "10/minute"
REQUESTS_PER_ADDRESS = "600/minute"
KEEP_DAYS = 90
FAILURES, REQUESTS = "inbox-failures", "inbox-requests"


@dataclass
class InboxPolicy:
    failures_per_address: str = FAILURES_PER_ADDRESS
    requests_per_address: str = REQUESTS_PER_ADDRESS
    keep_days: int = KEEP_DAYS

    def __post_init__(self) -> None:
        self.limiter = MovingWindowRateLimiter(MemoryStorage())
        self.failures: RateLimitItem = parse(self.failures_per_address)
        self.requests: RateLimitItem = parse(self.requests_per_address)

    async def admit(self, address: str) -> Refusal | None:
        """Count a request from `address`; refuse it when a limit is reached."""
        where = address_key(address)
        if not await self.limiter.test(self.failures, FAILURES, where):
            return await refusal(self.limiter, self.failures, FAILURES, where)
        if not await self.limiter.hit(self.requests, REQUESTS, where):
            return await refusal(self.limiter, self.requests, REQUESTS, where)
        return None

    async def failed(self, address: str) -> None:
        """A request from `address` did not prove an inbox's secret."""
        await self.limiter.hit(self.failures, FAILURES, address_key(address))
