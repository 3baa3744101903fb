"""Webhooks' rules: which events a webhook may follow, where it may send them, how a
delivery's answer is judged (when a failed one is tried again: domain/outbox.py).

A webhook follows the event log by its own cursor and sends each event of its kinds, in
commit order, signed per Standard Webhooks. Its head delivery blocks the ones behind it
until it succeeds or dies (after the last retry), so a receiver sees its events in order.
"""

import base64
import ipaddress
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from urllib.parse import urlsplit

from domain.enums import EventType
from domain.outbox import DEFAULT_RETRIES, retry_schedule
from domain.validation import invalid, storable, text

MAX_URL = 2000
MAX_DESCRIPTION = 500
# Access changes are about sessions, and a webhook's stop about the webhooks, not the
# shop's work: they are not sent out.
NOT_SENT = frozenset(
    {EventType.TOKEN_REVOKED, EventType.USER_ACCESS_CHANGED, EventType.WEBHOOK_DISABLED}
)
SENDABLE = tuple(kind for kind in EventType if kind not in NOT_SENT)
# The Standard Webhooks secret: "whsec_" and 24 random bytes in base64.
SECRET_PREFIX = "whsec_"
# Why a webhook stopped, for admins.
TURNED_OFF = "Turned off by an admin."
GONE = "The receiver answered 410 Gone: it wants no more events."
# Days of failing without a break after which a webhook is turned off
# (PRESSROOM_WEBHOOK_DISABLE_AFTER_DAYS): its place in the log would hold the retention back.
DISABLE_AFTER_DAYS = 3.0


class Verdict(StrEnum):
    DELIVERED = "DELIVERED"
    FAILED = "FAILED"  # tried again later, or dead after the last retry
    GONE = "GONE"  # 410: the receiver wants no more; the webhook is disabled


@dataclass(frozen=True)
class Policy:
    """The shop's webhook settings (PRESSROOM_WEBHOOK_*)."""

    # PRESSROOM_WEBHOOK_RETRIES
    retries: tuple[float, ...] = field(default_factory=lambda: retry_schedule(DEFAULT_RETRIES))
    timeout_seconds: float = 10.0
    # Loopback, link-local and private addresses reachable (and plain http everywhere).
    allow_private: bool = False
    # Only https (in production, unless private addresses are allowed).
    https_only: bool = False
    lease_seconds: float = 60.0
    poll_seconds: float = 1.0
    disable_after_days: float = DISABLE_AFTER_DAYS


def verdict(status: int | None) -> Verdict:
    """A response's status (None: no answer, a timeout or a refused connection)."""
    if status is not None and 200 <= status < 300:
        return Verdict.DELIVERED
    if status == 410:
        return Verdict.GONE
    return Verdict.FAILED


def failing_too_long(since: datetime, days: float) -> str:
    """Why a webhook that failed without a break for `days` was turned off."""
    return (
        f"Every attempt failed for {days:g} days (since {since.astimezone(UTC):%Y-%m-%d %H:%M} "
        "UTC): turned off so that the event log's retention moves on. Turn it on again once "
        "its receiver answers; it goes on with what the log still holds."
    )


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode()


def message_id(event_id: int) -> str:
    """The `webhook-id` of an event: the same for every attempt and every webhook, so a
    receiver drops what it has already seen."""
    return f"evt_{event_id}"


def description(value: str | None) -> str | None:
    if value is None or not value.strip():
        return None
    return text(value, "description", max_len=MAX_DESCRIPTION)


def kinds(values: Iterable[EventType]) -> list[EventType]:
    chosen = list(dict.fromkeys(values))
    if not chosen:
        raise invalid("Choose at least one kind of event to send.", "eventKinds")
    refused = [k.value for k in chosen if k in NOT_SENT]
    if refused:
        raise invalid(
            f"{', '.join(refused)} cannot be sent to a webhook: they are about sign-ins, "
            "not the shop's work.",
            "eventKinds",
        )
    return chosen


@dataclass(frozen=True)
class Target:
    """A webhook's URL, taken apart: where it sends, before its host is looked up."""

    url: str
    scheme: str
    host: str
    port: int


# A port out of range, a bracket left open: what urlsplit refuses, said once for a person.
WRONG_ADDRESS = "The web address is not valid: check its host and port."


def target(url: str, *, https_only: bool) -> Target:
    """A URL a webhook may send to: http(s) with a host; only https when `https_only` (in
    production, unless PRESSROOM_WEBHOOK_ALLOW_PRIVATE allows a shop's own network)."""
    storable(url, "url")
    url = url.strip()
    if len(url) > MAX_URL:
        raise invalid(f"Shorten the web address to at most {MAX_URL} characters.", "url")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise invalid(WRONG_ADDRESS, "url") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise invalid("Give a web address such as https://example.com/hooks.", "url")
    if parts.scheme == "http" and https_only:
        raise invalid("Use an https address: a webhook's events leave the shop.", "url")
    if parts.username or parts.password:
        raise invalid("Take the user name and password out of the web address.", "url")
    default = 443 if parts.scheme == "https" else 80
    return Target(url, parts.scheme, parts.hostname, port or default)


# IPv6 prefixes whose addresses carry an IPv4 address in their last 32 bits: NAT64's
# well-known prefix, and the deprecated IPv4-compatible form.
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")


def _carried(
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address,
) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """The IPv4 address an IPv6 one stands for (mapped, 6to4, Teredo's server, NAT64, the
    IPv4-compatible form), judged in its place; else the address itself."""
    if isinstance(ip, ipaddress.IPv4Address):
        return ip
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64 or (ip in _IPV4_COMPATIBLE and int(ip) > 1):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def address_refused(address: str) -> str | None:
    """Why a webhook may not send to this IP address, or None: loopback, link-local,
    private and other addresses that are not the public internet's (a webhook must not
    become a way into the shop's own network)."""
    ip = _carried(ipaddress.ip_address(address.split("%")[0]))
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_private:
        return "a private address"
    if not ip.is_global or ip.is_multicast:
        return "an address that is not on the public internet"
    return None


def check_addresses(t: Target, addresses: Iterable[str], *, allow_private: bool) -> str:
    """Refuse a target whose host resolves to any address it may not reach; else the
    address to connect to (the first: a request goes to the address checked, never to
    one a second lookup might give)."""
    found = list(addresses)
    if not found:
        raise invalid(f"The web address's host {t.host} has no address.", "url")
    if allow_private:
        return found[0]
    for address in found:
        why = address_refused(address)
        if why is not None:
            raise invalid(
                f"The web address's host {t.host} is {why} ({address}); webhooks only "
                "reach the public internet here.",
                "url",
            )
    return found[0]
