"""Readiness follows the event listener; keep-alives reach idle legacy clients; the
connection_init wait is bounded; metrics expose the feed."""

import asyncio
import json
from typing import Any

import httpx
import pytest
import websockets

from graph.view import MAX_SUBSCRIPTIONS_PER_CONNECTION
from tests.support.database import kill_listeners
from tests.support.servers import CONNECTION_INIT_TIMEOUT_SECONDS, metric
from tests.support.shop import Shop


def base(server: str) -> str:
    return server.removesuffix("/graphql")


async def test_readyz_is_false_while_the_listener_is_down(
    running_app: tuple[str, Any], shop: Shop, http: httpx.AsyncClient
) -> None:
    server, app = running_app
    feed = app.state.services.feed
    assert (await http.get(f"{base(server)}/readyz")).json()["listener"] is True
    real_url = feed.url
    # Point reconnects at a database that does not exist, then kill the listener.
    feed.url = real_url.replace("/pressroom_test_", "/missing_")
    try:
        feed.listener_changed.clear()
        await kill_listeners(shop.engine)
        async with asyncio.timeout(10):
            await feed.listener_changed.wait()
        response = await http.get(f"{base(server)}/readyz")
        assert response.status_code == 503
        assert response.json() == {
            "ok": False,
            "database": True,
            "migrations": True,
            "listener": False,
        }
        metrics = (await http.get(f"{base(server)}/metrics")).text
        assert metric(metrics, "pressroom_event_listener_up") == 0.0
    finally:
        feed.listener_changed.clear()
        feed.url = real_url
    async with asyncio.timeout(10):
        await feed.listener_changed.wait()
    response = await http.get(f"{base(server)}/readyz")
    assert response.status_code == 200
    assert response.json()["listener"] is True


async def test_idle_legacy_clients_get_keep_alives(server: str, shop: Shop) -> None:
    async with websockets.connect(
        server.replace("http://", "ws://"), subprotocols=["graphql-ws"]
    ) as ws:
        await ws.send(
            json.dumps(
                {
                    "type": "connection_init",
                    "payload": {"authorization": f"Bearer {shop.tokens['pat']}"},
                }
            )
        )
        kinds = []
        async with asyncio.timeout(10):
            while kinds.count("ka") < 2:
                kinds.append(json.loads(await ws.recv())["type"])
    assert kinds[0] == "connection_ack"


async def test_a_client_that_never_inits_is_closed(server: str) -> None:
    async with websockets.connect(
        server.replace("http://", "ws://"), subprotocols=["graphql-transport-ws"]
    ) as ws:
        with pytest.raises(websockets.ConnectionClosed) as closed:
            async with asyncio.timeout(CONNECTION_INIT_TIMEOUT_SECONDS + 10):
                await ws.recv()
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 4408


async def test_subscribing_before_connection_init_is_refused(server: str) -> None:
    async with websockets.connect(
        server.replace("http://", "ws://"), subprotocols=["graphql-transport-ws"]
    ) as ws:
        subscribe = {"id": "1", "type": "subscribe", "payload": {"query": "{ me { id } }"}}
        await ws.send(json.dumps(subscribe))
        with pytest.raises(websockets.ConnectionClosed) as closed:
            async with asyncio.timeout(10):
                await ws.recv()
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 4401


async def test_metrics_expose_the_feed(server: str, http: httpx.AsyncClient) -> None:
    metrics = (await http.get(f"{base(server)}/metrics")).text
    for name in [
        "pressroom_event_listener_up",
        "pressroom_event_subscribers",
        "pressroom_event_held_back_seconds",
        "pressroom_event_delivery_lag_seconds",
        "pressroom_event_fanout_failures",
        "pressroom_event_read_errors",
        "pressroom_live_connections",
        "pressroom_graphql_operations_total",
    ]:
        assert name in metrics


async def test_subscriptions_per_connection_are_limited(server: str, shop: Shop) -> None:
    async with websockets.connect(
        server.replace("http://", "ws://"), subprotocols=["graphql-transport-ws"]
    ) as ws:
        init = {"type": "connection_init", "payload": {"authorization": shop.tokens["pat"]}}
        await ws.send(json.dumps(init))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        query = 'subscription { queueEvents(department: "print") { cursor } }'
        for n in range(MAX_SUBSCRIPTIONS_PER_CONNECTION + 1):
            message = {"id": str(n), "type": "subscribe", "payload": {"query": query}}
            await ws.send(json.dumps(message))
        async with asyncio.timeout(10):
            reply = json.loads(await ws.recv())
    assert reply["type"] == "error"
    assert reply["id"] == str(MAX_SUBSCRIPTIONS_PER_CONNECTION)
    assert "limit" in reply["payload"][0]["message"]
