"""Sign-in throttling: per account (failures only, for minutes) and per address (every
attempt, which bounds the argon2 work one caller causes), answered with 429 and
Retry-After; an attacker's wrong passwords do not lock the real user out for good."""

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest

from db import people
from db.engine import unit_of_work
from pressroom.app import create_app
from pressroom.settings import Settings
from tests.support import Shop

LOGIN = """mutation SignIn($i: LoginInput!) { login(input: $i) { token userErrors { code } } }"""
PASSWORD = "correct-horse-battery"


@pytest.fixture
async def throttled(database_url: str, shop: Shop) -> AsyncIterator[httpx.AsyncClient]:
    async with unit_of_work(shop.engine) as conn:
        await people.create_user(
            conn, email="wal@shop.test", name="Wal", password=PASSWORD, is_admin=False,
            department_ids=[],
        )  # fmt: skip
    settings = Settings(signin_per_address="6/minute", signin_failures_per_account="3/2 seconds")
    app = create_app(settings, url=database_url)
    transport = httpx.ASGITransport(app=app, client=("203.0.113.7", 1234))
    async with httpx.AsyncClient(transport=transport, base_url="http://pressroom") as client:
        yield client


async def sign_in(client: httpx.AsyncClient, email: str, password: str) -> httpx.Response:
    return await client.post(
        "/graphql",
        json={"query": LOGIN, "variables": {"i": {"email": email, "password": password}}},
    )


async def test_an_account_waits_after_failures_and_is_not_locked_for_good(
    throttled: httpx.AsyncClient,
) -> None:
    for _ in range(3):
        wrong = await sign_in(throttled, "wal@shop.test", "wrong-password")
        assert wrong.json()["data"]["login"]["userErrors"] == [{"code": "INVALID_INPUT"}]
    refused = await sign_in(throttled, "WAL@shop.test", PASSWORD)
    assert refused.status_code == 429
    retry = int(refused.headers["retry-after"])
    assert 1 <= retry <= 3
    [error] = refused.json()["errors"]
    assert error["extensions"]["code"] == "RATE_LIMITED"
    assert f"{retry} seconds" in error["message"]
    # Not for good: once Retry-After has passed (the limit is a moving window of 2 s
    # here), the real user signs in.
    await asyncio.sleep(retry)
    ok = await sign_in(throttled, "wal@shop.test", PASSWORD)
    assert ok.status_code == 200, ok.text
    assert ok.json()["data"]["login"]["token"]


async def test_one_address_is_limited_whatever_accounts_it_tries(
    throttled: httpx.AsyncClient,
) -> None:
    answers = [
        (await sign_in(throttled, f"nobody{n}@shop.test", "whatever-password")).status_code
        for n in range(8)
    ]
    assert answers == [200] * 6 + [429] * 2
