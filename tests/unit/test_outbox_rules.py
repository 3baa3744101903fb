"""The outboxes' shared rules: retry schedules and what an attempt leaves a message as."""

import random

import pytest

from domain import outbox
from domain.outbox import DeliveryStatus


def test_retries_follow_the_schedule_stretched_by_jitter_then_stop() -> None:
    schedule = outbox.retry_schedule(outbox.DEFAULT_RETRIES)
    assert schedule == (10.0, 60.0, 600.0, 3600.0, 21600.0, 86400.0)
    rng = random.Random(7)
    for attempts, base in enumerate(schedule, start=1):
        delay = outbox.retry_in(schedule, attempts, rng)
        assert delay is not None and base <= delay <= base * (1 + outbox.JITTER)
    assert outbox.retry_in(schedule, len(schedule) + 1, rng) is None
    delays = {outbox.retry_in(schedule, 1, rng) for _ in range(20)}
    assert len(delays) > 1, "jitter spreads retries"


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("250ms, 2s,1m", (0.25, 2.0, 60.0)), ("1.5h,1d", (5400.0, 86400.0)), ("3", (3.0,))],
)
def test_a_retry_schedule_is_read_from_a_list_of_delays(
    text: str, seconds: tuple[float, ...]
) -> None:
    assert outbox.retry_schedule(text) == seconds


@pytest.mark.parametrize("text", ["", "10s,,1m", "ten", "1w", "-1s"])
def test_a_retry_schedule_that_is_not_one_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="is not a delay"):
        outbox.retry_schedule(text)


def test_a_message_goes_through_or_waits_its_retry_or_dies_after_the_last() -> None:
    schedule = (1.0, 2.0)
    rng = random.Random(3)
    done = outbox.after_attempt(True, final=False, schedule=schedule, attempts=1, rng=rng)
    assert done == (DeliveryStatus.DELIVERED, None)
    status, delay = outbox.after_attempt(False, final=False, schedule=schedule, attempts=2, rng=rng)
    assert status is DeliveryStatus.PENDING and delay is not None and 2.0 <= delay <= 2.4
    last = outbox.after_attempt(False, final=False, schedule=schedule, attempts=3, rng=rng)
    assert last == (DeliveryStatus.DEAD, None)
    refused = outbox.after_attempt(False, final=True, schedule=schedule, attempts=1, rng=rng)
    assert refused == (DeliveryStatus.DEAD, None)
