"""What the server shows beyond answers: introspection, GraphiQL and field suggestions
(on for development, off with PRESSROOM_ENV=production), CORS for allowed origins, and
websocket origins."""

from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from pressroom.app import create_app
from pressroom.settings import Settings

INTROSPECT = "{ __schema { queryType { name } } }"
TYPO = "{ departmnts { code } }"


@pytest.fixture
def app_with(database_url: str):  # type: ignore[no-untyped-def]
    def make(**settings: object):  # type: ignore[no-untyped-def]
        # Production needs its public address.
        given = {"public_url": "https://floor.example.com", **settings}
        return create_app(Settings(**given), url=database_url)  # type: ignore[arg-type]

    return make


async def client_for(app: object) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://pressroom") as client:
        yield client


async def ask(app: object, query: str) -> dict[str, object]:
    async for client in client_for(app):
        body: dict[str, object] = (await client.post("/graphql", json={"query": query})).json()
        return body
    raise AssertionError


async def graphiql_status(app: object) -> int:
    async for client in client_for(app):
        response = await client.get("/graphql", headers={"accept": "text/html"})
        return int(response.status_code) if "graphiql" in response.text.lower() else -1
    raise AssertionError


async def test_development_shows_introspection_graphiql_and_suggestions(app_with) -> None:  # type: ignore[no-untyped-def]
    app = app_with()
    assert (await ask(app, INTROSPECT))["data"] == {"__schema": {"queryType": {"name": "Query"}}}
    assert "Did you mean" in str((await ask(app, TYPO))["errors"])
    assert await graphiql_status(app) == 200


# Production runs only the app's own documents for anonymous callers (trusted documents,
# tests/integration/test_persisted_queries.py): these ask as a caller who may send others.
OWN_DOCUMENTS = {"trusted_documents": False}


async def test_production_hides_them(app_with) -> None:  # type: ignore[no-untyped-def]
    app = app_with(env="production", **OWN_DOCUMENTS)
    refused = await ask(app, INTROSPECT)
    assert refused["errors"][0]["extensions"]["code"] == "BAD_REQUEST"  # type: ignore[index]
    assert "Introspection is turned off" in str(refused["errors"])
    typo = await ask(app, TYPO)
    assert "Cannot query field 'departmnts'" in str(typo["errors"])
    assert "Did you mean" not in str(typo["errors"])
    assert await graphiql_status(app) == -1


async def test_each_can_be_set_on_its_own(app_with) -> None:  # type: ignore[no-untyped-def]
    app = app_with(env="production", introspection=True, **OWN_DOCUMENTS)
    assert "errors" not in await ask(app, INTROSPECT)
    assert await graphiql_status(app) == -1


async def test_cors_preflight_from_an_allowed_origin(app_with) -> None:  # type: ignore[no-untyped-def]
    app = app_with(cors_origins="https://desk.shop.test")
    async for client in client_for(app):
        preflight = {
            "access-control-request-method": "POST",
            "access-control-request-headers": "authorization, content-type",
        }
        allowed = await client.options(
            "/graphql", headers={**preflight, "origin": "https://desk.shop.test"}
        )
        other = await client.options(
            "/graphql", headers={**preflight, "origin": "https://evil.test"}
        )
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == "https://desk.shop.test"
    assert "authorization" in allowed.headers["access-control-allow-headers"].lower()
    assert other.status_code == 400
    assert "access-control-allow-origin" not in other.headers
    # Off by default: no CORS headers at all.
    async for client in client_for(app_with()):
        plain = await client.options(
            "/graphql", headers={**preflight, "origin": "https://desk.shop.test"}
        )
    assert "access-control-allow-origin" not in plain.headers


def test_websockets_from_other_origins_are_refused(app_with) -> None:  # type: ignore[no-untyped-def]
    app = app_with(websocket_origins="https://desk.shop.test")
    with TestClient(app) as client:
        with (
            pytest.raises(WebSocketDisconnect),
            client.websocket_connect(
                "/graphql",
                subprotocols=["graphql-transport-ws"],
                headers={"origin": "https://evil.test"},
            ) as ws,
        ):
            ws.receive_text()
        with client.websocket_connect(
            "/graphql",
            subprotocols=["graphql-transport-ws"],
            headers={"origin": "https://desk.shop.test"},
        ) as ws:
            ws.send_json({"type": "connection_init", "payload": {"authorization": "nope"}})
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_text()
            assert closed.value.code == 4403  # reached the protocol: refused for the token
