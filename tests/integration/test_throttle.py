"""Sign-in throttling: per account (failures only, for minutes, every spelling of an
address counting together) and per address (failures, plus a ceiling on all attempts),
answered with 429 and Retry-After; signing in and password re-checks counted apart; the
counters kept in PostgreSQL, so every server process shares them."""

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import httpx
import pytest
from argon2 import PasswordHasher, extract_parameters
from sqlalchemy import text

from db import credentials, people
from db.credentials import hash_password
from db.engine import unit_of_work
from pressroom.app import create_app
from pressroom.settings import Settings
from tests.support.shop import Shop

LOGIN = (
    """mutation SignIn($i: LoginInput!) { login(input: $i) { token userErrors { code field } } }"""
)
CHANGE = """mutation Change($i: ChangePasswordInput!) {
  changePassword(input: $i) { userErrors { code field } } }"""
PASSWORD = "correct-horse-battery"
ADDRESS = "203.0.113.7"

Server = Callable[..., AbstractAsyncContextManager[httpx.AsyncClient]]


@pytest.fixture
async def wal(shop: Shop) -> int:
    async with unit_of_work(shop.engine) as conn:
        row = await people.create_user(
            conn, email="wal@shop.test", name="Wal", password=PASSWORD, is_admin=False,
            department_ids=[],
        )  # fmt: skip
    return int(row.user.id)


@pytest.fixture
def own_server(database_url: str, shop: Shop) -> Server:
    """A server of its own (its own engine and counters' connections) on the test
    database; requests come from `address`."""

    @asynccontextmanager
    async def serving(address: str = ADDRESS, **limits: str) -> AsyncIterator[httpx.AsyncClient]:
        app = create_app(Settings(**limits), url=database_url)
        transport = httpx.ASGITransport(app=app, client=(address, 1234))
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=transport, base_url="http://pressroom") as client,
        ):
            yield client

    return serving


async def post(client: httpx.AsyncClient, query: str, i: dict[str, Any], token: str = "") -> Any:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return await client.post(
        "/graphql", json={"query": query, "variables": {"i": i}}, headers=headers
    )


async def sign_in(client: httpx.AsyncClient, email: str, password: str) -> httpx.Response:
    return await post(client, LOGIN, {"email": email, "password": password})


def outcome(response: httpx.Response) -> str:
    if response.status_code == 429:
        return "429"
    body = response.json()
    if body.get("errors"):
        return body["errors"][0]["extensions"]["code"]
    login = body["data"]["login"]
    return "token" if login["token"] else login["userErrors"][0]["code"]


async def test_an_account_waits_after_failures_and_is_not_locked_for_good(
    own_server: Server, wal: int
) -> None:
    # A window long enough that three checks on a loaded machine fit in it.
    async with own_server(signin_failures_per_account="3/6 seconds") as client:
        for _ in range(3):
            wrong = await sign_in(client, "wal@shop.test", "wrong-password")
            assert outcome(wrong) == "INVALID_INPUT"
        refused = await sign_in(client, "WAL@shop.test", PASSWORD)
        assert refused.status_code == 429
        retry = int(refused.headers["retry-after"])
        assert 1 <= retry <= 7
        [error] = refused.json()["errors"]
        assert error["extensions"]["code"] == "RATE_LIMITED"
        assert f"{retry} seconds" in error["message"]
        # Not for good: once Retry-After has passed (the limit is a moving window of 6 s
        # here), the real user signs in.
        await asyncio.sleep(retry)
        assert outcome(await sign_in(client, "wal@shop.test", PASSWORD)) == "token"


async def test_a_shift_signing_in_from_one_address_all_get_in(
    own_server: Server, shop: Shop
) -> None:
    """Only failures count per address: sixty people behind one workshop address, each
    with the right password, within a minute (the old rule refused all but 20)."""
    emails = [f"worker{n}@shop.test" for n in range(60)]
    async with unit_of_work(shop.engine) as conn:
        for email in emails:
            await people.create_user(
                conn, email=email, name=email, password=None, is_admin=False, department_ids=[]
            )
        await conn.execute(
            text("UPDATE users SET password_hash = :h WHERE email LIKE 'worker%'"),
            {"h": await hash_password(PASSWORD)},
        )
    async with own_server() as client:
        answers = [outcome(await sign_in(client, email, PASSWORD)) for email in emails]
    assert answers == ["token"] * 60


async def test_wrong_passwords_from_one_address_are_throttled_whatever_accounts_they_try(
    own_server: Server,
) -> None:
    async with own_server(signin_failures_per_address="30/minute") as client:
        answers = [
            outcome(await sign_in(client, f"nobody{n}@shop.test", "whatever-password"))
            for n in range(100)
        ]
    assert answers == ["INVALID_INPUT"] * 30 + ["429"] * 70


async def test_every_attempt_counts_towards_the_ceiling(own_server: Server, wal: int) -> None:
    async with own_server(signin_attempts_per_address="5/minute") as client:
        answers = [outcome(await sign_in(client, "wal@shop.test", PASSWORD)) for _ in range(7)]
    assert answers == ["token"] * 5 + ["429"] * 2


async def test_ipv6_clients_are_counted_per_64(own_server: Server) -> None:
    limits = {"signin_failures_per_address": "3/minute"}
    async with own_server("2001:db8:1:2::1", **limits) as first:
        for n in range(3):
            assert (
                outcome(await sign_in(first, f"x{n}@shop.test", "whatever-pw")) == "INVALID_INPUT"
            )
    async with own_server("2001:db8:1:2:ffff::9", **limits) as same_64:
        assert outcome(await sign_in(same_64, "y@shop.test", "whatever-pw")) == "429"
    async with own_server("2001:db8:1:3::1", **limits) as next_64:
        assert outcome(await sign_in(next_64, "y@shop.test", "whatever-pw")) == "INVALID_INPUT"


async def test_every_spelling_of_an_address_counts_on_one_account(
    own_server: Server, wal: int
) -> None:
    """Fullwidth letters and capitals are the same address once normalised (NFKC,
    case-folded): their failures count on wal's one counter, by id."""
    fullwidth = "".join(chr(ord(c) + 0xFEE0) for c in "WAL")  # U+FF37 U+FF21 U+FF2C
    spellings = [f"{fullwidth}@shop.test", "Wal@SHOP.test", "wal@\uff53hop.test"]
    async with own_server(signin_failures_per_account="3/minute") as client:
        for email in spellings:
            assert outcome(await sign_in(client, email, "wrong-password")) == "INVALID_INPUT"
        assert outcome(await sign_in(client, "wal@shop.test", PASSWORD)) == "429"


async def test_a_dotted_capital_i_is_not_another_spelling_of_i(
    own_server: Server, shop: Shop
) -> None:
    """U+0130 case-folds to 'i' with a combining dot: another address, so it neither signs
    in as pia (PostgreSQL's lower() used to find her) nor counts on her account."""
    async with unit_of_work(shop.engine) as conn:
        await conn.execute(
            text("UPDATE users SET password_hash = :h WHERE email = 'pia@shop.test'"),
            {"h": await hash_password(PASSWORD)},
        )
    async with own_server(signin_failures_per_account="2/minute") as client:
        answers = [outcome(await sign_in(client, "p\u0130a@shop.test", PASSWORD)) for _ in range(3)]
        assert answers == ["INVALID_INPUT", "INVALID_INPUT", "429"]
        assert outcome(await sign_in(client, "pia@shop.test", PASSWORD)) == "token"


async def test_failed_sign_ins_do_not_stop_a_password_check(own_server: Server, wal: int) -> None:
    """Apart from signing in: wal's failures there (the old counter's key was also
    changePassword's) leave changePassword open."""
    async with own_server(signin_failures_per_account="3/minute") as client:
        token = (await sign_in(client, "wal@shop.test", PASSWORD)).json()["data"]["login"]["token"]
        for _ in range(3):
            assert outcome(await sign_in(client, "wal@shop.test", "wrong")) == "INVALID_INPUT"
        assert outcome(await sign_in(client, "wal@shop.test", PASSWORD)) == "429"
        change = {"oldPassword": PASSWORD, "newPassword": "another-long-password"}
        done = (await post(client, CHANGE, change, token)).json()
    assert done["data"]["changePassword"]["userErrors"] == [], done


async def test_failed_password_checks_do_not_stop_signing_in(own_server: Server, wal: int) -> None:
    async with own_server(signin_failures_per_account="3/minute") as client:
        token = (await sign_in(client, "wal@shop.test", PASSWORD)).json()["data"]["login"]["token"]
        wrong = {"oldPassword": "not-it-at-all", "newPassword": "another-long-password"}
        codes = [(await post(client, CHANGE, wrong, token)).status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        assert outcome(await sign_in(client, "wal@shop.test", PASSWORD)) == "token"


async def test_guessing_the_password_to_make_an_api_token_is_throttled(
    own_server: Server, wal: int
) -> None:
    """Like changePassword's, counted apart from signing in: once refused, the right
    password is not even checked, and signing in still works."""
    make = """mutation Make($i: CreateApiTokenInput!) { createApiToken(input: $i) {
      secret userErrors { code field } } }"""
    async with own_server(signin_failures_per_account="3/minute") as client:
        token = (await sign_in(client, "wal@shop.test", PASSWORD)).json()["data"]["login"]["token"]
        answers = []
        for password in ["guess-one-pw", "guess-two-pw", "guess-three-pw", PASSWORD]:
            made = await post(client, make, {"name": "ERP", "password": password}, token)
            answers.append(
                "429" if made.status_code == 429 else made.json()["data"]["createApiToken"]
            )
        assert answers == [
            {"secret": None, "userErrors": [{"code": "INVALID_INPUT", "field": "password"}]}
        ] * 3 + ["429"]
        assert outcome(await sign_in(client, "wal@shop.test", PASSWORD)) == "token"


async def test_login_says_when_the_email_is_not_an_email(own_server: Server) -> None:
    async with own_server() as client:
        body = (await sign_in(client, "user:6", "whatever-password")).json()
    assert body["data"]["login"]["userErrors"] == [{"code": "INVALID_INPUT", "field": "email"}]


async def test_every_process_shares_the_counters(own_server: Server, wal: int) -> None:
    limits = {"signin_failures_per_account": "3/minute"}
    async with own_server(**limits) as one, own_server(**limits) as other:
        for client in (one, other, one):
            assert outcome(await sign_in(client, "wal@shop.test", "wrong")) == "INVALID_INPUT"
        assert outcome(await sign_in(other, "wal@shop.test", PASSWORD)) == "429"


async def test_concurrent_guesses_check_no_more_passwords_than_the_limit(
    own_server: Server, wal: int
) -> None:
    """50 wrong passwords at once on one account from one address, against 10 failures
    per 5 minutes: a failure is reserved before the check, so at most 10 passwords are
    checked (the process's argon2 workers count each), the rest refused. Tested first
    and counted after, all 35 of 35 were once checked."""
    limits = {
        "signin_failures_per_account": "10/5 minutes",
        "anonymous_concurrency": "50",
        "password_queue": "50",
    }
    async with own_server(**limits) as client:
        before = credentials.hashing.counts.done
        answers = await asyncio.gather(
            *(sign_in(client, "wal@shop.test", f"wrong-guess-{n}") for n in range(50))
        )
        checked = credentials.hashing.counts.done - before
    outcomes = sorted(outcome(a) for a in answers)
    assert outcomes == ["429"] * 40 + ["INVALID_INPUT"] * 10
    assert checked == 10


async def test_a_right_password_gives_its_reserved_failure_back(
    own_server: Server, wal: int
) -> None:
    async with own_server(signin_failures_per_account="2/minute") as client:
        for _ in range(5):
            assert outcome(await sign_in(client, "wal@shop.test", PASSWORD)) == "token"
        assert outcome(await sign_in(client, "wal@shop.test", "wrong")) == "INVALID_INPUT"
        assert outcome(await sign_in(client, "wal@shop.test", PASSWORD)) == "token"


@pytest.mark.parametrize(
    "earlier",
    [
        pytest.param({"parallelism": 4}, id="four-threads"),
        pytest.param({"memory_cost": 8192, "time_cost": 1}, id="cheaper"),
    ],
)
async def test_a_hash_of_earlier_parameters_is_remade_at_the_next_sign_in(
    own_server: Server, shop: Shop, wal: int, earlier: dict[str, int]
) -> None:
    """Hashes made with four threads a check, or at a cost lower than the one set now
    (an operator raised it), are verified as they are, and remade at today's cost once
    the password is proved (never on a failure)."""
    today = Settings().password_cost()
    made_then = {"memory_cost": today.memory_kib, "time_cost": today.time_cost, "parallelism": 1}
    older = PasswordHasher(**(made_then | earlier)).hash(PASSWORD)
    set_hash = text("UPDATE users SET password_hash = :h WHERE id = :id")
    get_hash = text("SELECT password_hash FROM users WHERE id = :id")
    async with unit_of_work(shop.engine) as conn:
        await conn.execute(set_hash, {"h": older, "id": wal})
    async with own_server() as client:
        assert outcome(await sign_in(client, "wal@shop.test", "wrong-password")) == "INVALID_INPUT"
        async with unit_of_work(shop.engine) as conn:
            assert (await conn.execute(get_hash, {"id": wal})).scalar_one() == older
        assert outcome(await sign_in(client, "wal@shop.test", PASSWORD)) == "token"
        async with unit_of_work(shop.engine) as conn:
            remade = (await conn.execute(get_hash, {"id": wal})).scalar_one()
        made = extract_parameters(remade)
        assert extract_parameters(older) != made
        assert (made.memory_cost, made.time_cost, made.parallelism) == (
            today.memory_kib,
            today.time_cost,
            1,
        )
        assert not credentials.outdated(remade)
        assert outcome(await sign_in(client, "wal@shop.test", PASSWORD)) == "token"
