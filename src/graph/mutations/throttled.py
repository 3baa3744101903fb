"""A password check under the sign-in throttle (api/throttle.py): refused with 429 and
RATE_LIMITED past a limit."""

from collections.abc import Awaitable, Callable
from typing import TypeVar

from api.errors import rate_limited
from api.throttle import Namespace, Refusal
from domain.errors import DomainError
from graph.context import Info

T = TypeVar("T")


async def throttled(
    info: Info, namespace: Namespace, account: str, check: Callable[[], Awaitable[T]]
) -> T:
    """Run a password `check` from the caller's address on `account`: refused (429) when a
    limit is reached; its failure slots reserved first, and given back unless the check
    fails with a DomainError (a wrong password) or never ran."""
    throttle = info.context.services.throttle
    reservation = await throttle.reserve(namespace, info.context.client, account)
    if isinstance(reservation, Refusal):
        raise rate_limited(info.context.response, reservation.retry_after)
    try:
        result = await check()
    except DomainError:
        raise
    except BaseException:
        await throttle.release(reservation)
        raise
    await throttle.release(reservation)
    return result
