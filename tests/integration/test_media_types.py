"""What /graphql answers, by media type: with `Accept: application/graphql-response+json`
a request that never ran (parse, validation, variables, the server's own limits) is 400
without `data`, one that ran is 200 with `data`; with `application/json` (or `*/*`, or no
Accept) every well-formed request is 200 with `data`, as before; an Accept header that
allows neither is 406. (tests/e2e/test_graphql_over_http.py runs the specification's own
audit.)"""

from typing import Any

import httpx
import pytest

from graph.media_types import GRAPHQL_RESPONSE
from tests.support.client import Client, gid

PARSE = {"query": "{"}
VALIDATION = {"query": "{ nope }"}
VARIABLES = {
    "query": "query($first: Int!) { users(first: $first) { edges { cursor } } }",
    "variables": {"first": "many"},
}
# Refused by the server's own rule (an extension), before anything runs.
SUBSCRIPTION = {"query": 'subscription { queueEvents(department: "print") { kind } }'}
# Ran: an anonymous caller's field error, at a path, beside data.
PARTIAL = {"query": f'{{ __typename workOrder(id: "{gid("WorkOrder", 1)}") {{ id }} }}'}
# Ran: the error reached the (non-null) root, so data is null.
NULL_DATA = {"query": "{ departments { code } }"}
NEW = GRAPHQL_RESPONSE
BOTH = f"{GRAPHQL_RESPONSE}, application/json;q=0.9"


async def post(api: Client, body: dict[str, Any], accept: str | None) -> httpx.Response:
    headers = {"accept": accept} if accept is not None else {}
    return await api.http.post(api.url, json=body, headers=headers)


def codes(body: dict[str, Any]) -> list[str]:
    return [e["extensions"]["code"] for e in body["errors"]]


@pytest.mark.parametrize("accept", [NEW, BOTH])
@pytest.mark.parametrize(
    ("body", "code"),
    [
        (PARSE, "BAD_REQUEST"),
        (VALIDATION, "BAD_REQUEST"),
        (VARIABLES, "BAD_REQUEST"),
        (SUBSCRIPTION, "BAD_REQUEST"),
    ],
    ids=["parse", "validation", "variables", "server-rule"],
)
async def test_a_request_that_never_ran_is_400_without_data(
    api: Client, body: dict[str, Any], code: str, accept: str
) -> None:
    response = await post(api, body, accept)
    assert response.status_code == 400, response.text
    assert response.headers["content-type"] == f"{GRAPHQL_RESPONSE}; charset=utf-8"
    answer = response.json()
    assert "data" not in answer
    assert codes(answer) == [code]
    assert "path" not in answer["errors"][0]


@pytest.mark.parametrize("accept", ["application/json", "*/*", None])
@pytest.mark.parametrize(
    "body",
    [PARSE, VALIDATION, VARIABLES, SUBSCRIPTION],
    ids=["parse", "validation", "variables", "server-rule"],
)
async def test_legacy_clients_get_200_with_null_data(
    api: Client, body: dict[str, Any], accept: str | None
) -> None:
    response = await post(api, body, accept)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    answer = response.json()
    assert answer["data"] is None
    assert codes(answer) == ["BAD_REQUEST"]


@pytest.mark.parametrize("accept", [NEW, "application/json"])
async def test_a_request_that_ran_is_200_with_its_data(api: Client, accept: str) -> None:
    partial = await post(api, PARTIAL, accept)
    assert partial.status_code == 200, partial.text
    assert partial.headers["content-type"].startswith(accept)
    answer = partial.json()
    assert answer["data"] == {"__typename": "Query", "workOrder": None}
    assert codes(answer) == ["UNAUTHENTICATED"]
    assert answer["errors"][0]["path"] == ["workOrder"]

    null_data = await post(api, NULL_DATA, accept)
    assert null_data.status_code == 200, null_data.text
    answer = null_data.json()
    assert "data" in answer and answer["data"] is None
    assert codes(answer) == ["UNAUTHENTICATED"]


async def test_a_malformed_request_is_400_in_the_type_asked_for(api: Client) -> None:
    for accept, content_type in [
        (NEW, f"{GRAPHQL_RESPONSE}; charset=utf-8"),
        ("application/json", "application/json"),
    ]:
        response = await api.http.post(
            api.url,
            content=b'{"query":',
            headers={"accept": accept, "content-type": "application/json"},
        )
        assert response.status_code == 400, response.text
        assert response.headers["content-type"] == content_type
        assert codes(response.json()) == ["BAD_REQUEST"]


@pytest.mark.parametrize("accept", ["text/html", "text/plain, multipart/mixed", "*/*;q=0"])
async def test_an_accept_header_allowing_neither_type_is_406(api: Client, accept: str) -> None:
    response = await post(api, {"query": "{ __typename }"}, accept)
    assert response.status_code == 406, response.text
    [error] = response.json()["errors"]
    assert error["message"] == (
        f"This endpoint answers in {GRAPHQL_RESPONSE} or application/json; the request's "
        "Accept header allows neither."
    )


async def test_answers_vary_by_accept(api: Client) -> None:
    for accept in [NEW, "application/json", "text/html"]:
        response = await post(api, {"query": "{ __typename }"}, accept)
        assert response.headers["vary"] == "Accept"
        assert response.headers["cache-control"] == "no-store"
