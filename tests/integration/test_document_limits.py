"""Documents that would make the server walk far more than they weigh are refused before
anything runs: fragments spread twice per level (the expansion limit), a family of
documents and variables that made graphql-core's validation or coercion work far more
than they weigh (refused before validation, naming the limit, and never kept by the
server's cache of documents), and event cursors nested too deeply to decode
(BAD_REQUEST, no masked error, nothing in the log)."""

import base64
import logging
import re
from collections.abc import Iterator
from typing import Any

import pytest
from graphql.validation.rules import overlapping_fields_can_be_merged as overlapping
from strawberry.schema.schema import validate_document

from api.errors import STALE_TOKEN
from api.manifest import operations
from graph.documents import DOCUMENTS
from graph.shape import ANONYMOUS, SIGNED_IN, Limits
from tests.support.client import Client
from tests.support.database import counting, table_snapshot
from tests.support.shop import Shop
from tests.support.subscriptions import PROTOCOLS, QUEUE_EVENTS, RawSocket

# 400 levels are over the token cap too, which refuses them while they are parsed; without
# a token, they are longer than a document may be, refused before they are parsed.
LEVELS = {
    18: f"over the limit of {ANONYMOUS.fields:,} fields",
    30: f"over the limit of {ANONYMOUS.fields:,} fields",
    400: f"over the limit of {ANONYMOUS.characters:,} characters",
}
SIGNED_IN_LEVELS = {
    18: f"over the limit of {SIGNED_IN.fields:,} fields",
    30: f"over the limit of {SIGNED_IN.fields:,} fields",
    400: f"more than {SIGNED_IN.tokens} tokens",
}
CREATE = 'createCustomer(input: {name: "Twin"}) { customer { name } }'


def doubling(levels: int, root: str, leaf: str) -> str:
    spreads = "".join(
        f"fragment F{i} on {root} {{ ...F{i + 1} ...F{i + 1} }}\n" for i in range(1, levels)
    )
    kind = root.lower()
    return f"{kind} Q {{ ...F1 }}\n{spreads}fragment F{levels} on {root} {{ {leaf} }}\n"


def refused_for_its_size(body: dict[str, Any], says: str) -> None:
    assert body.get("data") is None, body
    [error] = body["errors"]
    assert error["extensions"]["code"] == "BAD_REQUEST"
    assert says in error["message"]


@pytest.mark.parametrize("levels", LEVELS)
async def test_an_anonymous_doubling_query_is_refused_before_anything_runs(
    api: Client, shop: Shop, running_app: tuple[str, Any], levels: int
) -> None:
    query = doubling(levels, "Query", "workOrders { edges { node { orderNumber } } }")
    with counting(running_app[1].state.services.engine) as statements:
        body = await api.as_(None).raw(query)
    refused_for_its_size(body, LEVELS[levels])
    assert statements == []


@pytest.mark.parametrize("levels", LEVELS)
async def test_a_doubling_mutation_is_refused_and_writes_nothing(
    api: Client, shop: Shop, running_app: tuple[str, Any], levels: int
) -> None:
    mutation = doubling(levels, "Mutation", CREATE)
    before = await table_snapshot(shop.engine)
    with counting(running_app[1].state.services.engine) as statements:
        body = await api.as_(shop.tokens["sam"]).raw(mutation)
    refused_for_its_size(body, SIGNED_IN_LEVELS[levels])
    # Only Sam's token was looked up.
    assert len(statements) == 1 and "FROM tokens" in statements[0], statements
    assert await table_snapshot(shop.engine) == before


async def test_the_same_mutation_spread_once_runs(api: Client, shop: Shop) -> None:
    """The refusal is about the expansion, not about fragments: two levels run."""
    mutation = doubling(2, "Mutation", CREATE)
    body = await api.as_(shop.tokens["sam"]).raw(mutation)
    assert body.get("errors") is None, body
    assert body["data"] == {"createCustomer": {"customer": {"name": "Twin"}}}


NESTED_CURSOR = base64.urlsafe_b64encode(b"[" * 12_000).decode()


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_an_event_cursor_nested_too_deeply_is_a_bad_request(
    server: str, shop: Shop, protocol: str, caplog: pytest.LogCaptureFixture
) -> None:
    socket = await RawSocket.open(server, shop.tokens["pat"], protocol)
    try:
        with caplog.at_level(logging.WARNING):
            await socket.subscribe(QUEUE_EVENTS, {"department": "print", "after": NESTED_CURSOR})
            message = await socket.next()
    finally:
        await socket.ws.close()
    payload = message["payload"]
    errors = payload if isinstance(payload, list) else payload.get("errors", [payload])
    assert [e["extensions"]["code"] for e in errors] == ["BAD_REQUEST"], message
    assert "not an event cursor" in errors[0]["message"]
    assert "RecursionError" not in caplog.text
    assert "unexpected error" not in caplog.text


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_doubling_subscription_is_refused_on_the_socket(
    server: str, shop: Shop, protocol: str
) -> None:
    spreads = "".join(
        f"fragment F{i} on Subscription {{ ...F{i + 1} ...F{i + 1} }}\n" for i in range(1, 30)
    )
    document = (
        f"subscription S {{ ...F1 }}\n{spreads}"
        'fragment F30 on Subscription { queueEvents(department: "print") { cursor } }\n'
    )
    socket = await RawSocket.open(server, shop.tokens["pat"], protocol)
    try:
        await socket.subscribe(document, {})
        message = await socket.next()
    finally:
        await socket.ws.close()
    payload = message["payload"]
    errors = payload if isinstance(payload, list) else payload.get("errors", [payload])
    assert [e["extensions"]["code"] for e in errors] == ["BAD_REQUEST"], message
    assert f"over the limit of {SIGNED_IN.fields:,} fields" in errors[0]["message"]


def nested(depth: int) -> Any:
    value: Any = ["print"]
    for _ in range(depth - 1):
        value = [value]
    return value


LIST = (
    "mutation($c: [String!]!) "
    '{ createDisplayToken(input: {name: "d", departmentCodes: $c}) { secret } }'
)
# Each made graphql-core work far more than the request weighs: the overlapping-fields
# rule compares a selection set's fields pairwise (1,990 repeats: 175-275 ms), and the
# coercion of variables makes an error for each item that does not coerce.
FAMILY: dict[str, tuple[str, dict[str, Any]]] = {
    "repeated fields": ("{ me { " + "id " * 1990 + "} }", {}),
    "aliases": ("{ me { " + " ".join(f"a{i}: id" for i in range(600)) + " } }", {}),
    "wide selection set": ("{ me { " + "... on User { id name } " * 200 + "} }", {}),
    "directives": ("{ __typename " + "@skip(if: false) " * 280 + "}", {}),
    "operations": (" ".join(f"query Q{i} {{ __typename }}" for i in range(390)), {}),
    "variables": ("query(" + " ".join(f"$v{i}: Int" for i in range(390)) + ") { __typename }", {}),
    "long string": (
        'mutation { login(input: {email: "' + "x" * 200_000 + '", password: "p"}) { token } }',
        {},
    ),
    "huge list variable": (LIST, {"c": [1] * 30_000}),
    "deep list variable": (LIST, {"c": nested(40)}),
}
# What a refusal says: a limit, or the token cap's own words.
NAMES_A_LIMIT = re.compile(r"over the limit of [\d,]+\b|more than [\d,]+ tokens")


class Work:
    """Validations run and pairs of fields the overlapping-fields rule compared."""

    validations = 0
    comparisons = 0


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[Work]]:
    compare = overlapping.find_conflict

    def validating(*args: Any) -> Any:
        Work.validations += 1
        return validate_document(*args)

    def comparing(*args: Any) -> Any:
        Work.comparisons += 1
        return compare(*args)

    Work.validations = Work.comparisons = 0
    monkeypatch.setattr("graph.documents.validate_document", validating)
    monkeypatch.setattr(overlapping, "find_conflict", comparing)
    yield Work


async def post(api: Client, token: str | None, query: str, variables: dict[str, Any]) -> Any:
    body: dict[str, Any] = {"query": query, "variables": variables}
    if query.startswith("query Q0"):
        body["operationName"] = "Q0"
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return (await api.http.post(api.url, json=body, headers=headers)).json()


@pytest.mark.parametrize("caller", ["anonymous", "signed in"])
@pytest.mark.parametrize("family", FAMILY)
async def test_each_hostile_document_is_refused_before_validation_and_not_kept(
    api: Client, shop: Shop, work: type[Work], caller: str, family: str
) -> None:
    query, variables = FAMILY[family]
    token = shop.tokens["sam"] if caller == "signed in" else None
    body = await post(api, token, query, variables)
    assert body.get("data") is None, body
    [error] = body["errors"]
    assert error["extensions"]["code"] == "BAD_REQUEST"
    assert NAMES_A_LIMIT.search(error["message"]), error["message"]
    assert (work.validations, work.comparisons) == (0, 0)
    assert DOCUMENTS.get(query) is None


@pytest.mark.parametrize(("caller", "limits"), [("anonymous", ANONYMOUS), ("signed in", SIGNED_IN)])
async def test_a_selection_set_at_the_limit_is_validated_in_bounded_work(
    api: Client, shop: Shop, work: type[Work], caller: str, limits: Limits
) -> None:
    """As wide as the caller may send: answered, its fields compared pairwise once, and
    kept, so the same text again is not validated again."""
    query = "query Wide { me { " + "id " * limits.selection + "} }"
    token = shop.tokens["sam"] if caller == "signed in" else None
    for _ in range(2):
        body = await post(api, token, query, {})
        assert body.get("errors") is None, body
    assert work.validations == 1
    assert 0 < work.comparisons <= limits.selection * (limits.selection - 1) // 2
    share = DOCUMENTS.anonymous if caller == "anonymous" else DOCUMENTS.signed_in
    assert share.peek(query) is not None


async def test_what_a_signed_in_person_may_send_is_refused_without_a_token(
    api: Client, shop: Shop
) -> None:
    query = "query Aliased { me { " + " ".join(f"a{i}: id" for i in range(8)) + " } }"
    assert (await post(api, shop.tokens["sam"], query, {})).get("errors") is None
    body = await post(api, None, query, {})
    [error] = body["errors"]
    assert error["message"] == "This request uses 8 aliases, over the limit of 5 aliases."


async def test_a_screens_operation_with_a_token_that_stopped_working_is_unauthenticated(
    api: Client, shop: Shop
) -> None:
    """Over the limits without a token (8 variables), within a signed-in caller's: the web
    app, whose session ended, is told so (and shows sign-in), as the fields would have."""
    [query] = [text for path, text in operations() if "query WorkOrderList(" in text]
    variables = {"orderBy": "DUE_AT"}
    token = shop.tokens["sam"]
    assert (await post(api, token, query, variables)).get("errors") is None
    await api.as_(token)("mutation { logout(input: {}) { token { revokedAt } } }")
    [error] = (await post(api, token, query, variables))["errors"]
    assert error["extensions"]["code"] == "UNAUTHENTICATED"
    assert error["message"] == STALE_TOKEN
    [error] = (await post(api, None, query, variables))["errors"]
    assert error["extensions"]["code"] == "BAD_REQUEST"
    assert "limit of 5 variables per operation" in error["message"]
    # Over a signed-in caller's limits too: the limit is what it hears.
    [error] = (await post(api, token, FAMILY["repeated fields"][0], {}))["errors"]
    assert error["extensions"]["code"] == "BAD_REQUEST"
