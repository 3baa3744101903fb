"""Apollo's automatic persisted queries over GET and POST, as Apollo's link exchanges them
(hash alone, PersistedQueryNotFound, hash with text, then the hash alone runs), against
the real server; and trusted documents: with PRESSROOM_TRUSTED_DOCUMENTS on, callers
that are not signed in and wall displays run only the app's own documents, over HTTP and
over both websocket protocols."""

import json
import uuid
from typing import Any

import httpx
import pytest
import websockets

from api import manifest
from db import people
from db.engine import unit_of_work
from domain.enums import TokenKind
from graph.view import MUTATION_OVER_GET
from pressroom import policies
from pressroom.settings import Settings
from tests.support.client import Client
from tests.support.servers import metric
from tests.support.shop import Shop
from tests.support.subscriptions import cursor_now, display_token, ws_url

GRAPHQL_RESPONSE = "application/graphql-response+json"
TEXTS = {manifest.operation_name(t): t for t in manifest.load().values()}
SIGN_IN = TEXTS["SignIn"]
WALL_QUEUE = TEXTS["WallQueue"]
WALL_QUEUE_EVENTS = TEXTS["WallQueueEvents"]


def fresh(document: str) -> str:
    """`document` with a comment no other test sends: a hash this server has not seen."""
    return f"{document} # {uuid.uuid4()}"


def extensions(text: str) -> dict[str, Any]:
    return {"persistedQuery": {"version": 1, "sha256Hash": manifest.document_id(text)}}


async def send(
    http: httpx.AsyncClient,
    server: str,
    method: str,
    *,
    query: str | None = None,
    sha256_of: str | None = None,
    variables: dict[str, Any] | None = None,
    token: str | None = None,
    accept: str = "application/json",
) -> httpx.Response:
    """A request as Apollo's HTTP link sends it: the hash in `extensions`, the text only
    when `query` is given; GET puts each field in the query string as JSON."""
    body: dict[str, Any] = {}
    if query is not None:
        body["query"] = query
    if sha256_of is not None:
        body["extensions"] = extensions(sha256_of)
    if variables is not None:
        body["variables"] = variables
    headers = {"accept": accept}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    if method == "GET":
        params = {k: v if k == "query" else json.dumps(v) for k, v in body.items()}
        return await http.get(server, params=params, headers=headers)
    return await http.post(server, json=body, headers=headers)


async def counts(http: httpx.AsyncClient, server: str) -> dict[str, float]:
    """pressroom_persisted_documents by outcome, and the registered documents kept."""
    exposition = (await http.get(server.removesuffix("/graphql") + "/metrics")).text
    found = {
        outcome: metric(exposition, "pressroom_persisted_documents", outcome=outcome) or 0.0
        for outcome in ("known", "not_found", "registered", "untrusted")
    }
    found["kept"] = metric(exposition, "pressroom_registered_documents") or 0.0
    return found


def code(response: httpx.Response) -> str | None:
    errors = response.json().get("errors") or [{}]
    found: str | None = errors[0].get("extensions", {}).get("code")
    return found


# --- Automatic persisted queries ------------------------------------------------------------


@pytest.mark.parametrize("method", ["POST", "GET"])
async def test_an_apollo_style_exchange_registers_the_document(
    server: str, http: httpx.AsyncClient, shop: Shop, method: str
) -> None:
    token = shop.tokens["pat"]
    text = fresh("query Mine { me { name } }")
    before = await counts(http, server)

    unknown = await send(http, server, method, sha256_of=text, token=token)
    assert unknown.status_code == 200, unknown.text
    assert unknown.json()["errors"] == [
        {"message": "PersistedQueryNotFound", "extensions": {"code": "PERSISTED_QUERY_NOT_FOUND"}}
    ]
    assert "data" not in unknown.json() or unknown.json()["data"] is None

    # Apollo's link sends the text again with its hash, always by POST.
    registered = await send(http, server, "POST", query=text, sha256_of=text, token=token)
    assert registered.json() == {"data": {"me": {"name": "Pat"}}}

    for _ in range(2):
        known = await send(http, server, method, sha256_of=text, token=token)
        assert known.json() == {"data": {"me": {"name": "Pat"}}}
    after = await counts(http, server)
    assert {k: after[k] - before[k] for k in after} == {
        "known": 2, "not_found": 1, "registered": 1, "untrusted": 0, "kept": 1
    }  # fmt: skip


async def test_not_found_is_a_request_error_in_the_graphql_response_type(
    server: str, http: httpx.AsyncClient, shop: Shop
) -> None:
    # Apollo Client 4 asks for this type, and reads the errors of a 4xx answer's body.
    text = fresh("query Mine { me { name } }")
    unknown = await send(http, server, "POST", sha256_of=text, accept=GRAPHQL_RESPONSE)
    assert unknown.status_code == 400
    assert unknown.headers["content-type"].startswith(GRAPHQL_RESPONSE)
    assert code(unknown) == "PERSISTED_QUERY_NOT_FOUND"
    assert unknown.json()["errors"][0]["message"] == "PersistedQueryNotFound"


async def test_only_signed_in_callers_register(
    server: str, http: httpx.AsyncClient, shop: Shop
) -> None:
    text = fresh("query Plain { __typename }")
    ran = await send(http, server, "POST", query=text, sha256_of=text)
    assert ran.json() == {"data": {"__typename": "Query"}}
    still_unknown = await send(http, server, "POST", sha256_of=text)
    assert code(still_unknown) == "PERSISTED_QUERY_NOT_FOUND"
    display = await display_token(Client(http, server), shop, ["print"])
    ran = await send(http, server, "POST", query=text, sha256_of=text, token=display["secret"])
    assert ran.json() == {"data": {"__typename": "Query"}}
    still_unknown = await send(http, server, "POST", sha256_of=text, token=display["secret"])
    assert code(still_unknown) == "PERSISTED_QUERY_NOT_FOUND"

    # An API token registers, as a person does.
    async with unit_of_work(shop.engine) as conn:
        api = await people.issue_token(
            conn, kind=TokenKind.API, name="sync", user_id=shop.users["sam"], ttl_seconds=600
        )
    await send(http, server, "POST", query=text, sha256_of=text, token=api.token)
    known = await send(http, server, "POST", sha256_of=text)
    assert known.json() == {"data": {"__typename": "Query"}}


async def test_a_hash_that_is_not_the_texts_is_refused_and_kept_from_nobody(
    server: str, http: httpx.AsyncClient, shop: Shop
) -> None:
    token = shop.tokens["sam"]
    text, other = fresh("query Mine { me { name } }"), fresh("query Mine { me { name } }")
    body = {"query": other, "extensions": extensions(text)}
    refused = await http.post(server, json=body, headers={"authorization": f"Bearer {token}"})
    assert code(refused) == "BAD_REQUEST"
    assert "is not the SHA-256 of the query sent with it" in refused.text
    assert "data" not in refused.json() or refused.json()["data"] is None
    for hashed in (text, other):
        assert code(await send(http, server, "POST", sha256_of=hashed, token=token)) == (
            "PERSISTED_QUERY_NOT_FOUND"
        )


async def test_a_document_that_does_not_run_is_not_registered(
    server: str, http: httpx.AsyncClient, shop: Shop
) -> None:
    token = shop.tokens["sam"]
    for text in (fresh("query Typo { mee { name } }"), fresh("query Broken { me { ")):
        refused = await send(http, server, "POST", query=text, sha256_of=text, token=token)
        assert code(refused) == "BAD_REQUEST", refused.text
        again = await send(http, server, "POST", sha256_of=text, token=token)
        assert code(again) == "PERSISTED_QUERY_NOT_FOUND"


@pytest.mark.parametrize(
    "persisted,says",
    [
        ({"version": 2, "sha256Hash": "0" * 64}, '"version": 1'),
        ({"version": 1, "sha256Hash": "abc"}, "64 hexadecimal digits"),
        ({"version": 1}, "64 hexadecimal digits"),
        ("0" * 64, '"version": 1'),
    ],
)
async def test_a_malformed_persisted_query_is_a_bad_request(
    server: str, http: httpx.AsyncClient, persisted: object, says: str
) -> None:
    refused = await http.post(server, json={"extensions": {"persistedQuery": persisted}})
    assert code(refused) == "BAD_REQUEST"
    assert says in refused.json()["errors"][0]["message"]


async def test_the_apps_documents_are_known_by_hash_from_the_start(
    server: str, http: httpx.AsyncClient, shop: Shop
) -> None:
    variables = {"input": {"email": "nobody@shop.test", "password": "wrong-password"}}
    signed = await send(http, server, "POST", sha256_of=SIGN_IN, variables=variables)
    assert signed.json()["data"]["login"]["token"] is None
    # A GET without `query` that accepts anything (Apollo Client 3's `*/*`) is a request,
    # not a browser asking for GraphiQL.
    me = await send(http, server, "GET", sha256_of=TEXTS["Me"], accept="*/*")
    assert me.json() == {"data": {"me": None}}


# --- Trusted documents --------------------------------------------------------------------


UNTRUSTED = ["{ __typename }", "query Mine { me { name } }", fresh(SIGN_IN)]


async def test_anonymous_callers_run_only_the_apps_documents(
    trusted_server: str, http: httpx.AsyncClient
) -> None:
    before = await counts(http, trusted_server)
    for text in UNTRUSTED:
        for method in ("POST", "GET"):
            refused = await send(http, trusted_server, method, query=text)
            assert code(refused) == "TRUSTED_DOCUMENTS_ONLY", refused.text
            assert "runs only its trusted documents" in refused.text
            refused = await send(http, trusted_server, method, query=text, sha256_of=text)
            assert code(refused) == "TRUSTED_DOCUMENTS_ONLY", refused.text
        # Not "not found": sending the text would not help.
        assert (
            code(await send(http, trusted_server, "POST", sha256_of=text))
            == "TRUSTED_DOCUMENTS_ONLY"
        )
    variables = {"input": {"email": "nobody@shop.test", "password": "wrong-password"}}
    by_text = await send(http, trusted_server, "POST", query=SIGN_IN, variables=variables)
    by_hash = await send(http, trusted_server, "GET", sha256_of=SIGN_IN, variables=variables)
    by_both = await send(
        http, trusted_server, "POST", query=SIGN_IN, sha256_of=SIGN_IN, variables=variables
    )
    for answer in (by_text, by_both):
        assert answer.json()["data"]["login"]["token"] is None, answer.text
    refused = (await counts(http, trusted_server))["untrusted"] - before["untrusted"]
    assert refused == len(UNTRUSTED) * 5
    # By hash, the manifest's mutation is found, and refused as any mutation over GET is.
    assert by_hash.status_code == 405, by_hash.text
    assert by_hash.json()["errors"][0]["message"] == MUTATION_OVER_GET


async def test_people_and_api_tokens_run_anything_and_register(
    trusted_server: str, http: httpx.AsyncClient, shop: Shop
) -> None:
    async with unit_of_work(shop.engine) as conn:
        api = await people.issue_token(
            conn, kind=TokenKind.API, name="sync", user_id=shop.users["ada"], ttl_seconds=600
        )
    for token in (shop.tokens["pat"], api.token):
        text = fresh("query Mine { me { name } }")
        assert code(await send(http, trusted_server, "GET", sha256_of=text, token=token)) == (
            "PERSISTED_QUERY_NOT_FOUND"
        )
        assert "data" in (await send(http, trusted_server, "POST", query=text, token=token)).json()
        ran = await send(http, trusted_server, "POST", query=text, sha256_of=text, token=token)
        assert ran.json()["data"]["me"]["name"] in ("Pat", "Ada")
        again = await send(http, trusted_server, "GET", sha256_of=text, token=token)
        assert again.json() == ran.json()
        # What a person registered is still not trusted for anyone else.
        assert (
            code(await send(http, trusted_server, "GET", sha256_of=text))
            == "TRUSTED_DOCUMENTS_ONLY"
        )


async def test_a_token_that_no_longer_works_is_told_so(
    trusted_server: str, http: httpx.AsyncClient
) -> None:
    refused = await send(http, trusted_server, "POST", query="{ __typename }", token="stale-token")
    assert code(refused) == "UNAUTHENTICATED"


async def test_wall_displays_run_only_the_apps_documents_over_http(
    trusted_server: str, server: str, http: httpx.AsyncClient, shop: Shop
) -> None:
    secret = (await display_token(Client(http, server), shop, ["print"]))["secret"]
    variables = {"department": "print"}
    for text in ("{ __typename }", 'query Q { queue(department: "print") { eventCursor } }'):
        refused = await send(http, trusted_server, "POST", query=text, token=secret)
        assert code(refused) == "TRUSTED_DOCUMENTS_ONLY", refused.text
    for method in ("GET", "POST"):
        wall = await send(
            http, trusted_server, method, sha256_of=WALL_QUEUE, variables=variables, token=secret
        )
        assert wall.json()["data"]["queue"]["edges"] == [], wall.text
    wall = await send(
        http, trusted_server, "POST", query=WALL_QUEUE, variables=variables, token=secret
    )
    assert "eventCursor" in wall.json()["data"]["queue"]


async def socket(server: str, token: str, protocol: str) -> Any:
    ws = await websockets.connect(ws_url(server), subprotocols=[protocol])
    await ws.send(json.dumps({"type": "connection_init", "payload": {"authorization": token}}))
    assert json.loads(await ws.recv())["type"] == "connection_ack"
    return ws


async def answer(ws: Any) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(await ws.recv())
        if message["type"] not in ("ka", "ping", "pong"):
            return message


@pytest.mark.parametrize("protocol", ["graphql-transport-ws", "graphql-ws"])
async def test_wall_displays_run_only_the_apps_documents_over_websockets(
    trusted_server: str, server: str, http: httpx.AsyncClient, shop: Shop, protocol: str
) -> None:
    api = Client(http, server)
    secret = (await display_token(api, shop, ["print"]))["secret"]
    after = await cursor_now(api, shop.tokens["pat"])
    await shop.order(["print"])
    kind = "subscribe" if protocol == "graphql-transport-ws" else "start"
    variables = {"department": "print", "after": after}
    ws = await socket(trusted_server, secret, protocol)
    try:
        own = WALL_QUEUE_EVENTS.replace("jobLine", "jobLine notes")
        await ws.send(json.dumps({"id": "1", "type": kind, "payload": {"query": own}}))
        refused = await answer(ws)
        assert refused["type"] == "error" and refused["id"] == "1", refused
        errors = refused["payload"]
        assert (errors[0] if protocol == "graphql-transport-ws" else errors)["extensions"][
            "code"
        ] == "TRUSTED_DOCUMENTS_ONLY"

        # The app's subscription, by its text and its hash (as the display sends it): the
        # order's new task arrives.
        payload = {
            "query": WALL_QUEUE_EVENTS,
            "variables": variables,
            "extensions": extensions(WALL_QUEUE_EVENTS),
        }
        await ws.send(json.dumps({"id": "2", "type": kind, "payload": payload}))
        event = await answer(ws)
        assert event["type"] in ("next", "data") and event["id"] == "2", event
        assert "errors" not in event["payload"], event
        assert event["payload"]["data"]["queueEvents"]["kind"] == "TASK_CREATED"
    finally:
        await ws.close()


def test_production_trusts_only_the_manifest_unless_told_otherwise() -> None:
    assert policies.documents(Settings(env="production")).trusted
    assert not policies.documents(Settings(env="production", trusted_documents=False)).trusted
    assert not policies.documents(Settings()).trusted
    assert policies.documents(Settings(trusted_documents=True)).trusted
    assert policies.documents(Settings()).manifest == manifest.load()
