"""A session's name: the browser and system it signed in from, and when."""

from datetime import UTC, datetime

import pytest

from domain.devices import session_name

AT = datetime(2026, 12, 5, 14, 2, tzinfo=UTC)
IPAD = (
    "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.5 Mobile/15E148 Safari/604.1"
)


@pytest.mark.parametrize(
    ("user_agent", "name"),
    [
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
            "Firefox on Windows, 5 Dec 14:02",
        ),
        (IPAD, "Mobile Safari on iOS, 5 Dec 14:02"),
        ("python-httpx/0.28.1", "Signed in, 5 Dec 14:02"),
        (None, "Signed in, 5 Dec 14:02"),
        ("x" * 100_000, "Signed in, 5 Dec 14:02"),
    ],
)
def test_a_session_is_named_by_browser_system_and_time(user_agent: str | None, name: str) -> None:
    assert session_name(user_agent, AT) == name
