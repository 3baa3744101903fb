"""The read cache against a real server and database (graph/read_cache.py): an answer asked
again while nothing commits is served without a statement; any commit, of the server or of
anyone else, evented or not, turns it away; requests for an answer being read wait for it;
answers are shared by viewers of the same rights but for what is a person's own, and never
kept for fields that read the clock, for errors or with files; PRESSROOM_READ_CACHE=false
keeps none; and, with a writer and readers at once, every read is at least as new as every
write and every read that finished before it began (reading one's own writes among them).

The database's transaction ids are the cluster's: a commit in another test worker's
database turns kept answers away too (a miss, never a stale answer). A test that needs an
answer served again asks until one was, between two snapshots that show nothing committed.
"""

import asyncio
import json
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from db.customers import create_customer, update_customer
from db.engine import reading, unit_of_work
from db.events import Snapshot, snapshot_now
from graph.read_cache import ReadCache
from pressroom.settings import Settings
from tests.support.client import Client, gid, site
from tests.support.database import counting
from tests.support.servers import app_from, metric, served
from tests.support.shop import Shop

NAMES = "query($id: ID!) { customer(id: $id) { name } }"
ME = "{ me { name departments { code } } }"
LATE = "{ workOrders { edges { node { orderNumber isLate } } } }"
RENAME = """mutation($input: UpdateCustomerInput!) {
  updateCustomer(input: $input) { userErrors { code } } }"""
ATTEMPTS = 200
# Statements of this database waiting for a lock on the customers' table.
WAITING_ON_THE_LOCK = """SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
WHERE NOT l.granted AND c.relname = 'customers' AND l.database =
  (SELECT oid FROM pg_database WHERE datname = current_database())"""


@pytest.fixture(scope="module")
async def cached(database_url: str) -> AsyncIterator[tuple[str, Any]]:
    """A server of its own with the read cache on, whatever the environment says (the
    suite also runs with PRESSROOM_READ_CACHE=false): its URL and app."""
    async with served(database_url, Settings(read_cache=True)) as server:
        yield server


@pytest.fixture
def api(cached: tuple[str, Any], http: httpx.AsyncClient) -> Client:
    return Client(http, cached[0])


async def snapshot(shop: Shop) -> Snapshot:
    async with reading(shop.engine) as conn:
        return await snapshot_now(conn)


def cache_of(cached: tuple[str, Any]) -> ReadCache:
    cache = cached[1].state.services.read_cache
    assert isinstance(cache, ReadCache)
    return cache


def engine_of(app: Any) -> AsyncEngine:
    engine: AsyncEngine = app.state.services.engine
    return engine


async def quiet_hit(
    shop: Shop,
    cached: tuple[str, Any],
    ask: Callable[[], Awaitable[Any]],
    again: Callable[[], Awaitable[Any]] | None = None,
) -> tuple[list[str], Any]:
    """The statements the server ran for `again` (by default `ask`) asked after `ask`, and
    its answer, once the server answered it with what it kept, nothing committed from
    before `ask` until after: asked again until so."""
    cache = cache_of(cached)
    for _ in range(ATTEMPTS):
        before = await snapshot(shop)
        await ask()
        kept = cache.counts["kept"]
        with counting(engine_of(cached[1])) as statements:
            answer = await (again or ask)()
        if before.unchanged_at(await snapshot(shop)):
            assert cache.counts["kept"] == kept + 1
            return statements, answer
    raise AssertionError(f"the database was never quiet for two requests in {ATTEMPTS}")


async def test_a_query_asked_again_while_nothing_commits_runs_no_statement(
    shop: Shop, api: Client, cached: tuple[str, Any]
) -> None:
    sam = api.as_(shop.tokens["sam"])
    variables = {"id": gid("Customer", shop.customer_id)}
    first = await sam(NAMES, variables)
    statements, again = await quiet_hit(shop, cached, lambda: sam(NAMES, variables))
    assert statements == []
    assert again == first == {"customer": {"name": "ACME"}}


async def test_every_commit_turns_a_kept_answer_away(shop: Shop, api: Client) -> None:
    sam = api.as_(shop.tokens["sam"])
    variables = {"id": gid("Customer", shop.customer_id)}
    assert await sam(NAMES, variables) == {"customer": {"name": "ACME"}}
    assert await sam(NAMES, variables) == {"customer": {"name": "ACME"}}
    # Through the server: a change that writes no event.
    renamed = await sam(RENAME, {"input": {"customerId": variables["id"], "name": "ACME Ltd"}})
    assert renamed == {"updateCustomer": {"userErrors": []}}
    assert await sam(NAMES, variables) == {"customer": {"name": "ACME Ltd"}}
    # Another process's commit, which this server hears nothing of.
    async with unit_of_work(shop.engine) as conn:
        await update_customer(conn, shop.customer_id, "ACME Group", {})
    assert await sam(NAMES, variables) == {"customer": {"name": "ACME Group"}}


SHARERS = 5


async def test_requests_for_an_answer_being_read_wait_for_it(
    shop: Shop, api: Client, cached: tuple[str, Any]
) -> None:
    """The customers' table locked, the first request's read waits on the lock; the others,
    finding the database as it was when that read began, wait for its answer instead of
    reading: one read for all of them, once the lock goes."""
    cache = cache_of(cached)
    sam = api.as_(shop.tokens["sam"])
    variables = {"id": gid("Customer", shop.customer_id)}
    for _ in range(ATTEMPTS):
        async with shop.engine.connect() as locker:
            transaction = await locker.begin()
            await locker.execute(text("LOCK TABLE customers IN ACCESS EXCLUSIVE MODE"))
            before = await snapshot(shop)
            counts = dict(cache.counts)
            asked = [asyncio.create_task(sam(NAMES, variables)) for _ in range(SHARERS)]
            quiet = True
            while quiet:
                readers = await locker.scalar(text(WAITING_ON_THE_LOCK))
                waiting = sum(r.waiting for k, r in cache.reading.items() if k[0] == NAMES)
                if readers + waiting == SHARERS:
                    break
                quiet = before.unchanged_at(await snapshot(shop))
                await asyncio.sleep(0.01)
            quiet = quiet and before.unchanged_at(await snapshot(shop))
            await transaction.rollback()
        assert await asyncio.gather(*asked) == [{"customer": {"name": "ACME"}}] * SHARERS
        if quiet:
            assert readers == 1
            assert cache.counts["read"] == counts.get("read", 0) + 1
            assert cache.counts["shared"] == counts.get("shared", 0) + SHARERS - 1
            return
    raise AssertionError(f"the database was never quiet for the requests in {ATTEMPTS}")


async def test_answers_are_kept_for_a_viewer_of_the_same_scope_only(
    shop: Shop, api: Client, cached: tuple[str, Any]
) -> None:
    sam, dee = api.as_(shop.tokens["sam"]), api.as_(shop.tokens["dee"])
    first = await sam(ME)
    _, again = await quiet_hit(shop, cached, lambda: sam(ME))
    assert again == first
    assert first["me"]["departments"] == [{"code": "sales"}]
    assert await dee(ME) == {"me": {"name": "Dee", "departments": [{"code": "design"}]}}


async def test_callers_without_a_token_are_neither_kept_nor_asked_a_round_trip(
    shop: Shop, api: Client, cached: tuple[str, Any]
) -> None:
    """Nothing is worth keeping for them, and a stream of their requests must not cost the
    database a snapshot each or push the floor's answers out."""
    cache = cache_of(cached)
    counts, kept = dict(cache.counts), len(cache)
    anonymous = api.as_(None)
    for _ in range(3):
        assert await anonymous(ME) == {"me": None}
        refused = await anonymous.raw(NAMES, {"id": gid("Customer", shop.customer_id)})
        assert refused["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    assert dict(cache.counts) == counts
    assert len(cache) == kept


CREATOR = "query($id: ID!) { workOrder(id: $id) { orderNumber createdBy { name email } } }"


async def test_people_of_the_same_rights_share_answers_but_not_what_is_theirs(
    shop: Shop, api: Client, cached: tuple[str, Any]
) -> None:
    """Two members of Sales, two admins: each is answered with what the other's request
    kept (`Viewer.rights`); `me` and a person's email (theirs and admins' alone) are kept
    per person."""
    await shop.add_user("sue", ["sales"])
    await shop.add_user("eve", [], is_admin=True)
    variables = {"id": gid("Customer", shop.customer_id)}
    for first, second in (("sam", "sue"), ("ada", "eve")):
        one, other = api.as_(shop.tokens[first]), api.as_(shop.tokens[second])
        assert (await other(ME))["me"]["name"] == second.title()  # its token now known
        statements, answer = await quiet_hit(
            shop, cached, partial(one, NAMES, variables), partial(other, NAMES, variables)
        )
        assert statements == []
        assert answer == {"customer": {"name": "ACME"}}
        _, mine = await quiet_hit(shop, cached, partial(one, ME))
        assert mine["me"]["name"] == first.title()
        assert (await other(ME))["me"]["name"] == second.title()  # never the other's
    order = {"id": gid("WorkOrder", await shop.order(["print"]))}
    sam, sue = api.as_(shop.tokens["sam"]), api.as_(shop.tokens["sue"])
    _, own = await quiet_hit(shop, cached, lambda: sam(CREATOR, order))
    assert own["workOrder"]["createdBy"]["email"] is not None
    seen = await sue.raw(CREATOR, order)
    assert seen["data"]["workOrder"]["createdBy"] == {"name": "Sam", "email": None}
    assert seen["errors"][0]["extensions"]["code"] == "FORBIDDEN"


async def test_fields_that_read_the_clock_and_errors_are_never_kept(
    shop: Shop, api: Client, cached: tuple[str, Any]
) -> None:
    cache = cache_of(cached)
    sam = api.as_(shop.tokens["sam"])
    await shop.order(["print"])
    counts = dict(cache.counts)
    for _ in range(2):
        with counting(engine_of(cached[1])) as statements:
            answer = await sam(LATE)
        assert answer["workOrders"]["edges"][0]["node"]["isLate"] is False
        assert statements
    assert dict(cache.counts) == counts
    kept = len(cache)
    wrong = await sam.raw(NAMES, {"id": "not an id"})
    assert wrong["errors"][0]["extensions"]["code"] == "BAD_REQUEST"
    assert cache.counts["read"] == counts.get("read", 0) + 1
    assert len(cache) == kept


async def test_a_query_sent_with_a_file_is_answered_and_not_kept(
    shop: Shop, cached: tuple[str, Any], http: httpx.AsyncClient
) -> None:
    """A multipart request's variables hold its files, which make no key: read, not kept."""
    cache = cache_of(cached)
    variables = {"id": gid("Customer", shop.customer_id), "file": None}
    operations = {"query": NAMES, "variables": variables}
    counts, kept = dict(cache.counts), len(cache)
    response = await http.post(
        cached[0],
        headers={"authorization": f"Bearer {shop.tokens['sam']}"},
        data={"operations": json.dumps(operations), "map": json.dumps({"0": ["variables.file"]})},
        files={"0": ("a.pdf", b"%PDF-1.4", "application/pdf")},
    )
    assert response.json() == {"data": {"customer": {"name": "ACME"}}}
    assert dict(cache.counts) == counts
    assert len(cache) == kept


async def test_the_cache_turned_off_keeps_nothing(database_url: str, shop: Shop) -> None:
    async with app_from(database_url, "10.0.0.9", read_cache=False) as client:
        app = client._transport.app  # type: ignore[attr-defined]
        assert app.state.services.read_cache is None
        api = Client(client, "/graphql", shop.tokens["sam"])
        variables = {"id": gid("Customer", shop.customer_id)}
        for _ in range(3):
            with counting(engine_of(app)) as statements:
                assert await api(NAMES, variables) == {"customer": {"name": "ACME"}}
            assert statements
        exposition = (await client.get("/metrics")).text
        assert "pressroom_read_cache" not in exposition


async def test_metrics_count_kept_and_read_answers(
    shop: Shop, api: Client, http: httpx.AsyncClient, cached: tuple[str, Any]
) -> None:
    sam = api.as_(shop.tokens["sam"])
    variables = {"id": gid("Customer", shop.customer_id)}
    await quiet_hit(shop, cached, lambda: sam(NAMES, variables))
    exposition = (await http.get(site(cached[0]) + "/metrics")).text
    cache = cache_of(cached)
    assert metric(exposition, "pressroom_read_cache_answers", answer="kept") == cache.counts["kept"]
    assert metric(exposition, "pressroom_read_cache_answers", answer="read") == cache.counts["read"]
    assert (metric(exposition, "pressroom_read_cache_bytes") or 0) >= 1


# The randomized test's writes: each renames one of two customers, through the server or
# as another process; the writer reads between them, readers all along.
WRITES = 60
READERS = 4
BOTH = """query($a: ID!, $b: ID!) { a: customer(id: $a) { name } b: customer(id: $b) { name } }"""


async def test_reads_are_never_older_than_writes_or_reads_that_finished_before_them(
    shop: Shop, api: Client, cached: tuple[str, Any]
) -> None:
    """Names are `n<k>`, k growing with each write (one writer). Every read must show at
    least every k written before it began (the writer reading its own writes among them)
    and every k shown by a read that finished before it began (monotonic reads), for both
    customers at once."""
    cache = cache_of(cached)
    sam = api.as_(shop.tokens["sam"])
    async with unit_of_work(shop.engine) as conn:
        await update_customer(conn, shop.customer_id, "n0", {})
        second = (await create_customer(conn, "n0", shop.users["sam"])).customer.id
    ids = {"a": gid("Customer", shop.customer_id), "b": gid("Customer", second)}
    written = {"a": 0, "b": 0}  # the newest k whose write had returned
    seen = {"a": 0, "b": 0}  # the newest k a finished read showed
    kept_before = cache.counts["kept"]
    rng = random.Random(43)
    reads = 0
    writing = True

    async def read() -> dict[str, int]:
        nonlocal reads
        floor = {key: max(written[key], seen[key]) for key in ids}
        answer = await sam(BOTH, ids)
        got = {key: int(answer[key]["name"].removeprefix("n")) for key in ids}
        for key in ids:
            assert got[key] >= floor[key], (key, got, floor)
            seen[key] = max(seen[key], got[key])
        reads += 1
        return got

    async def writer() -> None:
        nonlocal writing
        for k in range(1, WRITES + 1):
            if rng.random() < 0.5:
                renamed = await sam(RENAME, {"input": {"customerId": ids["a"], "name": f"n{k}"}})
                assert renamed == {"updateCustomer": {"userErrors": []}}
                written["a"] = k
            else:
                async with unit_of_work(shop.engine) as conn:
                    await update_customer(conn, second, f"n{k}", {})
                written["b"] = k
            for _ in range(rng.randint(1, 4)):
                assert await read() == written
        writing = False

    async def reader() -> None:
        while writing:
            await read()

    await asyncio.gather(writer(), *(reader() for _ in range(READERS)))
    assert reads > WRITES * 2
    # Some answers were served again: the test checked the cache, not only the database.
    assert cache.counts["kept"] > kept_before
