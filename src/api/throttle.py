"""Password throttling with the `limits` library (moving windows), counted in PostgreSQL by
the server (db/rate_limits.py) so that every process on the database shares the counters.

Per address (IPv6 clients per /64, which one subscriber usually holds whole): failed
attempts only, so a shift of sixty people signing in from one workshop address is never
stopped; and a generous ceiling on all attempts, which bounds the argon2 work an address
can cause. Per account: failed attempts, keyed by the user's id once the email has been
looked up (every spelling of one address counts together), by the normalised email when
no user has it. For minutes at most: an attacker's wrong passwords never lock the real
user out for good. Signing in and re-checking the signed-in person's password
(changePassword, createApiToken) count apart, so failures at one never lock the other.
A refused attempt is HTTP 429 with Retry-After and a top-level RATE_LIMITED error
(graph/mutations/throttled.py), and so is one that finds the password workers' queue full
(db/credentials.py).

Failure slots are reserved before the password is checked and given back when it proves
right: counted after the check, 35 concurrent wrong guesses at one account were all
checked against a limit of 10.
"""

import ipaddress
import time
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, cast, runtime_checkable

from limits import RateLimitItem, parse
from limits.aio.storage import MemoryStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter

# The defaults of PRESSROOM_SIGNIN_FAILURES_PER_ADDRESS, PRESSROOM_SIGNIN_ATTEMPTS_PER_ADDRESS
# and PRESSROOM_SIGNIN_FAILURES_PER_ACCOUNT.
FAILURES_PER_ADDRESS = "30/minute"
ATTEMPTS_PER_ADDRESS = "300/minute"
FAILURES_PER_ACCOUNT = "10/5 minutes"


class Namespace(StrEnum):
    SIGN_IN = "signin"
    PASSWORD_CHECK = "password-check"


@dataclass(frozen=True)
class Refusal:
    retry_after: int  # seconds


async def refusal(limiter: MovingWindowRateLimiter, item: RateLimitItem, *keys: str) -> Refusal:
    """A refusal of `keys` at `item`'s limit, to retry once its window allows one more."""
    stats = await limiter.get_window_stats(item, *keys)
    return Refusal(retry_after=max(1, int(stats.reset_time - time.time()) + 1))


def address_key(address: str) -> str:
    """The address a limit counts: IPv6 addresses by their /64."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class AddressLimits:
    """A door's limits per client address (`address_key`), in this process's memory: a flood
    costs no database work. Requests that failed (`failed`), after which the address waits
    whatever it sends; and a ceiling on all requests. Keys are `{door}-failures` and
    `{door}-requests`; `limiter` may count the door's other limits too."""

    def __init__(self, door: str, failures: str, requests: str) -> None:
        self.limiter = MovingWindowRateLimiter(MemoryStorage())
        self._failures: RateLimitItem = parse(failures)
        self._requests: RateLimitItem = parse(requests)
        self._failures_key = f"{door}-failures"
        self._requests_key = f"{door}-requests"

    async def admit(self, address: str) -> Refusal | None:
        """Count a request from `address`; refuse it when a limit is reached."""
        where = address_key(address)
        if not await self.limiter.test(self._failures, self._failures_key, where):
            return await refusal(self.limiter, self._failures, self._failures_key, where)
        if not await self.limiter.hit(self._requests, self._requests_key, where):
            return await refusal(self.limiter, self._requests, self._requests_key, where)
        return None

    async def failed(self, address: str) -> None:
        """A request from `address` failed (it proved nothing)."""
        await self.limiter.hit(self._failures, self._failures_key, address_key(address))


def user_account(user_id: int) -> str:
    return f"user:{user_id}"


def email_account(email: str) -> str:
    """An account no user has (yet): the normalised email, so guesses at it still count."""
    return f"email:{email}"


@dataclass(frozen=True)
class Reservation:
    """Failure slots taken before a password is checked (storage keys, one hit each):
    given back when it proves right, kept as the failure when it does not."""

    keys: tuple[str, ...]


@runtime_checkable
class Counts(Protocol):
    """A `limits` storage that can also give one hit of a key back."""

    async def release_entry(self, key: str) -> None: ...


class MemoryCounts(MemoryStorage):
    """`limits`' in-process storage, for an app made without the database's counters."""

    async def release_entry(self, key: str) -> None:
        entries = self.events.get(key)
        if entries:
            entries.pop(0)  # the newest: limits adds them at the front


class PasswordThrottle:
    def __init__(
        self,
        storage: Storage | None = None,
        *,
        failures_per_address: str = FAILURES_PER_ADDRESS,
        attempts_per_address: str = ATTEMPTS_PER_ADDRESS,
        failures_per_account: str = FAILURES_PER_ACCOUNT,
    ) -> None:
        self.storage = storage if storage is not None else MemoryCounts()
        assert isinstance(self.storage, Counts), "the throttle gives reserved hits back"
        self.limiter = MovingWindowRateLimiter(self.storage)
        self.failures_per_address: RateLimitItem = parse(failures_per_address)
        self.attempts_per_address: RateLimitItem = parse(attempts_per_address)
        self.failures_per_account: RateLimitItem = parse(failures_per_account)

    async def reserve(
        self, namespace: Namespace, address: str, account: str
    ) -> Reservation | Refusal:
        """Count an attempt from `address` on `account` and take a failure slot of each
        limit before the password is checked, so concurrent attempts can never check
        more passwords than the limits allow; or refuse it. The address's limits come
        first: an address already refused takes nothing from the account's."""
        where = address_key(address)
        ceiling = (namespace, "address", where)
        if not await self.limiter.hit(self.attempts_per_address, *ceiling):
            return await refusal(self.limiter, self.attempts_per_address, *ceiling)
        held: list[str] = []
        failures = (
            (self.failures_per_address, namespace, "address-failures", where),
            (self.failures_per_account, namespace, "account", account),
        )
        for item, *keys in failures:
            if not await self.limiter.hit(item, *keys):
                await self.release(Reservation(tuple(held)))
                return await refusal(self.limiter, item, *keys)
            held.append(item.key_for(*keys))
        return Reservation(tuple(held))

    async def release(self, reservation: Reservation) -> None:
        for key in reservation.keys:
            await cast(Counts, self.storage).release_entry(key)
