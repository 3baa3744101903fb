"""What each token may spend on GraphQL requests: the cost points (graph/cost.py) of the
requests it sends over HTTP, counted in a fixed window, as GitHub's and Shopify's APIs give
each caller a budget of points. A request the window cannot pay for is refused whole (429
with Retry-After) and takes nothing from it.

In each process's memory: no database work per request, so behind N processes a token
may spend up to N windows' worth. A window is fixed, not moving, so that what remains and
when it renews are two plain numbers a client can plan with. The rate is a `limits` rate
("1000000/minute") like the other limits, but counted here: `limits`' fixed-window
strategy took 6 to 8 times as long a request (key strings, locks, expiry timers) for what
is two numbers a token (`python -m bench.cost_window`).
"""

import math
import time
from dataclasses import dataclass

from limits import parse

# The default of PRESSROOM_COST_PER_TOKEN: some 37 dashboard pages of 50 orders a minute.
COST_PER_TOKEN = "1000000/minute"
# Tokens whose windows are kept before the ended ones are let go.
KEPT = 10_000


@dataclass(frozen=True)
class Window:
    """A token's window: its points, those left, and when it renews."""

    limit: int
    remaining: int
    reset: int  # seconds since the epoch, rounded up

    @property
    def retry_after(self) -> int:
        """Whole seconds until the window renews (at least 1)."""
        return max(1, math.ceil(self.reset - time.time()))


class CostWindow:
    def __init__(self, per_token: str = COST_PER_TOKEN) -> None:
        rate = parse(per_token)
        self.limit: int = rate.amount
        self.seconds: int = rate.get_expiry()
        # Per token: when its window started, and what it spent since.
        self._spent: dict[int, tuple[float, int]] = {}

    def spend(self, token_id: int, cost: int) -> bool:
        """Take `cost` points from the token's window; False, taking none, when fewer
        remain."""
        started, spent = self._current(token_id)
        if spent + cost > self.limit:
            return False
        if len(self._spent) >= KEPT and token_id not in self._spent:
            self._let_go()
        self._spent[token_id] = (started, spent + cost)
        return True

    def window(self, token_id: int) -> Window:
        started, spent = self._current(token_id)
        return Window(self.limit, self.limit - spent, math.ceil(started + self.seconds))

    def _current(self, token_id: int) -> tuple[float, int]:
        now = time.time()
        started, spent = self._spent.get(token_id, (now, 0))
        return (started, spent) if now < started + self.seconds else (now, 0)

    def _let_go(self) -> None:
        ended = time.time() - self.seconds
        self._spent = {k: v for k, v in self._spent.items() if v[0] > ended}
