"""The customer page's limits and what it says of the shop (routes/customer_page.py).

Limits with the `limits` library, counted in each process's memory like the payments
door's (routes/inbox_policy.py): a flood costs no database work. Per client address (an
IPv6 /64): requests naming no link (a guessed or mistyped secret), after which the
address waits whatever it sends, so secrets cannot be tried in bulk; and a ceiling on all
requests. Per link: a ceiling on its requests, which bounds what one leaked link can
cost, whoever holds it. A refused request is HTTP 429 with Retry-After.
"""

from dataclasses import dataclass

from limits import RateLimitItem, parse
from limits.aio.storage import MemoryStorage
from limits.aio.strategies import MovingWindowRateLimiter

from api.throttle import Refusal, address_key, refusal

# The defaults of PRESSROOM_CUSTOMER_PAGE_FAILURES_PER_ADDRESS,
# PRESSROOM_CUSTOMER_PAGE_REQUESTS_PER_ADDRESS and PRESSROOM_CUSTOMER_PAGE_REQUESTS_PER_LINK.
# A page open in a tab asks once a minute; loading it with its proofs' previews, a few.
FAILURES_PER_ADDRESS = "10/minute"
REQUESTS_PER_ADDRESS = "300/minute"
REQUESTS_PER_LINK = "60/minute"
SHOP_NAME = "Print shop"
FAILURES, REQUESTS, LINK = "customer-failures", "customer-requests", "customer-link"


@dataclass
class CustomerPagePolicy:
    # What the page calls the shop, and how a customer reaches it (shown on every page,
    # and on a revoked or expired link's).
    shop_name: str = SHOP_NAME
    shop_contact: str | None = None
    failures_per_address: str = FAILURES_PER_ADDRESS
    requests_per_address: str = REQUESTS_PER_ADDRESS
    requests_per_link: str = REQUESTS_PER_LINK

    def __post_init__(self) -> None:
        self.limiter = MovingWindowRateLimiter(MemoryStorage())
        self.failures: RateLimitItem = parse(self.failures_per_address)
        self.requests: RateLimitItem = parse(self.requests_per_address)
        self.per_link: RateLimitItem = parse(self.requests_per_link)

    async def admit(self, address: str) -> Refusal | None:
        """Count a request from `address`; refuse it when the address's limits are reached."""
        where = address_key(address)
        if not await self.limiter.test(self.failures, FAILURES, where):
            return await refusal(self.limiter, self.failures, FAILURES, where)
        if not await self.limiter.hit(self.requests, REQUESTS, where):
            return await refusal(self.limiter, self.requests, REQUESTS, where)
        return None

    async def admit_link(self, link_id: int) -> Refusal | None:
        """Count a request through the link; refuse it past the link's limit."""
        key = str(link_id)
        if not await self.limiter.hit(self.per_link, LINK, key):
            return await refusal(self.limiter, self.per_link, LINK, key)
        return None

    async def failed(self, address: str) -> None:
        """A request from `address` named no link."""
        await self.limiter.hit(self.failures, FAILURES, address_key(address))
