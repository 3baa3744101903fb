"""The customer page's limits and what it says of the shop (routes/customer_page.py).

Limits with the `limits` library, counted in each process's memory like the payments
door's (routes/inbox_policy.py): a flood costs no database work. Per client address (an
IPv6 /64): requests naming no link (a guessed or mistyped secret), after which the
address waits whatever it sends, so secrets cannot be tried in bulk; and a ceiling on all
requests. Per link: a ceiling on its requests, which bounds what one leaked link can
cost, whoever holds it. A refused request is HTTP 429 with Retry-After.
"""

from dataclasses import dataclass, field

from limits import RateLimitItem, parse

from api.throttle import AddressLimits, Refusal, refusal

# The defaults of PRESSROOM_CUSTOMER_PAGE_FAILURES_PER_ADDRESS,
# PRESSROOM_CUSTOMER_PAGE_REQUESTS_PER_ADDRESS and PRESSROOM_CUSTOMER_PAGE_REQUESTS_PER_LINK.
# A page open in a tab asks once a minute; loading it with its proofs' previews, a few.
FAILURES_PER_ADDRESS = "10/minute"
REQUESTS_PER_ADDRESS = "300/minute"
REQUESTS_PER_LINK = "60/minute"
SHOP_NAME = "Print shop"
LINK = "customer-link"


@dataclass
class CustomerPagePolicy:
    # What the page calls the shop, and how a customer reaches it (shown on every page,
    # and on a revoked or expired link's).
    shop_name: str = SHOP_NAME
    shop_contact: str | None = None
    failures_per_address: str = FAILURES_PER_ADDRESS
    requests_per_address: str = REQUESTS_PER_ADDRESS
    requests_per_link: str = REQUESTS_PER_LINK

    # A failure is a request naming no link.
    addresses: AddressLimits = field(init=False)

    def __post_init__(self) -> None:
        self.addresses = AddressLimits(
            "customer", self.failures_per_address, self.requests_per_address
        )
        self.per_link: RateLimitItem = parse(self.requests_per_link)

    async def admit_link(self, link_id: int) -> Refusal | None:
        """Count a request through the link; refuse it past the link's limit."""
        key = str(link_id)
        limiter = self.addresses.limiter
        if not await limiter.hit(self.per_link, LINK, key):
            return await refusal(limiter, self.per_link, LINK, key)
        return None
