"""What a request cost: a token's requests over HTTP are paid for from its window of cost
points; every answer to a token says what is left in X-RateLimit-* headers, and
`extensions.cost` when the request asks for it; a request the window cannot pay for is
429 with Retry-After and takes nothing; anonymous callers have no window."""

import time
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import httpx
import pytest

from graph.cost import BUDGET
from pressroom.settings import Settings
from tests.support.database import counting
from tests.support.servers import served
from tests.support.shop import Shop

LIMIT = 100
ME = "{ me { id name } }"  # costs 3
ORDERS = "{ workOrders(first: 3) { edges { node { id } } } }"  # costs 10
COSTLY = "{ workOrders(first: 30) { edges { node { id } } } }"  # costs 91


@pytest.fixture
async def budgeted(database_url: str) -> AsyncIterator[tuple[str, Any]]:
    """A server of its own whose tokens may spend LIMIT points an hour; it reads every
    answer anew (a test here counts an answer's statements)."""
    settings = Settings(cost_per_token=f"{LIMIT}/hour", read_cache=False)
    async with served(database_url, settings) as server:
        yield server


async def ask(
    http: httpx.AsyncClient, url: str, query: str, token: str | None, *, cost: bool = True
) -> httpx.Response:
    body: dict[str, Any] = {"query": query}
    if cost:
        body["extensions"] = {"cost": True}
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return await http.post(url, json=body, headers=headers)


def window(response: httpx.Response) -> tuple[int, int, int]:
    headers = response.headers
    return (
        int(headers["x-ratelimit-limit"]),
        int(headers["x-ratelimit-remaining"]),
        int(headers["x-ratelimit-reset"]),
    )


async def test_the_numbers_add_up_across_requests(
    budgeted: tuple[str, Any], http: httpx.AsyncClient, shop: Shop
) -> None:
    url, _ = budgeted
    token = shop.tokens["ada"]
    first = await ask(http, url, ME, token)
    assert first.status_code == 200, first.text
    cost = first.json()["extensions"]["cost"]
    assert {k: v for k, v in cost.items() if k != "resetAt"} == {
        "requested": 3,
        "budget": BUDGET,
        "limit": LIMIT,
        "remaining": LIMIT - 3,
    }
    limit, remaining, reset = window(first)
    assert (limit, remaining) == (LIMIT, LIMIT - 3)
    assert datetime.fromisoformat(cost["resetAt"]).timestamp() == reset
    assert time.time() < reset <= time.time() + 3601

    second = await ask(http, url, ORDERS, token)
    assert second.json()["extensions"]["cost"]["requested"] == 10
    assert second.json()["extensions"]["cost"]["remaining"] == LIMIT - 3 - 10
    assert window(second) == (LIMIT, LIMIT - 13, reset)

    # Not asked: no extensions, but the headers all the same, and the request is paid for.
    quiet = await ask(http, url, ME, token, cost=False)
    assert "extensions" not in quiet.json()
    assert window(quiet)[1] == LIMIT - 16

    # Each token has a window of its own.
    other = await ask(http, url, ME, shop.tokens["pat"])
    assert window(other)[1] == LIMIT - 3


async def test_a_request_the_window_cannot_pay_for_is_429_and_takes_nothing(
    budgeted: tuple[str, Any], http: httpx.AsyncClient, shop: Shop
) -> None:
    url, app = budgeted
    token = shop.tokens["ada"]
    assert window(await ask(http, url, ORDERS, token))[1] == LIMIT - 10
    with counting(app.state.services.engine) as statements:
        refused = await ask(http, url, COSTLY, token)
    assert refused.status_code == 429, refused.text
    assert not statements, statements  # the token was cached: nothing of it ran
    answer = refused.json()
    assert answer["data"] is None
    [error] = answer["errors"]
    assert error["extensions"]["code"] == "RATE_LIMITED"
    assert "would cost 91, more than the 90 of this token's 100 left" in error["message"]
    assert answer["extensions"]["cost"]["requested"] == 91
    assert answer["extensions"]["cost"]["remaining"] == LIMIT - 10
    _, remaining, reset = window(refused)
    assert remaining == LIMIT - 10
    assert 0 < int(refused.headers["retry-after"]) <= reset - time.time() + 1

    # What is left still pays for a smaller request.
    answered = await ask(http, url, ME, token)
    assert answered.status_code == 200 and answered.json()["data"]["me"]["name"] == "Ada"
    assert window(answered)[1] == LIMIT - 13


async def test_anonymous_callers_have_no_window(
    budgeted: tuple[str, Any], http: httpx.AsyncClient
) -> None:
    url, _ = budgeted
    for _ in range(2):
        answer = await ask(http, url, COSTLY + " # anonymous", None)
        assert answer.status_code == 200, answer.text
        assert "extensions" not in answer.json()
        assert not any(h.startswith("x-ratelimit") for h in answer.headers)


async def test_asking_for_the_cost_runs_no_statement_more(
    budgeted: tuple[str, Any], http: httpx.AsyncClient, shop: Shop
) -> None:
    url, app = budgeted
    token = shop.tokens["ada"]
    await ask(http, url, ME, token, cost=False)  # the token is now cached
    ran: dict[bool, list[str]] = {}
    for cost in (False, True):
        with counting(app.state.services.engine) as statements:
            answer = await ask(http, url, ME, token, cost=cost)
        assert answer.status_code == 200, answer.text
        ran[cost] = statements
    assert ran[True] == ran[False]
