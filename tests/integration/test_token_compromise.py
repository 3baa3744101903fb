"""Tokens that cannot outlive a compromise: an API token needs the password again and
expires; API and display tokens cannot make tokens; a password set by an admin, or a
deactivation, ends every session and API token of that person (and the sockets they
opened); a password change ends the person's other sessions only, or with
revokeApiTokens their API tokens too, as logout everywhere can; a token that no longer
works says so, apart from a missing one."""

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import websockets
from sqlalchemy import text
from websockets.exceptions import ConnectionClosed

from tests.support.client import Client, gid
from tests.support.shop import PASSWORD, Shop
from tests.support.subscriptions import PROTOCOLS, QUEUE_EVENTS, RawSocket, cursor_now

CREATE_API = """mutation($i: CreateApiTokenInput!) { createApiToken(input: $i) {
  secret token { id kind expiresAt } userErrors { code field message } } }"""
CREATE_DISPLAY = """mutation($i: CreateDisplayTokenInput!) { createDisplayToken(input: $i) {
  secret token { id expiresAt } userErrors { code field message } } }"""
LOGIN = """mutation($i: LoginInput!) { login(input: $i) { token userErrors { code } } }"""
SET = """mutation($i: SetPasswordInput!) { setPassword(input: $i) { userErrors { code } } }"""
CHANGE = """mutation($i: ChangePasswordInput!) { changePassword(input: $i) {
  userErrors { code field } } }"""
DEACTIVATE = """mutation($i: DeactivateUserInput!) { deactivateUser(input: $i) {
  userErrors { code } } }"""
ME = "{ me { name } }"
WORK_ORDERS = "{ workOrders { edges { cursor } } }"
STALE = "This token is no longer valid: sign in again."


async def api_token(api: Client, session: str, password: str, name: str = "ERP") -> str:
    made = await api.as_(session)(CREATE_API, {"i": {"name": name, "password": password}})
    assert made["createApiToken"]["userErrors"] == [], made
    return str(made["createApiToken"]["secret"])


async def signed_in(api: Client, email: str, password: str) -> str:
    body = await api(LOGIN, {"i": {"email": email, "password": password}})
    return str(body["login"]["token"])


def codes(body: dict[str, Any]) -> list[str]:
    return [e["extensions"]["code"] for e in body.get("errors") or []]


def works(body: dict[str, Any]) -> bool:
    return not body.get("errors") and body["data"]["me"] is not None


async def test_an_api_token_asks_for_the_password_again(api: Client, shop: Shop) -> None:
    await shop.password_for("sam")
    wrong = await api.as_(shop.tokens["sam"])(
        CREATE_API, {"i": {"name": "ERP", "password": "not-the-password"}}
    )
    [error] = wrong["createApiToken"]["userErrors"]
    assert (error["code"], error["field"]) == ("INVALID_INPUT", "password")
    assert wrong["createApiToken"]["token"] is None
    secret = await api_token(api, shop.tokens["sam"], PASSWORD)
    assert works(await api.as_(secret).raw(ME))


@pytest.mark.parametrize("mutation", ["createApiToken", "createDisplayToken"])
async def test_api_and_display_tokens_cannot_make_tokens(
    api: Client, shop: Shop, mutation: str
) -> None:
    await shop.password_for("ada")
    admins_api_token = await api_token(api, shop.tokens["ada"], PASSWORD)
    display = await api.as_(shop.tokens["ada"])(
        CREATE_DISPLAY, {"i": {"name": "Wall", "departmentCodes": ["print"]}}
    )
    wall = display["createDisplayToken"]["secret"]
    query, inputs = {
        "createApiToken": (CREATE_API, {"name": "More", "password": PASSWORD}),
        "createDisplayToken": (CREATE_DISPLAY, {"name": "More", "departmentCodes": ["print"]}),
    }[mutation]
    for token in (admins_api_token, wall):
        body = await api.as_(token).raw(query, {"i": inputs})
        assert codes(body) == ["FORBIDDEN"], body
        assert body["data"] is None


async def test_an_admin_setting_a_password_ends_sessions_and_api_tokens(
    api: Client, shop: Shop
) -> None:
    await shop.password_for("sam")
    session = await signed_in(api, "sam@shop.test", PASSWORD)
    secret = await api_token(api, session, PASSWORD)
    user = gid("User", shop.users["sam"])
    done = await api.as_(shop.tokens["ada"])(SET, {"i": {"userId": user, "password": "new-one-9"}})
    assert done["setPassword"]["userErrors"] == []
    for token in (session, secret, shop.tokens["sam"]):
        body = await api.as_(token).raw(WORK_ORDERS)
        assert codes(body) == ["UNAUTHENTICATED"]
        assert body["errors"][0]["message"] == STALE


async def test_deactivation_ends_sessions_and_api_tokens_for_good(api: Client, shop: Shop) -> None:
    await shop.password_for("sam")
    secret = await api_token(api, shop.tokens["sam"], PASSWORD)
    user = gid("User", shop.users["sam"])
    await api.as_(shop.tokens["ada"])(DEACTIVATE, {"i": {"userId": user}})
    await api.as_(shop.tokens["ada"])(
        "mutation($i: ReactivateUserInput!) { reactivateUser(input: $i) { userErrors { code } } }",
        {"i": {"userId": user}},
    )
    # Back, but not her old tokens: they were revoked, not suspended.
    for token in (secret, shop.tokens["sam"]):
        assert codes(await api.as_(token).raw(WORK_ORDERS)) == ["UNAUTHENTICATED"]
    assert await signed_in(api, "sam@shop.test", PASSWORD)


async def test_changing_ones_password_ends_other_sessions_and_keeps_api_tokens(
    api: Client, shop: Shop
) -> None:
    await shop.password_for("sam")
    here = await signed_in(api, "sam@shop.test", PASSWORD)
    there = await signed_in(api, "sam@shop.test", PASSWORD)
    secret = await api_token(api, here, PASSWORD)
    change = {"oldPassword": PASSWORD, "newPassword": "brand-new-secret"}
    done = await api.as_(here)(CHANGE, {"i": change})
    assert done["changePassword"]["userErrors"] == []
    assert works(await api.as_(here).raw(ME))
    assert works(await api.as_(secret).raw(ME))
    assert not works(await api.as_(there).raw(ME))
    assert not works(await api.as_(shop.tokens["sam"]).raw(ME))


LOGOUT = """mutation($i: LogoutInput!) { logout(input: $i) { userErrors { code } } }"""


@pytest.mark.parametrize("how", ["changePassword", "logout"])
async def test_a_person_who_suspects_a_leak_ends_everything_at_once(
    api: Client, shop: Shop, how: str
) -> None:
    await shop.password_for("sam")
    await shop.password_for("pat")
    here = await signed_in(api, "sam@shop.test", PASSWORD)
    there = await signed_in(api, "sam@shop.test", PASSWORD)
    secrets = [await api_token(api, here, PASSWORD, name) for name in ("ERP", "Script")]
    others = [await api_token(api, shop.tokens["pat"], PASSWORD, "Pat's")]
    if how == "changePassword":
        change = {"oldPassword": PASSWORD, "newPassword": "brand-new-secret"}
        done = await api.as_(here)(CHANGE, {"i": {**change, "revokeApiTokens": True}})
        assert done["changePassword"]["userErrors"] == []
        assert works(await api.as_(here).raw(ME))
    else:
        out = await api.as_(here)(LOGOUT, {"i": {"everywhere": True, "revokeApiTokens": True}})
        assert out["logout"]["userErrors"] == []
        assert not works(await api.as_(here).raw(ME))
    for gone in [there, shop.tokens["sam"], *secrets]:
        assert not works(await api.as_(gone).raw(ME))
    # Only hers: another person's tokens work on.
    for kept in [*others, shop.tokens["pat"]]:
        assert works(await api.as_(kept).raw(ME))


async def test_api_tokens_end_with_logout_only_everywhere(api: Client, shop: Shop) -> None:
    await shop.password_for("sam")
    secret = await api_token(api, shop.tokens["sam"], PASSWORD)
    out = await api.as_(shop.tokens["sam"])(LOGOUT, {"i": {"revokeApiTokens": True}})
    assert out["logout"]["userErrors"] == [{"code": "INVALID_INPUT"}]
    assert works(await api.as_(shop.tokens["sam"]).raw(ME))
    assert works(await api.as_(secret).raw(ME))


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_password_set_by_an_admin_closes_the_api_tokens_sockets(
    api: Client, server: str, shop: Shop, protocol: str
) -> None:
    await shop.password_for("pat")
    secret = await api_token(api, shop.tokens["pat"], PASSWORD)
    socket = await RawSocket.open(server, secret, protocol)
    await socket.subscribe(
        QUEUE_EVENTS, {"department": "print", "after": await cursor_now(api, shop.tokens["pat"])}
    )
    user = gid("User", shop.users["pat"])
    await api.as_(shop.tokens["ada"])(SET, {"i": {"userId": user, "password": "new-one-9"}})
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await socket.next()
    assert closed.value.rcvd is not None
    assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (4403, "Token revoked")


async def test_a_token_that_no_longer_works_says_so(api: Client, shop: Shop) -> None:
    missing = await api.as_(None).raw(WORK_ORDERS)
    assert codes(missing) == ["UNAUTHENTICATED"]
    assert missing["errors"][0]["message"].startswith("Sign in first")
    await shop.password_for("sam")
    revoked = await signed_in(api, "sam@shop.test", PASSWORD)
    await api.as_(revoked)(
        "mutation { logout(input: {}) { userErrors { code } } }",
    )
    expired = await api_token(api, shop.tokens["sam"], PASSWORD)
    async with shop.engine.begin() as conn:
        await conn.execute(
            text("UPDATE tokens SET expires_at = now() - interval '1 second' WHERE kind = 'API'")
        )
    for token in ("prs_s_never-issued", revoked, expired):
        body = await api.as_(token).raw(WORK_ORDERS)
        assert codes(body) == ["UNAUTHENTICATED"]
        assert body["errors"][0]["message"] == STALE


async def test_a_socket_with_a_stale_token_is_refused_saying_so(server: str) -> None:
    """The legacy protocol carries the reason (graphql-transport-ws only closes, 4403)."""
    url = server.replace("http://", "ws://")
    async with websockets.connect(url, subprotocols=["graphql-ws"]) as ws:
        init = {"type": "connection_init", "payload": {"authorization": "Bearer prs_s_gone"}}
        await ws.send(json.dumps(init))
        reply = json.loads(await ws.recv())
    assert reply == {"type": "connection_error", "payload": {"message": STALE}}


async def test_a_display_token_takes_an_expiry(api: Client, shop: Shop) -> None:
    soon = datetime.now(UTC) + timedelta(days=7)
    made = await api.as_(shop.tokens["ada"])(
        CREATE_DISPLAY,
        {"i": {"name": "Wall", "departmentCodes": ["print"], "expiresAt": soon.isoformat()}},
    )
    expires = datetime.fromisoformat(made["createDisplayToken"]["token"]["expiresAt"])
    assert abs((expires - soon).total_seconds()) < 1
    queue = 'query { queue(department: "print") { eventCursor } }'
    assert not (await api.as_(made["createDisplayToken"]["secret"]).raw(queue)).get("errors")
