"""Webhooks' rules in the domain: where a webhook may send, how an answer is judged (when
a failed delivery is tried again: test_outbox_rules.py)."""

from types import SimpleNamespace

import aiohttp
import pytest

from domain import webhooks
from domain.errors import DomainError
from domain.webhooks import Verdict
from workers.webhook_targets import Reached, reachable
from workers.webhooks import unreached


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("127.0.0.1", "a loopback address"),
        ("::1", "a loopback address"),
        ("::ffff:127.0.0.1", "a loopback address"),
        ("169.254.169.254", "a link-local address"),
        ("fe80::1%eth0", "a link-local address"),
        ("10.1.2.3", "a private address"),
        ("172.16.0.9", "a private address"),
        ("192.168.1.20", "a private address"),
        ("fd00::7", "a private address"),
        ("0.0.0.0", "a private address"),
        ("100.64.0.1", "an address that is not on the public internet"),
        ("224.0.0.1", "an address that is not on the public internet"),
        ("64:ff9b::7f00:1", "a loopback address"),
        ("2002:7f00:1::1", "a loopback address"),
        ("::127.0.0.1", "a loopback address"),
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "a private address"),
        ("64:ff9b::a00:5", "a private address"),
        ("93.184.215.14", None),
        ("2606:4700::6810:84e5", None),
    ],
)
def test_only_public_addresses_are_reachable(address: str, why: str | None) -> None:
    assert webhooks.address_refused(address) == why


def test_a_host_with_any_refused_address_is_refused_unless_private_ones_are_allowed() -> None:
    target = webhooks.target("https://hooks.example.com/in", https_only=True)
    assert (target.host, target.port) == ("hooks.example.com", 443)
    with pytest.raises(DomainError) as refused:
        webhooks.check_addresses(target, ["93.184.215.14", "10.0.0.5"], allow_private=False)
    assert refused.value.message == (
        "The web address's host hooks.example.com is a private address (10.0.0.5); webhooks "
        "only reach the public internet here."
    )
    webhooks.check_addresses(target, ["10.0.0.5"], allow_private=True)
    webhooks.check_addresses(target, ["93.184.215.14"], allow_private=False)


@pytest.mark.parametrize(
    ("url", "https_only", "says"),
    [
        ("http://example.com/x", True, "Use an https address: a webhook's events leave the shop."),
        (
            "ftp://example.com/x",
            False,
            "Give a web address such as https://example.com/hooks.",
        ),
        ("https:///nohost", False, "Give a web address such as https://example.com/hooks."),
        (
            "https://a:b@example.com/",
            False,
            "Take the user name and password out of the web address.",
        ),
        (
            "https://example.com:99999/",
            False,
            "The web address is not valid: check its host and port.",
        ),
        (
            "https://example.com/" + "a" * 2000,
            False,
            "Shorten the web address to at most 2000 characters.",
        ),
    ],
)
def test_a_url_a_webhook_cannot_use_is_refused_in_words(
    url: str, https_only: bool, says: str
) -> None:
    with pytest.raises(DomainError) as refused:
        webhooks.target(url, https_only=https_only)
    assert (refused.value.field, refused.value.message) == ("url", says)


def test_plain_http_is_allowed_where_https_is_not_required() -> None:
    assert webhooks.target(" http://10.0.0.5:8080/in ", https_only=False).port == 8080


@pytest.mark.parametrize(
    ("status", "verdict"),
    [(200, Verdict.DELIVERED), (204, Verdict.DELIVERED), (299, Verdict.DELIVERED),
     (301, Verdict.FAILED), (400, Verdict.FAILED), (404, Verdict.FAILED),
     (410, Verdict.GONE), (429, Verdict.FAILED), (500, Verdict.FAILED), (None, Verdict.FAILED)],
)  # fmt: skip
def test_2xx_is_delivered_410_is_gone_anything_else_fails(
    status: int | None, verdict: Verdict
) -> None:
    assert webhooks.verdict(status) is verdict


def test_a_secret_is_a_standard_webhooks_secret_and_never_the_same() -> None:
    first, second = webhooks.new_secret(), webhooks.new_secret()
    assert first.startswith("whsec_") and len(first) == len("whsec_") + 32
    assert first != second


@pytest.mark.parametrize(
    ("url", "says"),
    [
        (
            "http://127.0.0.1:8080/in",
            "The web address's host 127.0.0.1 is a loopback address (127.0.0.1)",
        ),
        ("http://localhost/in", "The web address's host localhost is a loopback address"),
        ("http://[::1]/in", "The web address's host ::1 is a loopback address (::1)"),
        (
            "http://169.254.169.254/latest",
            "The web address's host 169.254.169.254 is a link-local address",
        ),
        ("http://10.0.0.7/in", "The web address's host 10.0.0.7 is a private address (10.0.0.7)"),
    ],
)
async def test_a_url_inside_the_shop_is_refused_unless_private_addresses_are_allowed(
    url: str, says: str
) -> None:
    with pytest.raises(DomainError) as refused:
        await reachable(webhooks.Policy(allow_private=False), url)
    assert refused.value.message.startswith(says)
    allowed = await reachable(webhooks.Policy(allow_private=True, https_only=True), url)
    assert allowed.url == url


async def test_production_wants_https_unless_private_addresses_are_allowed() -> None:
    with pytest.raises(DomainError) as refused:
        await reachable(webhooks.Policy(https_only=True), "http://93.184.215.14/in")
    assert refused.value.message == "Use an https address: a webhook's events leave the shop."
    found = await reachable(webhooks.Policy(https_only=False), "http://93.184.215.14/in")
    assert found.target.port == 80


@pytest.mark.parametrize(
    ("url", "address", "request_url", "host"),
    [
        ("https://hooks.example.com/in?x=1", "93.184.215.14", "https://93.184.215.14/in?x=1",
         "hooks.example.com"),
        ("http://hooks.example.com:8080/in", "2606:2800::1", "http://[2606:2800::1]:8080/in",
         "hooks.example.com:8080"),
        ("http://hooks.example.com:80/in", "93.184.215.14", "http://93.184.215.14/in",
         "hooks.example.com"),
    ],
)  # fmt: skip
def test_an_attempt_goes_to_the_checked_address_with_the_host_it_names(
    url: str, address: str, request_url: str, host: str
) -> None:
    found = Reached(webhooks.target(url, https_only=False), address)
    assert str(found.request_url()) == request_url
    assert found.host_header() == host


async def test_a_host_that_cannot_be_found_is_said_in_words_not_the_lookups_errno() -> None:
    # .invalid never resolves (RFC 6761): the lookup fails without reaching a network.
    with pytest.raises(DomainError) as refused:
        await reachable(webhooks.Policy(allow_private=False), "https://nowhere.invalid/in")
    assert (refused.value.field, refused.value.message) == (
        "url",
        "The web address's host nowhere.invalid could not be found.",
    )


_KEY = SimpleNamespace(host="hooks.example.com", port=443, ssl=True)


@pytest.mark.parametrize(
    ("failed", "why"),
    [
        (
            aiohttp.ClientConnectorError(_KEY, ConnectionRefusedError(111, "Connection refused")),  # type: ignore[arg-type]
            "nothing answered at its address",
        ),
        (aiohttp.ServerDisconnectedError(), "it closed the connection without an answer"),
        (aiohttp.ClientPayloadError("cut short"), "its answer broke off"),
        (aiohttp.InvalidURL("x"), "the connection failed"),
    ],
)
def test_a_receiver_out_of_reach_is_said_in_words_not_the_exceptions_text(
    failed: aiohttp.ClientError, why: str
) -> None:
    assert unreached(failed) == f"Could not reach the receiver: {why}"
