"""What every outbox that follows the event log shares (webhooks, mail): a message's
status, and when a failed one is tried again.

Each outbox reads the log by its own cursor, makes one message per event and recipient,
and sends each at least once: a failed attempt is tried again after the next delay of its
schedule, stretched at random; after the last, the message is dead and left for admins.
"""

import random
import re
from collections.abc import Sequence
from enum import StrEnum

# Retry delays after the first attempt: about 10 s, 1 min, 10 min, 1 h, 6 h, 24 h.
DEFAULT_RETRIES = "10s,1m,10m,1h,6h,24h"
# A delay is stretched by up to this fraction at random, so receivers that failed together
# are not all tried again in the same second.
JITTER = 0.2
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)?")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, None: 1.0}


class DeliveryStatus(StrEnum):
    PENDING = "PENDING"  # waiting for its first attempt or its next retry
    DELIVERED = "DELIVERED"  # the receiver took it
    DEAD = "DEAD"  # every attempt failed (or the receiver refused it for good): left behind


def retry_schedule(value: str) -> tuple[float, ...]:
    """Seconds to wait before each retry, from a list like "10s,1m,10m,1h"."""
    delays = []
    for part in value.split(","):
        found = _DURATION.fullmatch(part.strip())
        if found is None:
            raise ValueError(
                f"{part.strip()!r} is not a delay: write a number with ms, s, m, h or d, "
                "as in 10s,1m,10m,1h,6h,24h"
            )
        delays.append(float(found.group(1)) * _UNIT_SECONDS[found.group(2)])
    return tuple(delays)


def retry_in(schedule: Sequence[float], attempts: int, rng: random.Random) -> float | None:
    """Seconds until the next attempt after `attempts` failed ones; None: no more."""
    if attempts > len(schedule):
        return None
    return schedule[attempts - 1] * (1 + JITTER * rng.random())


def after_attempt(
    went_through: bool,
    *,
    final: bool,
    schedule: Sequence[float],
    attempts: int,
    rng: random.Random,
) -> tuple[DeliveryStatus, float | None]:
    """A message's status after its `attempts`-th attempt, and the seconds until the next
    one (None unless PENDING): `final` failures (nothing to send, refused for good) are
    not tried again."""
    if went_through:
        return DeliveryStatus.DELIVERED, None
    delay = None if final else retry_in(schedule, attempts, rng)
    return (DeliveryStatus.DEAD, None) if delay is None else (DeliveryStatus.PENDING, delay)
