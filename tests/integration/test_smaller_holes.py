"""The smaller holes a security review found: oversized websocket frames refused at their
header, sockets per token and per address bounded (4429), people found by id only by who
may know them, answers and downloads that no cache keeps, and production closed to
/metrics and to guessing its own address."""

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from pressroom.app import create_app, server_options
from pressroom.settings import Settings
from routes.body_limit import MAX_BODY_BYTES
from tests.support.client import Client, gid
from tests.support.servers import config_for, free_port, serve
from tests.support.shop import Shop
from tests.support.subscriptions import PROTOCOLS

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------------------------
# Websockets.


@asynccontextmanager
async def own_server(database_url: str, **settings: Any) -> AsyncIterator[str]:
    """A server of its own on a real socket (the limits are per process), as ws://..."""
    chosen = Settings(**settings)
    port = free_port()
    server, task = await serve(config_for(create_app(chosen, url=database_url), chosen, port))
    try:
        yield f"ws://127.0.0.1:{port}/graphql"
    finally:
        server.should_exit = True
        await task


async def connected(url: str, token: str, protocol: str) -> Any:
    """A socket through connection_init; raises ConnectionClosed if the server closes it."""
    ws = await websockets.connect(url, subprotocols=[protocol])
    await ws.send(
        json.dumps({"type": "connection_init", "payload": {"authorization": f"Bearer {token}"}})
    )
    reply = json.loads(await ws.recv())
    assert reply["type"] == "connection_ack", reply
    return ws


def test_the_server_refuses_frames_over_the_body_limit_at_their_header() -> None:
    assert server_options(Settings())["ws_max_size"] == MAX_BODY_BYTES


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_frame_over_the_limit_is_refused_by_the_protocol(
    server: str, shop: Shop, protocol: str
) -> None:
    """uvicorn's protocol closes it (1009) as the frame's header arrives: the app's own
    check, which reads it first, never sees it."""
    ws = await connected(server.replace("http://", "ws://"), shop.tokens["pat"], protocol)
    with pytest.raises(ConnectionClosed):
        await ws.send("x" * (MAX_BODY_BYTES + 1))
        while True:  # keep-alives of the legacy protocol may come first
            await ws.recv()
    assert ws.close_code == 1009
    assert "Messages are limited" not in (ws.close_reason or "")


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_one_token_holds_a_bounded_number_of_sockets(
    database_url: str, shop: Shop, protocol: str
) -> None:
    async with own_server(database_url, websockets_per_token=3) as url, AsyncExitStack() as open_:
        for _ in range(3):
            ws = await connected(url, shop.tokens["pat"], protocol)
            open_.push_async_callback(ws.close)
        # Another token is not counted with pat's.
        other = await connected(url, shop.tokens["pia"], protocol)
        open_.push_async_callback(other.close)
        with pytest.raises(ConnectionClosed) as refused:
            await connected(url, shop.tokens["pat"], protocol)
        assert refused.value.rcvd is not None
        assert (refused.value.rcvd.code, refused.value.rcvd.reason) == (
            4429,
            "At most 3 sockets per token.",
        )
        # Once they close, their places are free again.
        await open_.pop_all().aclose()
        again = await connected(url, shop.tokens["pat"], protocol)
        await again.close()


async def test_one_address_holds_a_bounded_number_of_sockets(database_url: str, shop: Shop) -> None:
    async with own_server(database_url, websockets_per_address=4) as url, AsyncExitStack() as open_:
        for who in ("pat", "pia", "fin", "dee"):
            ws = await connected(url, shop.tokens[who], "graphql-transport-ws")
            open_.push_async_callback(ws.close)
        ws = await websockets.connect(url, subprotocols=["graphql-transport-ws"])
        with pytest.raises(ConnectionClosed):
            await ws.recv()
        assert (ws.close_code, ws.close_reason) == (4429, "At most 4 sockets per address.")


# ---------------------------------------------------------------------------------------------
# People by id.

USER = "query($id: ID!) { node(id: $id) { ... on User { id name } } }"
IS_ADMIN = "query($id: ID!) { node(id: $id) { ... on User { isAdmin } } }"

# Who may find whom by id: the person, admins, people sharing a department.
SEES = {
    ("pat", "pat"): True,
    ("pat", "pia"): True,  # both in print
    ("pat", "fin"): False,
    ("pat", "sam"): False,
    ("pat", "ada"): False,
    ("sam", "pat"): False,
    ("ada", "pat"): True,
    ("ada", "sam"): True,
}


@pytest.mark.parametrize(("who", "whom"), list(SEES), ids=[f"{a}-{b}" for a, b in SEES])
async def test_people_are_found_by_id_only_by_who_may_know_them(
    api: Client, shop: Shop, who: str, whom: str
) -> None:
    target = gid("User", shop.users[whom])
    body = await api.as_(shop.tokens[who])(USER, {"id": target})
    assert body["node"] == ({"id": target, "name": whom.title()} if SEES[who, whom] else None)


async def test_is_admin_is_for_the_person_and_admins(api: Client, shop: Shop) -> None:
    pia = gid("User", shop.users["pia"])
    refused = await api.as_(shop.tokens["pat"]).raw(IS_ADMIN, {"id": pia})
    assert [e["extensions"]["code"] for e in refused["errors"]] == ["FORBIDDEN"]
    mine = await api.as_(shop.tokens["pia"])(IS_ADMIN, {"id": pia})
    assert mine["node"] == {"isAdmin": False}
    theirs = await api.as_(shop.tokens["ada"])(IS_ADMIN, {"id": pia})
    assert theirs["node"] == {"isAdmin": False}


# ---------------------------------------------------------------------------------------------
# Answers and /metrics.


@pytest.mark.parametrize(
    ("method", "request_"),
    [
        ("POST", {"json": {"query": "{ me { name } }"}}),
        ("POST", {"content": b"not json", "headers": {"content-type": "application/json"}}),
        ("GET", {"params": {"query": "{ __typename }"}}),
    ],
    ids=["answer", "malformed", "get"],
)
async def test_answers_are_kept_by_no_cache(
    server: str, http: httpx.AsyncClient, method: str, request_: dict[str, Any]
) -> None:
    response = await http.request(method, server, **request_)
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["x-content-type-options"] == "nosniff"


WINDOW = {"from": "2026-10-05T00:00:00Z", "to": "2026-10-06T00:00:00Z"}


@pytest.mark.parametrize(
    "download", ["export/work-orders.csv", "export/transitions.csv", "export/ledger.csv", "ticket"]
)
async def test_downloads_are_kept_by_no_cache(
    server: str, http: httpx.AsyncClient, shop: Shop, download: str
) -> None:
    site = server.removesuffix("/graphql")
    url, params = f"{site}/{download}", WINDOW
    if download == "export/ledger.csv":
        params = {"customerId": gid("Customer", shop.customer_id)}
    elif download == "ticket":
        url, params = (
            f"{site}/orders/{gid('WorkOrder', await shop.order(['print']))}/ticket.pdf",
            {},
        )
    headers = {"authorization": f"Bearer {shop.tokens['abe']}"}
    response = await http.get(url, params=params, headers=headers)
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["x-content-type-options"] == "nosniff"


def serve_in_production(**env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pressroom.cli", "serve", "--port", str(free_port())],
        env={**os.environ, "PRESSROOM_ENV": "production", **env},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )


def test_production_will_not_serve_metrics_to_anyone() -> None:
    refused = serve_in_production()
    assert refused.returncode == 2
    assert "PRESSROOM_ENV=production needs PRESSROOM_METRICS_TOKEN" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_production_will_not_guess_its_own_address() -> None:
    """Without PRESSROOM_PUBLIC_URL, links would have to follow the Host each request names."""
    refused = serve_in_production(PRESSROOM_METRICS_TOKEN="s3cret")
    assert refused.returncode == 2
    assert "PRESSROOM_ENV=production needs PRESSROOM_PUBLIC_URL" in refused.stderr
    assert "Traceback" not in refused.stderr
