"""Access that follows changes: live subscriptions end when their user loses the right to
them (membership, deactivation, expiry), on both websocket protocols, before any event
committed after the change; sockets whose client is already gone are closed without an
error left behind; and the people and token operations behind those changes."""

import asyncio
import gc
import json
import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import websockets
from sqlalchemy import text
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket
from websockets.exceptions import ConnectionClosed

from api.viewer import Viewer
from db import events, people
from db.engine import unit_of_work
from db.fanout import ACCESS_CHANNEL
from domain.enums import TokenKind
from graph.live import LiveConnections
from pressroom.settings import Settings
from tests.support.client import Client, gid
from tests.support.servers import config_for, free_port, serve
from tests.support.shop import Shop
from tests.support.subscriptions import (
    PROTOCOLS,
    START,
    RawSocket,
    cursor_now,
    error_codes,
    print_tasks,
)

SET_DEPARTMENTS = """mutation($i: SetUserDepartmentsInput!) { setUserDepartments(input: $i) {
  user { id } userErrors { code } } }"""
DEACTIVATE = """mutation($i: DeactivateUserInput!) { deactivateUser(input: $i) {
  user { isActive } userErrors { code field message } } }"""
REACTIVATE = """mutation($i: ReactivateUserInput!) { reactivateUser(input: $i) {
  user { isActive } userErrors { code field message } } }"""
LOGIN = """mutation($i: LoginInput!) { login(input: $i) { token tokenId userErrors { code } } }"""
QUEUE_EVENTS = """subscription($after: String) {
  queueEvents(department: "print", after: $after) { cursor task { id status } } }"""


async def start(api: Client, shop: Shop, who: str, task: int) -> None:
    moved = await api.as_(shop.tokens[who])(START, {"i": {"taskId": gid("DepartmentTask", task)}})
    assert moved["startTask"]["changed"] is True


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_worker_removed_from_print_receives_nothing_committed_after(
    api: Client, server: str, shop: Shop, protocol: str
) -> None:
    before, after = await print_tasks(shop, 2)
    cursor = await cursor_now(api, shop.tokens["pat"])
    socket = await RawSocket.open(server, shop.tokens["pat"], protocol)
    try:
        await socket.subscribe(QUEUE_EVENTS, {"after": cursor})
        await start(api, shop, "pia", before)
        first = await socket.next()
        assert first["type"] in ("next", "data")
        assert first["payload"]["data"]["queueEvents"]["task"]["id"] == gid(
            "DepartmentTask", before
        )
        removed = await api.as_(shop.tokens["ada"])(
            SET_DEPARTMENTS,
            {"i": {"userId": gid("User", shop.users["pat"]), "departmentCodes": []}},
        )
        assert removed["setUserDepartments"]["userErrors"] == []
        await start(api, shop, "pia", after)
        ended = await socket.next()
        assert error_codes(ended) == ["FORBIDDEN"], ended
        # Nothing else arrives: the later start was never delivered to her.
        if ended["type"] in ("next", "data"):
            done = await socket.next()
            assert done["type"] == "complete"
        with pytest.raises(TimeoutError):
            await socket.next(within=1)
    finally:
        await socket.ws.close()


async def remove_through_the_api(api: Client, shop: Shop, app: Any, who: str = "pat") -> None:
    """By a mutation of this process, which clears its viewer cache at once."""
    removed = await api.as_(shop.tokens["ada"])(
        SET_DEPARTMENTS,
        {"i": {"userId": gid("User", shop.users[who]), "departmentCodes": []}},
    )
    assert removed["setUserDepartments"]["userErrors"] == []


async def remove_as_another_process(api: Client, shop: Shop, app: Any, who: str = "pat") -> None:
    """Written straight to the database, as a second server would: nothing clears this
    process's viewer cache but the change's event, once its feed hands it out."""
    feed = app.state.services.feed
    async with feed.subscribe(ACCESS_CHANNEL) as handed_out:
        async with unit_of_work(shop.engine) as conn:
            await people.set_user_departments(conn, shop.users[who], [])
        await feed.catch_up()
        async with asyncio.timeout(10):
            await handed_out.get()


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_removal_during_a_replay_stops_it_before_anything_committed_after(
    api: Client,
    server: str,
    shop: Shop,
    protocol: str,
    running_app: tuple[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long replay (a wall display back after an outage) reads the log page by page:
    an access change handed out between two pages is checked before the next one, so
    what was committed after it is never replayed to her."""
    app = running_app[1]
    t1, t2, t3 = await print_tasks(shop, 3)
    cursor = await cursor_now(api, shop.tokens["pat"])
    await start(api, shop, "pia", t1)
    await start(api, shop, "pia", t2)
    monkeypatch.setattr(events, "PAGE", 1)
    read_page = events.read_page
    replayed_pages = 0

    async def removed_after_the_first_page(
        conn: Any,
        resume: events.Resume,
        settled: events.Position,
        where: events.Filter | None = None,
    ) -> list[events.StoredEvent]:
        nonlocal replayed_pages
        if where is None:  # the feed's reads
            return await read_page(conn, resume, settled)
        if where.department_id is not None:
            replayed_pages += 1
            if replayed_pages == 2:
                await remove_as_another_process(api, shop, app)
                await start(api, shop, "pia", t3)
                await app.state.services.feed.catch_up()
        return await read_page(conn, resume, settled, where)

    monkeypatch.setattr(events, "read_page", removed_after_the_first_page)
    socket = await RawSocket.open(server, shop.tokens["pat"], protocol)
    try:
        await socket.subscribe(QUEUE_EVENTS, {"after": cursor})
        received = [await socket.next() for _ in range(3)]
    finally:
        await socket.ws.close()
    # t1 and t2 were committed while she was in print; t3 after she left.
    assert [m["payload"]["data"]["queueEvents"]["task"]["id"] for m in received[:2]] == [
        gid("DepartmentTask", t1),
        gid("DepartmentTask", t2),
    ]
    assert error_codes(received[2]) == ["FORBIDDEN"], received[2]


@pytest.mark.parametrize("remove", [remove_through_the_api, remove_as_another_process])
@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_subscription_started_after_a_removal_on_an_older_connection_is_refused(
    api: Client,
    server: str,
    shop: Shop,
    protocol: str,
    running_app: tuple[str, Any],
    remove: Callable[[Client, Shop, Any], Awaitable[None]],
) -> None:
    """The connection loaded her (and the process's cache kept her) while she was in
    print; she is removed before it subscribes. Her rights are those of now."""
    [task] = await print_tasks(shop, 1)
    cursor = await cursor_now(api, shop.tokens["pat"])
    socket = await RawSocket.open(server, shop.tokens["pat"], protocol)
    try:
        await remove(api, shop, running_app[1])
        await start(api, shop, "pia", task)
        await socket.subscribe(QUEUE_EVENTS, {"after": cursor})
        refused = await socket.next()
        assert error_codes(refused) == ["FORBIDDEN"], refused
    finally:
        await socket.ws.close()


OVER_THE_SOCKET = [
    # (who, an operation her membership allowed when her socket opened)
    ("pat", '{ queue(department: "print") { edges { node { id } } } }'),
    ("sam", 'mutation { createCustomer(input: {name: "Over the socket"}) { customer { id } } }'),
]


@pytest.mark.parametrize("remove", [remove_through_the_api, remove_as_another_process])
@pytest.mark.parametrize(("who", "operation"), OVER_THE_SOCKET)
async def test_queries_and_mutations_over_an_older_socket_take_her_rights_of_now(
    api: Client,
    server: str,
    shop: Shop,
    running_app: tuple[str, Any],
    who: str,
    operation: str,
    remove: Callable[..., Awaitable[None]],
) -> None:
    """The socket loaded her while she was a member; she is removed before she sends a
    query or a mutation on it. Over HTTP that is refused at once; so it is here, and
    nothing is written. (The legacy graphql-ws protocol takes subscriptions only.)"""
    customers = await count_customers(shop)
    socket = await RawSocket.open(server, shop.tokens[who], "graphql-transport-ws")
    try:
        await remove(api, shop, running_app[1], who)
        await socket.subscribe(operation, {})
        answer = await socket.next()
    finally:
        await socket.ws.close()
    assert error_codes(answer) == ["FORBIDDEN"], answer
    assert await count_customers(shop) == customers


async def count_customers(shop: Shop) -> int:
    async with shop.engine.connect() as conn:
        return int(await conn.scalar(text("SELECT count(*) FROM customers")))


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_member_added_after_her_socket_opened_may_subscribe_on_it(
    api: Client, server: str, shop: Shop, protocol: str
) -> None:
    [task] = await print_tasks(shop, 1)
    cursor = await cursor_now(api, shop.tokens["pat"])
    # Sam (Sales) is no member of print when her socket opens.
    socket = await RawSocket.open(server, shop.tokens["sam"], protocol)
    try:
        added = await api.as_(shop.tokens["ada"])(
            SET_DEPARTMENTS,
            {
                "i": {
                    "userId": gid("User", shop.users["sam"]),
                    "departmentCodes": ["sales", "print"],
                }
            },
        )
        assert added["setUserDepartments"]["userErrors"] == []
        await start(api, shop, "pia", task)
        await socket.subscribe(QUEUE_EVENTS, {"after": cursor})
        received = await socket.next()
    finally:
        await socket.ws.close()
    assert received["payload"]["data"]["queueEvents"]["task"]["id"] == gid("DepartmentTask", task)


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_deactivating_a_user_ends_her_tokens_and_sockets_at_once(
    api: Client, server: str, shop: Shop, protocol: str
) -> None:
    [task] = await print_tasks(shop, 1)
    cursor = await cursor_now(api, shop.tokens["pat"])
    socket = await RawSocket.open(server, shop.tokens["pat"], protocol)
    await socket.subscribe(QUEUE_EVENTS, {"after": cursor})
    user = gid("User", shop.users["pat"])
    done = await api.as_(shop.tokens["ada"])(DEACTIVATE, {"i": {"userId": user}})
    assert done["deactivateUser"] == {"user": {"isActive": False}, "userErrors": []}
    await start(api, shop, "pia", task)
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            message = await socket.next()
            assert message["type"] != "next" or error_codes(message), message
            assert message["type"] != "data" or error_codes(message), message
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
    body = await api.as_(shop.tokens["pat"]).raw("{ me { id } }")
    assert body["data"]["me"] is None
    body = await api.as_(shop.tokens["pat"]).raw("{ workOrders { edges { cursor } } }")
    assert [e["extensions"]["code"] for e in body["errors"]] == ["UNAUTHENTICATED"]
    # Reactivated, she signs in again: the account was presumed compromised, so her
    # session was revoked, not just suspended.
    again = await api.as_(shop.tokens["ada"])(REACTIVATE, {"i": {"userId": user}})
    assert again["reactivateUser"]["user"] == {"isActive": True}
    assert (await api.as_(shop.tokens["pat"]).raw("{ me { id } }"))["data"]["me"] is None


async def test_each_membership_change_in_one_request_shows_in_its_own_payload(
    api: Client, shop: Shop
) -> None:
    # A user's department nodes are made once per request; a mutation's commit must
    # forget them, or the second payload would show the first one's membership.
    pat = gid("User", shop.users["pat"])
    both = await api.as_(shop.tokens["ada"])(
        """mutation($a: SetUserDepartmentsInput!, $b: SetUserDepartmentsInput!) {
          a: setUserDepartments(input: $a) { user { departments { code } } }
          b: setUserDepartments(input: $b) { user { departments { code } } } }""",
        {
            "a": {"userId": pat, "departmentCodes": ["print"]},
            "b": {"userId": pat, "departmentCodes": ["design", "print"]},
        },
    )
    assert [d["code"] for d in both["a"]["user"]["departments"]] == ["print"]
    assert [d["code"] for d in both["b"]["user"]["departments"]] == ["design", "print"]


async def test_admins_cannot_deactivate_themselves_or_twice(api: Client, shop: Shop) -> None:
    ada = api.as_(shop.tokens["ada"])
    own = await ada(DEACTIVATE, {"i": {"userId": gid("User", shop.users["ada"])}})
    assert [e["code"] for e in own["deactivateUser"]["userErrors"]] == ["INVALID_INPUT"]
    pat = {"i": {"userId": gid("User", shop.users["pat"])}}
    await ada(DEACTIVATE, pat)
    twice = await ada(DEACTIVATE, pat)
    assert [e["code"] for e in twice["deactivateUser"]["userErrors"]] == ["INVALID_TRANSITION"]
    refused = await api.as_(shop.tokens["sam"]).raw(DEACTIVATE, pat)
    assert [e["extensions"]["code"] for e in refused["errors"]] == ["FORBIDDEN"]


async def test_an_expired_session_is_closed_within_seconds(server: str, shop: Shop) -> None:
    async with unit_of_work(shop.engine) as conn:
        issued = await people.issue_token(
            conn, kind=TokenKind.SESSION, name="short", user_id=shop.users["pat"], ttl_seconds=2
        )
    socket = await RawSocket.open(server, issued.token, "graphql-transport-ws")
    await socket.subscribe(QUEUE_EVENTS, {"after": None})
    with pytest.raises(ConnectionClosed) as closed:
        async with asyncio.timeout(10):
            while True:
                await socket.ws.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401


# ---------------------------------------------------------------------------------------------
# Passwords, sessions and tokens.

PASSWORD = "correct-horse-battery"
CHANGE = """mutation($i: ChangePasswordInput!) { changePassword(input: $i) {
  user { id } userErrors { code field } } }"""
SET = """mutation($i: SetPasswordInput!) { setPassword(input: $i) {
  user { id } userErrors { code field } } }"""
LOGOUT = """mutation($i: LogoutInput!) { logout(input: $i) { token { id revokedAt }
  userErrors { code } } }"""
MY_TOKENS = "{ myTokens(first: 100) { edges { node { id kind name expiresAt revokedAt } } } }"


async def login(api: Client, email: str, password: str) -> dict[str, Any]:
    result = await api(LOGIN, {"i": {"email": email, "password": password}})
    payload: dict[str, Any] = result["login"]
    return payload


@pytest.fixture
async def wal(api: Client, shop: Shop) -> str:
    async with unit_of_work(shop.engine) as conn:
        await people.create_user(
            conn,
            email="wal@shop.test",
            name="Wal",
            password=PASSWORD,
            is_admin=False,
            department_ids=[shop.departments["print"]],
        )
    return "wal@shop.test"


async def test_login_returns_the_sessions_id_and_my_tokens_lists_it(api: Client, wal: str) -> None:
    session = await login(api, wal, PASSWORD)
    mine = await api.as_(session["token"])(MY_TOKENS)
    nodes = [e["node"] for e in mine["myTokens"]["edges"]]
    assert [n["id"] for n in nodes] == [session["tokenId"]]
    assert nodes[0]["kind"] == "SESSION"
    assert session["token"] not in json.dumps(mine)


FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"


async def test_a_session_is_named_by_the_browser_and_the_moment_it_signed_in(
    api: Client, wal: str
) -> None:
    variables = {"i": {"email": wal, "password": PASSWORD}}
    answer = await api.http.post(
        api.url, json={"query": LOGIN, "variables": variables}, headers={"user-agent": FIREFOX}
    )
    session = answer.json()["data"]["login"]
    bare = await login(api, wal, PASSWORD)
    mine = await api.as_(session["token"])(MY_TOKENS)
    names = {e["node"]["id"]: e["node"]["name"] for e in mine["myTokens"]["edges"]}
    assert re.fullmatch(
        r"Firefox on Windows, \d{1,2} [A-Z][a-z]{2} \d\d:\d\d", names[session["tokenId"]]
    )
    assert re.fullmatch(r"Signed in, \d{1,2} [A-Z][a-z]{2} \d\d:\d\d", names[bare["tokenId"]])


async def test_only_admins_list_every_token(api: Client, shop: Shop) -> None:
    refused = await api.as_(shop.tokens["pat"]).raw("{ tokens { edges { cursor } } }")
    assert [e["extensions"]["code"] for e in refused["errors"]] == ["FORBIDDEN"]
    every = await api.as_(shop.tokens["ada"])(
        "{ tokens(first: 100) { edges { node { id user { name } } } } }"
    )
    nodes = [e["node"] for e in every["tokens"]["edges"]]
    assert len(nodes) == len(shop.tokens)
    # Someone else's token is no node of yours; your own is.
    node = "query($id: ID!) { node(id: $id) { id } }"
    theirs = next(n["id"] for n in nodes if n["user"]["name"] != "Pat")
    mine = next(n["id"] for n in nodes if n["user"]["name"] == "Pat")
    assert (await api.as_(shop.tokens["pat"])(node, {"id": theirs}))["node"] is None
    assert (await api.as_(shop.tokens["pat"])(node, {"id": mine}))["node"] == {"id": mine}


async def test_change_password_needs_the_old_one_and_ends_other_sessions(
    api: Client, wal: str
) -> None:
    here = await login(api, wal, PASSWORD)
    there = await login(api, wal, PASSWORD)
    wrong = await api.as_(here["token"])(
        CHANGE, {"i": {"oldPassword": "nope-nope-nope", "newPassword": "brand-new-secret"}}
    )
    assert wrong["changePassword"]["userErrors"] == [
        {"code": "INVALID_INPUT", "field": "oldPassword"}
    ]
    short = await api.as_(here["token"])(
        CHANGE, {"i": {"oldPassword": PASSWORD, "newPassword": "short"}}
    )
    assert short["changePassword"]["userErrors"] == [
        {"code": "INVALID_INPUT", "field": "newPassword"}
    ]
    done = await api.as_(here["token"])(
        CHANGE, {"i": {"oldPassword": PASSWORD, "newPassword": "brand-new-secret"}}
    )
    assert done["changePassword"]["userErrors"] == []
    assert (await api.as_(here["token"])("{ me { name } }"))["me"] == {"name": "Wal"}
    assert (await api.as_(there["token"]).raw("{ me { name } }"))["data"]["me"] is None
    assert (await login(api, wal, PASSWORD))["userErrors"] == [{"code": "INVALID_INPUT"}]
    assert (await login(api, wal, "brand-new-secret"))["token"]


async def test_an_admin_sets_a_password_and_the_users_sessions_end(
    api: Client, shop: Shop, wal: str
) -> None:
    before = await login(api, wal, PASSWORD)
    users = await api.as_(shop.tokens["ada"])(
        "{ users(first: 100) { edges { node { id name } } } }"
    )
    wal_id = next(e["node"]["id"] for e in users["users"]["edges"] if e["node"]["name"] == "Wal")
    done = await api.as_(shop.tokens["ada"])(
        SET, {"i": {"userId": wal_id, "password": "set-by-admin-1"}}
    )
    assert done["setPassword"]["userErrors"] == []
    assert (await api.as_(before["token"]).raw("{ me { id } }"))["data"]["me"] is None
    assert (await login(api, wal, "set-by-admin-1"))["token"]
    refused = await api.as_(shop.tokens["pat"]).raw(
        SET, {"i": {"userId": wal_id, "password": "set-by-admin-2"}}
    )
    assert [e["extensions"]["code"] for e in refused["errors"]] == ["FORBIDDEN"]


@pytest.mark.parametrize("everywhere", [False, True])
async def test_logout_revokes_the_callers_token(api: Client, wal: str, everywhere: bool) -> None:
    here = await login(api, wal, PASSWORD)
    there = await login(api, wal, PASSWORD)
    out = await api.as_(here["token"])(LOGOUT, {"i": {"everywhere": everywhere}})
    assert out["logout"]["token"]["id"] == here["tokenId"]
    assert out["logout"]["token"]["revokedAt"] is not None
    assert (await api.as_(here["token"]).raw("{ me { id } }"))["data"]["me"] is None
    other = (await api.as_(there["token"]).raw("{ me { id } }"))["data"]["me"]
    assert (other is None) is everywhere


async def test_api_tokens_take_an_optional_expiry(api: Client, shop: Shop) -> None:
    create = """mutation($i: CreateApiTokenInput!) { createApiToken(input: $i) {
      secret token { expiresAt } userErrors { code field } } }"""
    sam = api.as_(shop.tokens["sam"])
    password = await shop.password_for("sam")
    past = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    refused = await sam(create, {"i": {"name": "old", "password": password, "expiresAt": past}})
    assert refused["createApiToken"]["userErrors"] == [
        {"code": "INVALID_INPUT", "field": "expiresAt"}
    ]
    soon = datetime.now(UTC) + timedelta(days=30)
    made = await sam(
        create, {"i": {"name": "ci", "password": password, "expiresAt": soon.isoformat()}}
    )
    expires = datetime.fromisoformat(made["createApiToken"]["token"]["expiresAt"])
    assert abs((expires - soon).total_seconds()) < 1
    # Never "never": 90 days when omitted, at most 365 (PRESSROOM_API_TOKEN_MAX_DAYS).
    default = await sam(create, {"i": {"name": "default", "password": password}})
    expires = datetime.fromisoformat(default["createApiToken"]["token"]["expiresAt"])
    assert abs((expires - datetime.now(UTC) - timedelta(days=90)).total_seconds()) < 60
    too_far = (datetime.now(UTC) + timedelta(days=366)).isoformat()
    refused = await sam(create, {"i": {"name": "far", "password": password, "expiresAt": too_far}})
    assert refused["createApiToken"]["userErrors"] == [
        {"code": "INVALID_INPUT", "field": "expiresAt"}
    ]
    assert (await api.as_(made["createApiToken"]["secret"])("{ me { name } }"))["me"]


async def test_closing_sockets_whose_clients_are_gone_leaves_no_error_behind() -> None:
    """Signing out in the app ends the session while its page's sockets go: the revocation
    then closes sockets whose clients are gone. Each close is a task no one awaits; what
    it met must not be left for asyncio to report as never retrieved."""
    live = LiveConnections()
    left: list[asyncio.Event] = []
    held: list[WebSocket] = []  # the server's side of each socket, as a handler keeps it

    async def endpoint(websocket: WebSocket) -> None:
        await websocket.accept()
        held.append(websocket)
        live.add(Viewer(7, TokenKind.SESSION, 1, False, frozenset(), frozenset()), websocket)
        await websocket.receive()  # the client's close
        left[len(held) - 1].set()

    settings = Settings()
    port = free_port()
    app = Starlette(routes=[WebSocketRoute("/ws", endpoint)])
    server, task = await serve(config_for(app, settings, port))
    loop = asyncio.get_running_loop()
    reported: list[dict[str, Any]] = []
    before = loop.get_exception_handler()
    loop.set_exception_handler(lambda _, context: reported.append(context))
    try:
        for _ in range(2):
            left.append(asyncio.Event())
            async with websockets.connect(f"ws://127.0.0.1:{port}/ws"):
                pass
        await asyncio.gather(*(gone.wait() for gone in left))
        await live.close_token(7)
        closing = list(live._closing)
        assert len(closing) == 2
        await asyncio.wait(closing)
        del closing
        gc.collect()
    finally:
        loop.set_exception_handler(before)
        server.should_exit = True
        await task
    assert reported == []
    assert live.count() == 0
