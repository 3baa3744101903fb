"""The HTTP GraphQL client (a bearer token per request), global ids, and the dashboard's
query that tests and bench both ask."""

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from api.ids import encode_id


class GraphQLError(AssertionError):
    pass


@dataclass
class Client:
    """Posts GraphQL over real HTTP; `token` is sent as a bearer token."""

    http: httpx.AsyncClient
    url: str
    token: str | None = None

    async def raw(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        headers = {"authorization": f"Bearer {self.token}"} if self.token else {}
        response = await self.http.post(
            self.url, json={"query": query, "variables": variables or {}}, headers=headers
        )
        body: dict[str, Any] = response.json()
        return body

    async def __call__(self, query: str, variables: dict[str, Any] | None = None) -> Any:
        body = await self.raw(query, variables)
        if body.get("errors"):
            raise GraphQLError(body["errors"])
        return body["data"]

    def as_(self, token: str | None) -> "Client":
        return Client(self.http, self.url, token)


# One TLS context for every test's client: httpx builds one per client by default,
# loading the system's certificates each time (11 % of the integration tests' CPU), for
# servers on loopback reached over plain HTTP.
TLS = httpx.create_ssl_context()


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    # Idle connections are dropped well before uvicorn closes them (5 s): a request sent
    # on a connection the server is closing that moment fails with a ReadError.
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=100, keepalive_expiry=1.0)
    async with httpx.AsyncClient(timeout=30, limits=limits, verify=TLS) as client:
        yield client


@pytest.fixture
async def api(server: str, http: httpx.AsyncClient) -> Client:
    return Client(http, server)


def site(server: str) -> str:
    """A server's own address, from its GraphQL URL."""
    return server.removesuffix("/graphql")


def gid(type_name: str, pk: int) -> str:
    return encode_id(type_name, pk)
