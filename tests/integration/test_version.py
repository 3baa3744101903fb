"""GET /version and `Query.apiVersion` answer the version, to anyone."""

import httpx

from api.version import VERSION
from tests.support.client import Client
from tests.support.shop import Shop


async def test_get_version_answers_it_without_a_token(server: str, http: httpx.AsyncClient) -> None:
    answer = await http.get(server.removesuffix("/graphql") + "/version")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    assert answer.json() == {"version": VERSION}


async def test_api_version_answers_it_signed_in_or_not(api: Client, shop: Shop) -> None:
    assert await api("{ apiVersion }") == {"apiVersion": VERSION}
    assert await api.as_(shop.tokens["pat"])("{ apiVersion }") == {"apiVersion": VERSION}
