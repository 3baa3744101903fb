"""Where a webhook may send: its URL checked by the rules (domain/webhooks.py) against the
addresses its host resolves to now. Checked when an admin sets the URL, and again before
every attempt (a name can come to point elsewhere)."""

import asyncio
import contextlib
import ipaddress
import socket

from domain.validation import invalid
from domain.webhooks import Policy, Target, check_addresses, target


async def reachable(policy: Policy, url: str) -> Target:
    found = target(url, https_only=policy.https_only and not policy.allow_private)
    check_addresses(
        found, await _addresses(found.host, found.port), allow_private=policy.allow_private
    )
    return found


async def _addresses(host: str, port: int) -> list[str]:
    """The addresses a host stands for: itself when it is one (no lookup)."""
    with contextlib.suppress(ValueError):
        return [str(ipaddress.ip_address(host))]
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as error:
        raise invalid(f"url's host {host} cannot be found ({error}).", "url") from None
    return [str(info[4][0]) for info in infos]
