"""Where a webhook may send: its URL checked by the rules (domain/webhooks.py) against the
addresses its host resolves to now. Checked when an admin sets the URL, and again for each
batch of attempts (a name can come to point elsewhere); an attempt then connects to the
very address checked (`Reached.request_url`), so a second lookup cannot lead it elsewhere."""

import asyncio
import contextlib
import ipaddress
import socket
from dataclasses import dataclass

from yarl import URL

from domain.validation import invalid
from domain.webhooks import WRONG_ADDRESS, Policy, Target, check_addresses, target


@dataclass(frozen=True)
class Reached:
    target: Target
    address: str

    @property
    def url(self) -> str:
        return self.target.url

    def request_url(self) -> URL:
        """The URL with the checked address in place of the host name."""
        return URL(self.target.url).with_host(self.address)

    def host_header(self) -> str:
        """The Host header the receiver expects (its name, and the port if not the
        scheme's own)."""
        return URL(self.target.url).host_port_subcomponent or self.target.host


def written(policy: Policy, url: str) -> Target:
    """The URL's own form checked, before its host is looked up: a form's other fields are
    checked with it (validation.every_problem), the lookup only after."""
    found = target(url, https_only=policy.https_only and not policy.allow_private)
    try:
        URL(found.url)
    except ValueError:
        raise invalid(WRONG_ADDRESS, "url") from None
    return found


async def reachable(policy: Policy, url: str) -> Reached:
    found = written(policy, url)
    addresses = await _addresses(found.host, found.port)
    return Reached(found, check_addresses(found, addresses, allow_private=policy.allow_private))


async def _addresses(host: str, port: int) -> list[str]:
    """The addresses a host stands for: itself when it is one (no lookup)."""
    with contextlib.suppress(ValueError):
        return [str(ipaddress.ip_address(host))]
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        raise invalid(f"The web address's host {host} could not be found.", "url") from None
    return [str(info[4][0]) for info in infos]
