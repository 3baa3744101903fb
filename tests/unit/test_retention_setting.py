"""PRESSROOM_EVENT_RETENTION_DAYS: whole days, at least one, 90 unless set."""

import pytest
from pydantic import ValidationError

from pressroom.settings import Settings


@pytest.mark.parametrize(
    ("given", "days"),
    [(None, 90), ("1", 1), ("365", 365), ("0", None), ("-5", None), ("1.5", None)],
)
def test_the_retention_is_a_positive_number_of_days(
    monkeypatch: pytest.MonkeyPatch, given: str | None, days: int | None
) -> None:
    monkeypatch.delenv("PRESSROOM_EVENT_RETENTION_DAYS", raising=False)
    if given is not None:
        monkeypatch.setenv("PRESSROOM_EVENT_RETENTION_DAYS", given)
    if days is None:
        with pytest.raises(ValidationError, match="event_retention_days"):
            Settings()
    else:
        assert Settings().event_retention_days == days
