"""What a sign-in is called in a person's list of sessions: the browser and system it came
from and when ("Firefox on Windows, 5 Dec 14:02"), so that one left signed in elsewhere is
told apart from this one."""

from datetime import datetime

from ua_parser import parse

# A User-Agent header longer than this is not a browser's; its regexes need not read it all.
MAX_USER_AGENT = 512


def session_name(user_agent: str | None, at: datetime) -> str:
    """`at` in the shop's time zone."""
    found = parse((user_agent or "")[:MAX_USER_AGENT])
    browser = found.user_agent.family if found.user_agent else None
    system = found.os.family if found.os else None
    where = " on ".join(part for part in (browser, system) if part) or "Signed in"
    return f"{where}, {at.day} {at:%b %H:%M}"
