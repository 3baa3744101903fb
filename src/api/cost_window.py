"""What each token may spend on GraphQL requests: the cost points (graph/cost.py) of the
requests it sends over HTTP, counted in a fixed window with the `limits` library, as
GitHub's and Shopify's APIs give each caller a budget of points. A request the window
cannot pay for is refused whole (429 with Retry-After) and takes nothing from it.

In each process's memory: no database work per request, so behind N processes a token
may spend up to N windows' worth. A window is fixed, not moving, so that what remains and
when it renews are two plain numbers a client can plan with.
"""

import math
import time
from dataclasses import dataclass

from limits import RateLimitItem, parse
from limits.aio.storage import MemoryStorage
from limits.aio.strategies import FixedWindowRateLimiter

# The default of PRESSROOM_COST_PER_TOKEN: some 37 dashboard pages of 50 orders a minute.
COST_PER_TOKEN = "1000000/minute"


@dataclass(frozen=True)
class Window:
    """A token's window after a request: its points, those left, and when it renews."""

    limit: int
    remaining: int
    reset: int  # seconds since the epoch, rounded up

    @property
    def retry_after(self) -> int:
        """Whole seconds until the window renews (at least 1)."""
        return max(1, math.ceil(self.reset - time.time()))


class CostWindow:
    def __init__(self, per_token: str = COST_PER_TOKEN) -> None:
        self.item: RateLimitItem = parse(per_token)
        self.limiter = FixedWindowRateLimiter(MemoryStorage())

    async def spend(self, token_id: int, cost: int) -> bool:
        """Take `cost` points from the token's window; False, taking none, when fewer
        remain."""
        key = str(token_id)
        return await self.limiter.test(self.item, key, cost=cost) and await self.limiter.hit(
            self.item, key, cost=cost
        )

    async def window(self, token_id: int) -> Window:
        stats = await self.limiter.get_window_stats(self.item, str(token_id))
        return Window(self.item.amount, max(0, stats.remaining), math.ceil(stats.reset_time))
