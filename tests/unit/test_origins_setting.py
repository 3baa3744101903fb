"""PRESSROOM_CORS_ORIGINS and PRESSROOM_WEBSOCKET_ORIGINS take origins as a browser sends
them (a scheme, a host, perhaps a port) or `*`: anything else stops the process at start,
naming the entry, where it was once kept and never matched any browser's Origin."""

import pytest
from pydantic import ValidationError

from pressroom.settings import Settings

GOOD = [
    "",
    "*",
    "https://desk.shop.test",
    "https://desk.shop.test/",
    "http://localhost:5173",
    "http://127.0.0.1:8000",
    "http://[::1]:8000",
    "https://a.shop.test, http://b.shop.test:81",
]
BAD = [
    ("desk.shop.test", "desk.shop.test"),
    ("https://desk.shop.test/app", "https://desk.shop.test/app"),
    ("ftp://files.shop.test", "ftp://files.shop.test"),
    ("https://a.shop.test, b.shop.test", "b.shop.test"),
    ("https://desk.shop.test?x=1", "https://desk.shop.test?x=1"),
    ("https://", "https:"),  # its slashes taken as a trailing one
]


@pytest.mark.parametrize("name", ["cors_origins", "websocket_origins"])
def test_origins_are_taken_as_a_browser_sends_them(name: str) -> None:
    kept = [getattr(Settings(**{name: value}), name) for value in GOOD]
    assert kept == GOOD


@pytest.mark.parametrize("name", ["cors_origins", "websocket_origins"])
@pytest.mark.parametrize(("value", "named"), BAD)
def test_anything_else_is_refused_naming_the_entry(name: str, value: str, named: str) -> None:
    with pytest.raises(ValidationError) as refused:
        Settings(**{name: value})
    assert f"{named!r} is not an origin" in str(refused.value)
