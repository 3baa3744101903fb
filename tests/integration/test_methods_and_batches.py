"""What the GraphQL over HTTP specification says MUST happen, beyond its own audit
(tests/e2e/test_graphql_over_http.py): a mutation sent with GET is 405 with `Allow: POST`
and never runs, while a query over GET is answered; an array body (a batch) is one
request error saying batching is not supported, 400, in `application/json` whenever the
client accepts it (tests/e2e/test_node_apollo_batch.py shows why)."""

from typing import Any

import httpx
import pytest

from graph.media_types import GRAPHQL_RESPONSE
from graph.view import MUTATION_OVER_GET, NO_BATCHING
from tests.support.client import Client
from tests.support.database import counting
from tests.support.shop import Shop

START = """mutation($i: StartTaskInput!) { startTask(input: $i) { changed } }"""
ME = "query Me { me { name } }"


async def get(api: Client, token: str, query: str, accept: str) -> httpx.Response:
    return await api.http.get(
        api.url,
        params={"query": query},
        headers={"authorization": f"Bearer {token}", "accept": accept},
    )


@pytest.mark.parametrize("accept", [GRAPHQL_RESPONSE, "application/json"])
async def test_a_mutation_over_get_is_405_and_never_runs(
    api: Client, shop: Shop, running_app: tuple[str, Any], accept: str
) -> None:
    token = shop.tokens["ada"]
    with counting(running_app[1].state.services.engine) as statements:
        refused = await get(api, token, "mutation { logout(input: {}) { __typename } }", accept)
    assert refused.status_code == 405, refused.text
    assert refused.headers["allow"] == "POST"
    assert refused.headers["content-type"].startswith(accept)
    assert refused.json() == {
        "errors": [{"message": MUTATION_OVER_GET, "extensions": {"code": "BAD_REQUEST"}}]
    }
    # Nothing ran: the token the logout would have revoked was only looked up, and works.
    assert all("FROM tokens" in s for s in statements), statements
    assert (await api.as_(token)("{ me { name } }"))["me"]["name"] == "Ada"

    answered = await get(api, token, ME, accept)
    assert answered.status_code == 200, answered.text
    assert answered.json() == {"data": {"me": {"name": "Ada"}}}


@pytest.mark.parametrize(
    ("accept", "content_type"),
    [
        # Apollo Client 4's BatchHttpLink asks for both, the first preferred: the legacy
        # type, whose status every BatchHttpLink reports (not a GraphQL request at all).
        (f"{GRAPHQL_RESPONSE},application/json;q=0.9", "application/json"),
        ("application/json", "application/json"),
        (GRAPHQL_RESPONSE, f"{GRAPHQL_RESPONSE}; charset=utf-8"),
    ],
)
@pytest.mark.parametrize("operations", [1, 2])
async def test_a_batch_is_one_error_saying_batching_is_not_supported(
    api: Client, shop: Shop, accept: str, content_type: str, operations: int
) -> None:
    body = [{"query": ME, "operationName": "Me"}] * operations
    response = await api.http.post(
        api.url,
        json=body,
        headers={"authorization": f"Bearer {shop.tokens['ada']}", "accept": accept},
    )
    assert response.status_code == 400, response.text
    assert response.headers["content-type"] == content_type
    assert response.json() == {
        "errors": [{"message": NO_BATCHING, "extensions": {"code": "BAD_REQUEST"}}]
    }


async def test_options_without_cors_is_405_naming_get_and_post(api: Client) -> None:
    response = await api.http.options(api.url)
    assert response.status_code == 405, response.text
    assert response.headers["allow"] == "GET, POST"
