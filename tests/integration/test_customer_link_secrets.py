"""Guarding the customer links' secrets: every guessed secret is the same 404, an address
guessing secrets is held up whatever it asks next while another address is not, each link
has its own limit, and the access log never holds a secret. Every answer carries the
hardening headers."""

import secrets

import httpx
import pytest

from tests.support.client import Client, site
from tests.support.customer_page import hardened, link_for, make_link
from tests.support.servers import app_from, serving
from tests.support.shop import Shop


async def test_guessed_secrets_are_all_the_same_404(
    api: Client, shop: Shop, server: str, http: httpx.AsyncClient
) -> None:
    order = await shop.order(["print"])
    made = await make_link(api, shop, order)
    base = site(server)
    guesses = [
        secrets.token_urlsafe(32),
        made["secret"][:-1] + ("A" if made["secret"][-1] != "A" else "B"),
        made["secret"].upper(),
        made["secret"][:20],
        made["secret"] + "x",
        "' OR 1=1 --",
    ]
    answers = [await http.get(f"{base}/c/{g}") for g in guesses]
    assert {a.status_code for a in answers} == {404}
    assert len({a.text for a in answers}) == 1, "no guess is told apart from another"
    hardened(answers[0])
    assert "This link does not work" in answers[0].text


async def test_an_address_guessing_secrets_waits_whatever_it_asks(
    database_url: str, shop: Shop
) -> None:
    link = await link_for(shop, await shop.order(["print"]))
    limits = {"customer_page_failures_per_address": "3/minute"}
    async with (
        app_from(database_url, "203.0.113.7", **limits) as guesser,
        app_from(database_url, "2001:db8::1", **limits) as customer,
    ):
        guesses = [(await guesser.get(f"/c/{secrets.token_urlsafe(32)}")).status_code
                   for _ in range(3)]  # fmt: skip
        refused = await guesser.get(link)
        answered = await customer.get(link)
    assert guesses == [404] * 3
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    hardened(refused)
    assert "Too many requests" in refused.text
    assert answered.status_code == 200, "another address is not held up"


async def test_each_link_has_its_own_limit(database_url: str, shop: Shop) -> None:
    order = await shop.order(["print"])
    busy, quiet = await link_for(shop, order), await link_for(shop, order)
    async with app_from(
        database_url, "198.51.100.9", customer_page_requests_per_link="3/minute"
    ) as client:
        statuses = [(await client.get(busy + path)).status_code
                    for path in ("", "/state", "")]  # fmt: skip
        over = await client.get(busy + "/state")
        other = await client.get(quiet)
    assert statuses == [200, 200, 200]
    assert over.status_code == 429 and "retry-after" in over.headers
    assert other.status_code == 200


@pytest.mark.e2e
async def test_the_access_log_never_holds_a_secret(database_url: str, shop: Shop) -> None:
    link = await link_for(shop, await shop.order(["print"]))
    secret = link.removeprefix("/c/")
    with serving(None, database_url=database_url, settings={"PRESSROOM_ACCESS_LOG": "true"}) as (
        base,
        lines,
    ):
        async with httpx.AsyncClient() as client:
            for path in (link, link + "/state", "/c/" + secrets.token_urlsafe(32), "/healthz"):
                await client.get(base + path)
    logged = "".join(lines)
    assert "/healthz" in logged, "the access log is on"
    assert secret not in logged
    assert logged.count("/c/***") == 3
