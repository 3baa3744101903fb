"""Anonymous requests cannot starve the floor: a sign-in never holds a pooled connection
while it waits for another, password work waits in a bounded queue, anonymous requests
get a bounded share of the process and the rest are refused at once, and people,
API tokens and wall displays are never queued behind them."""

import asyncio
import contextlib
import gc
import threading
from collections import Counter
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from db import credentials
from db.credentials import Lane
from graph.shape import ANONYMOUS
from pressroom.app import create_app
from pressroom.settings import Settings
from tests.support.client import Client, gid
from tests.support.servers import config_for, free_port, metric, serve
from tests.support.shop import Shop
from tests.support.subscriptions import FINISH, START, cursor_now, print_tasks, subscriber, take

LOGIN = """mutation($i: LoginInput!) { login(input: $i) { token userErrors { code } } }"""
QUEUE = """query { queue(department: "print", first: 100) { edges { node { id } } } }"""
GENEROUS = {
    "signin_failures_per_address": "100000/minute",
    "signin_attempts_per_address": "100000/minute",
    "signin_failures_per_account": "100000/minute",
}


@contextlib.asynccontextmanager
async def own_server(database_url: str, **settings: Any) -> AsyncIterator[str]:
    """uvicorn serving an app of its own with these settings: its /graphql URL. The
    process's password workers are put back as its environment sets them afterwards."""
    config = Settings(**{**GENEROUS, **settings})
    app = create_app(config, url=database_url)
    port = free_port()
    srv, task = await serve(config_for(app, config, port))
    try:
        yield f"http://127.0.0.1:{port}/graphql"
    finally:
        srv.should_exit = True
        await task
        Settings().configure_hashing()


@contextlib.asynccontextmanager
async def every_worker_busy() -> AsyncIterator[None]:
    """The process's one password worker held by the test until the block ends: a check
    meanwhile waits for it (in flight all that time), or is refused past the queue."""
    held = threading.Event()
    holder = asyncio.create_task(credentials.hashing.run(held.wait, Lane.SIGNED_IN))
    await until(lambda: credentials.hashing.running == 1)
    try:
        yield
    finally:
        held.set()
        await holder


async def until(condition: Callable[[], bool], within: float = 30) -> None:
    """Wait for a condition of the server's state (not for time to pass): the server runs
    on this event loop, so each turn of it may change the state."""
    async with asyncio.timeout(within):
        while not condition():  # noqa: ASYNC110 - the state has no event to wait on
            await asyncio.sleep(0.01)


def outcome(response: httpx.Response) -> str:
    body = response.json()
    if body.get("errors"):
        return f"{response.status_code} {body['errors'][0]['extensions']['code']}"
    login = body["data"]["login"]
    return "token" if login["token"] else login["userErrors"][0]["code"]


async def sign_in(http: httpx.AsyncClient, url: str, email: str) -> httpx.Response:
    variables = {"i": {"email": email, "password": "not-the-password"}}
    return await http.post(url, json={"query": LOGIN, "variables": variables})


async def test_a_sign_in_never_holds_a_connection_while_it_waits_for_another(
    database_url: str, shop: Shop, http: httpx.AsyncClient
) -> None:
    """Three pooled connections: three sign-ins that each held one while their throttle
    counters waited for a second one from the same pool waited out the pool's timeout
    (30 s) and answered 503; here every sign-in is answered, and so is the worker."""
    # Room in the password workers' wait for all ten: only the pool is tested here.
    settings = {
        "pool_size": 3,
        "max_overflow": 0,
        "anonymous_concurrency": 10,
        "password_queue": 10,
    }
    async with own_server(database_url, **settings) as url:
        answers = await asyncio.gather(
            *(sign_in(http, url, f"nobody{n}@shop.test") for n in range(10))
        )
        queue = await Client(http, url, shop.tokens["pat"])(QUEUE)
    assert [outcome(a) for a in answers] == ["INVALID_INPUT"] * 10
    assert queue["queue"]["edges"] == []


async def test_anonymous_requests_past_their_share_are_refused_at_once_and_people_are_not(
    database_url: str, shop: Shop, http: httpx.AsyncClient
) -> None:
    settings = {"anonymous_concurrency": 1, "password_workers": 1, "password_queue": 1}
    async with own_server(database_url, **settings) as url:
        async with every_worker_busy():
            # In flight, and anonymous, while it waits for the worker.
            waiting = asyncio.create_task(sign_in(http, url, "nobody@shop.test"))
            await until(lambda: credentials.hashing.queued() == 1)
            anonymous = await http.post(url, json={"query": "{ __typename }"})
            stale = await http.post(
                url, json={"query": "{ __typename }"}, headers={"authorization": "Bearer prs_s_x"}
            )
            worker = await Client(http, url, shop.tokens["pat"]).raw(QUEUE)
        first = await waiting
        after = await http.post(url, json={"query": "{ __typename }"})
        exposition = (await http.get(url.replace("/graphql", "/metrics"))).text

    for refused in (anonymous, stale):
        assert refused.status_code == 503
        assert refused.headers["retry-after"] == "1"
        [error] = refused.json()["errors"]
        assert error["extensions"]["code"] == "SERVICE_UNAVAILABLE"
        assert "without a valid token" in error["message"]
    assert worker == {"data": {"queue": {"edges": []}}}
    assert outcome(first) == "INVALID_INPUT"
    assert after.json() == {"data": {"__typename": "Query"}}
    assert metric(exposition, "pressroom_anonymous_refused") == 2


async def test_a_full_password_queue_answers_429_at_once(
    database_url: str, shop: Shop, http: httpx.AsyncClient
) -> None:
    settings = {"anonymous_concurrency": 10, "password_workers": 1, "password_queue": 2}
    async with own_server(database_url, **settings) as url:
        async with every_worker_busy():
            queued = [
                asyncio.create_task(sign_in(http, url, f"queued{n}@shop.test")) for n in range(2)
            ]
            await until(lambda: credentials.hashing.queued() == 2)
            refused = await sign_in(http, url, "one-too-many@shop.test")
        answers = [outcome(a) for a in await asyncio.gather(*queued)]
    assert refused.status_code == 429
    assert refused.headers["retry-after"] == "1"
    assert outcome(refused) == "429 RATE_LIMITED"
    assert answers == ["INVALID_INPUT"] * 2


@pytest.mark.parametrize("protocol", ["graphql-transport-ws"])
async def test_a_sign_in_flood_leaves_the_floor_working(
    database_url: str, shop: Shop, protocol: str
) -> None:
    """200 anonymous sign-ins at once while a worker reads her queue and moves tasks and
    a wall display follows the print queue: every read succeeds, the display gets every
    event, /readyz stays 200; each sign-in is answered as a wrong password, throttled
    (429) or refused at once past the anonymous share (503)."""
    tasks = await print_tasks(shop, 10)
    display = await shop.display(["print"])
    limits = httpx.Limits(max_connections=300, max_keepalive_connections=300)
    async with (
        own_server(database_url, pool_size=20, max_overflow=0) as url,
        httpx.AsyncClient(timeout=60, limits=limits) as http,
    ):
        worker = Client(http, url, shop.tokens["pat"])
        after = await cursor_now(worker, shop.tokens["pat"])
        variables = {"department": "print", "after": after}
        async with subscriber(url, display, protocol, variables) as events:
            flood = [
                asyncio.create_task(sign_in(http, url, f"nobody{n}@shop.test")) for n in range(200)
            ]
            reads, ready = [], []
            for task_id in tasks:
                reads.append(await worker.raw(QUEUE))
                ready.append((await http.get(url.replace("/graphql", "/readyz"))).status_code)
                ids = {"i": {"taskId": _gid(task_id)}}
                assert (await worker(START, ids))["startTask"]["changed"] is True
                assert (await worker(FINISH, ids))["finishTask"]["changed"] is True
            answers = Counter(outcome(a) for a in await asyncio.gather(*flood))
            got = await take(events, 2 * len(tasks))
    assert all("errors" not in r for r in reads), reads
    assert ready == [200] * len(tasks)
    moves = [(e["queueEvents"]["task"]["status"], e["queueEvents"]["task"]["id"]) for e in got]
    assert sorted(moves) == sorted(
        (kind, _gid(t)) for t in tasks for kind in ("STARTED", "COMPLETED")
    )
    assert sum(answers.values()) == 200
    assert set(answers) <= {"INVALID_INPUT", "429 RATE_LIMITED", "503 SERVICE_UNAVAILABLE"}, answers
    assert answers["503 SERVICE_UNAVAILABLE"] > 0, answers


def _gid(task_id: int) -> str:
    return gid("DepartmentTask", task_id)


async def test_anonymous_work_waits_for_the_floor_s_requests_in_flight(
    database_url: str, shop: Shop, http: httpx.AsyncClient
) -> None:
    """An admitted anonymous request starts its work only once no signed-in request is in
    flight: while one is (held here as the view holds it), a worker's read is answered and
    the anonymous request is not; once it ends, the anonymous one is. A floor that never
    goes idle delays it by the admission's bound, no more."""
    settings = Settings(**GENEROUS)
    app = create_app(settings, url=database_url)
    admission = app.state.services.admission
    admission.yield_seconds = 60
    srv, task = await serve(config_for(app, settings, free_port()))
    url = f"http://127.0.0.1:{srv.config.port}/graphql"
    try:
        with admission.signed_in():
            anonymous = asyncio.create_task(http.post(url, json={"query": "{ __typename }"}))
            await until(lambda: admission.in_flight == 1 or anonymous.done())
            worker = await Client(http, url, shop.tokens["pat"]).raw(QUEUE)
            assert not anonymous.done()
        answered = await anonymous
        admission.yield_seconds = 0.05
        with admission.signed_in():
            bounded = await http.post(url, json={"query": "{ __typename }"})
    finally:
        srv.should_exit = True
        await task
    assert worker == {"data": {"queue": {"edges": []}}}
    assert answered.json() == {"data": {"__typename": "Query"}}
    assert bounded.json() == {"data": {"__typename": "Query"}}
    assert admission.floor == 0 and admission.in_flight == 0


async def test_anonymous_work_already_begun_stops_at_its_next_stretch_for_the_floor(
    database_url: str, shop: Shop, http: httpx.AsyncClient
) -> None:
    """An anonymous request that began while the floor was idle does not run to its end
    once a signed-in request is in flight: it decodes its body in one stretch, and waits
    for the floor before parsing in the next. Stretches are taken one at a time, in turn:
    the test holds one (`first`), so that the request decodes while a second (`second`)
    waits behind it, and the floor's request comes in while `second` holds the turn."""
    settings = Settings(**GENEROUS)
    app = create_app(settings, url=database_url)
    admission = app.state.services.admission
    admission.yield_seconds = 60
    srv, task = await serve(config_for(app, settings, free_port()))
    url = f"http://127.0.0.1:{srv.config.port}/graphql"
    second_holds, release_second = asyncio.Event(), asyncio.Event()

    async def second() -> None:
        async with admission.working():
            second_holds.set()
            await release_second.wait()

    try:
        async with admission.working():
            anonymous = asyncio.create_task(http.post(url, json={"query": "{ __typename }"}))
            await until(lambda: admission.in_flight == 1)
            # The request's decoding is next in turn; `second` comes after it.
            await until(lambda: admission.queued == 1)
            holder = asyncio.create_task(second())
        await second_holds.wait()
        with admission.signed_in():
            release_second.set()
            await holder
            worker = await Client(http, url, shop.tokens["pat"]).raw(QUEUE)
            assert not anonymous.done()
        answered = await anonymous
    finally:
        srv.should_exit = True
        await task
    assert worker == {"data": {"queue": {"edges": []}}}
    assert answered.json() == {"data": {"__typename": "Query"}}
    assert admission.floor == 0 and admission.in_flight == 0


@pytest.mark.parametrize("plain", [False, True], ids=["engine room", "plain"])
async def test_a_document_refused_for_its_length_lets_go_of_its_turn(
    database_url: str, http: httpx.AsyncClient, plain: bool
) -> None:
    """An anonymous text over its length limit is refused in the parse's hooks, after the
    stretch around them began: the stretch ends with the refusal. It was left held (every
    anonymous request waiting behind it) until a collection found the abandoned hook; the
    collector is off here, and plain execution has no pacer to collect anyway."""
    settings = Settings(**GENEROUS, plain_execution=plain)
    app = create_app(settings, url=database_url)
    admission = app.state.services.admission
    srv, task = await serve(config_for(app, settings, free_port()))
    url = f"http://127.0.0.1:{srv.config.port}/graphql"
    gc.disable()
    try:
        refused = await http.post(
            url, json={"query": "{ __typename " + " " * ANONYMOUS.characters + "}"}
        )
        async with asyncio.timeout(10), admission.working():
            pass
        answered = await http.post(url, json={"query": "{ __typename }"})
    finally:
        gc.enable()
        srv.should_exit = True
        await task
    [error] = refused.json()["errors"]
    assert error["extensions"]["code"] == "BAD_REQUEST" and "characters long" in error["message"]
    assert answered.json() == {"data": {"__typename": "Query"}}
    assert admission.in_flight == 0
