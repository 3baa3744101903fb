"""Sign-in throttling, with the `limits` library (a moving window in this process).

Per address: every sign-in attempt counts, so the argon2 work one anonymous caller can
cause is bounded. Per account: only failed attempts count, and for a while only, so an
attacker's wrong passwords lock the real user out for minutes at most, never for good.
A refused attempt is HTTP 429 with Retry-After and a top-level RATE_LIMITED error.
"""

import time
from dataclasses import dataclass

from limits import RateLimitItem, parse
from limits.aio.storage import MemoryStorage
from limits.aio.strategies import MovingWindowRateLimiter

PER_ADDRESS = "20/minute"  # the defaults of PRESSROOM_SIGNIN_PER_ADDRESS and
FAILURES_PER_ACCOUNT = "10/5 minutes"  # PRESSROOM_SIGNIN_FAILURES_PER_ACCOUNT


@dataclass(frozen=True)
class Refusal:
    retry_after: int  # seconds


class SignInThrottle:
    def __init__(self, per_address: str = PER_ADDRESS, per_account: str = FAILURES_PER_ACCOUNT):
        self.limiter = MovingWindowRateLimiter(MemoryStorage())
        self.per_address: RateLimitItem = parse(per_address)
        self.per_account: RateLimitItem = parse(per_account)

    async def attempt(self, address: str, account: str) -> Refusal | None:
        """Count an attempt from `address`; refuse it if either limit is reached."""
        account = account.lower()
        if not await self.limiter.test(self.per_account, "account", account):
            return await self._refusal(self.per_account, "account", account)
        if not await self.limiter.hit(self.per_address, "address", address):
            return await self._refusal(self.per_address, "address", address)
        return None

    async def failed(self, account: str) -> None:
        await self.limiter.hit(self.per_account, "account", account.lower())

    async def _refusal(self, item: RateLimitItem, *keys: str) -> Refusal:
        stats = await self.limiter.get_window_stats(item, *keys)
        return Refusal(retry_after=max(1, int(stats.reset_time - time.time()) + 1))
