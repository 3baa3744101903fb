"""Signing in and the credentials, through the real HTTP API: anonymous callers are
UNAUTHENTICATED; bad, revoked, expired and inactive credentials stop working; `login` gives a
session token (and none for a wrong password or an inactive user); API tokens act as their
creator until revoked, `Token.expired` is the server's own check, admins revoke anyone's
token, and display tokens are made by admins only and read only.
"""

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from db import people
from db.engine import unit_of_work
from tests.support.access import codes, display_token, post, sql
from tests.support.client import Client, gid
from tests.support.database import table_snapshot, task_ids
from tests.support.shop import Shop

PASSWORD = "correct-horse-battery"


READS = {
    "workOrders": "{ workOrders { edges { node { id } } } }",
    "workOrder": "query($wo: ID!) { workOrder(id: $wo) { id } }",
    "queue": '{ queue(department: "print") { edges { node { id } } } }',
    "departments": "{ departments { code } }",
    "node": "query($wo: ID!) { node(id: $wo) { id } }",
    "users": "{ users { edges { node { id } } } }",
    "customers": "{ customers { edges { node { id } } } }",
    "customer": "query($c: ID!) { customer(id: $c) { name } }",
}


async def _read_vars(shop: Shop) -> dict[str, Any]:
    order = await shop.order(["print"])
    return {"wo": gid("WorkOrder", order), "c": gid("Customer", shop.customer_id)}


def _used(query: str, variables: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in variables.items() if f"${k}" in query}


@pytest.mark.parametrize("field", sorted(READS))
async def test_anonymous_reads_are_unauthenticated(api: Client, shop: Shop, field: str) -> None:
    query = READS[field]
    variables = _used(query, await _read_vars(shop))
    body = await post(api, None, query, variables)
    assert codes(body) == ["UNAUTHENTICATED"]
    assert "Authorization: Bearer" in body["errors"][0]["message"]
    assert body["data"] is None or body["data"][field] is None
    # The same read works with a token, so the refusal is about the missing token.
    allowed = await post(api, shop.tokens["ada"], query, variables)
    assert "errors" not in allowed, allowed
    assert allowed["data"][field] is not None


async def test_anonymous_me_is_null(api: Client, shop: Shop) -> None:
    assert await post(api, None, "{ me { id } }") == {"data": {"me": None}}
    me = await post(api, shop.tokens["pat"], "{ me { id name } }")
    assert me["data"]["me"] == {"id": gid("User", shop.users["pat"]), "name": "Pat"}


@pytest.mark.parametrize(
    "authorization",
    [
        pytest.param("Bearer prs_s_not-a-real-token", id="unknown-token"),
        pytest.param("Bearer", id="bearer-without-token"),
        pytest.param("Basic c2FtOnNlY3JldA==", id="basic-scheme"),
        pytest.param("Bearer " + "x" * 5000, id="oversized-token"),
    ],
)
async def test_bad_credentials_are_unauthenticated(
    api: Client, shop: Shop, authorization: str
) -> None:
    response = await api.http.post(
        api.url,
        json={"query": "{ workOrders { edges { node { id } } } }"},
        headers={"authorization": authorization},
    )
    assert response.status_code == 200
    assert codes(response.json()) == ["UNAUTHENTICATED"]


@pytest.mark.parametrize(
    ("update", "label"),
    [
        ("UPDATE tokens SET revoked_at = now() WHERE user_id = :u", "revoked"),
        (
            "UPDATE tokens SET expires_at = now() - interval '1 second' WHERE user_id = :u",
            "expired",
        ),
        ("UPDATE users SET is_active = false WHERE id = :u", "inactive-user"),
    ],
    ids=["revoked", "expired", "inactive-user"],
)
async def test_revoked_expired_or_inactive_credentials_stop_working(
    api: Client, shop: Shop, update: str, label: str, running_app: tuple[str, Any]
) -> None:
    order = await shop.order(["print"])
    tasks = await task_ids(shop.engine, order)
    read = "{ workOrders { edges { node { id } } } }"
    assert "errors" not in await post(api, shop.tokens["pat"], read)

    await sql(shop.engine, update, u=shop.users["pat"])
    # Written behind the API's back (no event), the change reaches a server within its
    # viewer cache's few seconds; this test does not wait for them.
    running_app[1].state.services.viewers.clear()

    assert codes(await post(api, shop.tokens["pat"], read)) == ["UNAUTHENTICATED"], label
    assert codes(await post(api, shop.tokens["pat"], READS["queue"])) == ["UNAUTHENTICATED"]
    assert (await post(api, shop.tokens["pat"], "{ me { id } }"))["data"]["me"] is None
    before = await table_snapshot(shop.engine)
    start = await post(
        api,
        shop.tokens["pat"],
        "mutation($t: ID!) { startTask(input: {taskId: $t}) { changed } }",
        {"t": gid("DepartmentTask", tasks["print"])},
    )
    assert codes(start) == ["UNAUTHENTICATED"]
    assert await table_snapshot(shop.engine) == before
    # Only pat's credentials were touched: pia, in the same department, still works.
    assert "errors" not in await post(api, shop.tokens["pia"], READS["queue"])


LOGIN = (
    "mutation($e: String!, $p: String!) { login(input: {email: $e, password: $p}) "
    "{ token user { id email } userErrors { code field message } } }"
)


async def _user_with_password(shop: Shop) -> int:
    async with unit_of_work(shop.engine) as conn:
        row = await people.create_user(
            conn,
            email="wal@shop.test",
            name="Wal",
            password=PASSWORD,
            is_admin=False,
            department_ids=[shop.departments["print"]],
        )
    return int(row.user.id)


async def test_login_returns_a_token_that_works_for_me(api: Client, shop: Shop) -> None:
    wal = await _user_with_password(shop)
    # Any spelling of the address finds the account, stored in its one normalised form.
    body = await post(api, None, LOGIN, {"e": "Wal@Shop.Test", "p": PASSWORD})
    assert "errors" not in body, body
    login = body["data"]["login"]
    assert login["userErrors"] == []
    assert login["user"] == {"id": gid("User", wal), "email": "wal@shop.test"}
    token = login["token"]
    assert token

    me = await post(api, token, "{ me { id name email departments { code } } }")
    assert me["data"]["me"] == {
        "id": gid("User", wal),
        "name": "Wal",
        "email": "wal@shop.test",
        "departments": [{"code": "print"}],
    }
    queue = await post(api, token, READS["queue"])
    assert "errors" not in queue
    # A session token is stored hashed and expires.
    rows = await sql(
        shop.engine,
        "SELECT kind, expires_at > now(), position(:t in encode(token_hash, 'escape')) "
        "FROM tokens WHERE user_id = :u",
        t=token,
        u=wal,
    )
    assert rows == [("SESSION", True, 0)]


async def test_login_with_a_wrong_password_issues_no_token(api: Client, shop: Shop) -> None:
    await _user_with_password(shop)
    before = await table_snapshot(shop.engine)
    body = await post(api, None, LOGIN, {"e": "wal@shop.test", "p": PASSWORD + "!"})
    login = body["data"]["login"]
    assert login["token"] is None
    assert login["user"] is None
    assert [(e["code"], e["field"]) for e in login["userErrors"]] == [("INVALID_INPUT", None)]
    assert await table_snapshot(shop.engine) == before


async def test_login_of_an_inactive_user_is_refused(api: Client, shop: Shop) -> None:
    wal = await _user_with_password(shop)
    await sql(shop.engine, "UPDATE users SET is_active = false WHERE id = :u", u=wal)
    body = await post(api, None, LOGIN, {"e": "wal@shop.test", "p": PASSWORD})
    assert body["data"]["login"]["token"] is None
    assert [e["code"] for e in body["data"]["login"]["userErrors"]] == ["INVALID_INPUT"]


CREATE_API_TOKEN = (
    "mutation($n: String!, $p: String!) { createApiToken(input: {name: $n, password: $p}) "
    "{ secret token { id kind name expiresAt revokedAt user { name } } "
    "userErrors { code field message } } }"
)
CREATE_DISPLAY_TOKEN = (
    "mutation($n: String!, $d: [String!]!) { createDisplayToken(input: {name: $n, "
    "departmentCodes: $d}) { secret token { id kind departments { code } } "
    "userErrors { code field message } } }"
)
REVOKE_TOKEN = (
    "mutation($id: ID!) { revokeToken(input: {tokenId: $id}) { token { revokedAt } "
    "userErrors { code field message } } }"
)
WORK_ORDER_IDS = "{ workOrders { edges { node { id } } } }"


async def test_api_token_acts_as_its_creator_until_revoked(api: Client, shop: Shop) -> None:
    password = await shop.password_for("sam")
    created = await post(api, shop.tokens["sam"], CREATE_API_TOKEN, {"n": "erp", "p": password})
    assert "errors" not in created, created
    payload = created["data"]["createApiToken"]
    assert payload["userErrors"] == []
    assert payload["token"]["kind"] == "API"
    assert payload["token"]["user"] == {"name": "Sam"}
    # 90 days unless asked otherwise.
    expires = datetime.fromisoformat(payload["token"]["expiresAt"])
    assert abs((expires - datetime.now(UTC) - timedelta(days=90)).total_seconds()) < 60
    secret, token_id = payload["secret"], payload["token"]["id"]

    assert "errors" not in await post(api, secret, WORK_ORDER_IDS)
    me = await post(api, secret, "{ me { name } }")
    assert me == {"data": {"me": {"name": "Sam"}}}

    # Someone else's token: not even its existence is confirmed, and it keeps working.
    before = await table_snapshot(shop.engine)
    other = await post(api, shop.tokens["pat"], REVOKE_TOKEN, {"id": token_id})
    errors = other["data"]["revokeToken"]["userErrors"]
    assert [(e["code"], e["field"]) for e in errors] == [("NOT_FOUND", "tokenId")]
    assert await table_snapshot(shop.engine) == before
    assert "errors" not in await post(api, secret, WORK_ORDER_IDS)

    revoked = await post(api, shop.tokens["sam"], REVOKE_TOKEN, {"id": token_id})
    assert revoked["data"]["revokeToken"]["userErrors"] == []
    assert revoked["data"]["revokeToken"]["token"]["revokedAt"] is not None
    assert codes(await post(api, secret, WORK_ORDER_IDS)) == ["UNAUTHENTICATED"]
    # Only that token: sam's session still works.
    assert "errors" not in await post(api, shop.tokens["sam"], WORK_ORDER_IDS)
    again = await post(api, shop.tokens["sam"], REVOKE_TOKEN, {"id": token_id})
    assert [e["code"] for e in again["data"]["revokeToken"]["userErrors"]] == ["INVALID_TRANSITION"]


TOKENS = "{ tokens(first: 100) { edges { node { id expiresAt expired } } } }"


async def test_expired_is_said_by_the_server_as_its_token_check_decides(
    api: Client, shop: Shop, running_app: tuple[str, Any]
) -> None:
    display = await display_token(shop, "print")
    await sql(
        shop.engine,
        "UPDATE tokens SET expires_at = now() - interval '1 second' WHERE id = :t",
        t=shop.token_ids["pat"],
    )
    running_app[1].state.services.viewers.clear()
    body = await post(api, shop.tokens["ada"], TOKENS)
    seen = {e["node"]["id"]: e["node"] for e in body["data"]["tokens"]["edges"]}
    expired = {node for node, token in seen.items() if token["expired"]}
    assert expired == {gid("Token", shop.token_ids["pat"])}
    # A session that has not run out, and a display token without an expiry, have not.
    assert seen[gid("Token", shop.token_ids["pia"])]["expiresAt"] is not None
    assert [t["expiresAt"] for t in seen.values() if t["expiresAt"] is None]
    # What `expired` says is what the server does with the token.
    assert codes(await post(api, shop.tokens["pat"], WORK_ORDER_IDS)) == ["UNAUTHENTICATED"]
    assert "errors" not in await post(api, shop.tokens["pia"], WORK_ORDER_IDS)
    assert "errors" not in await post(api, display, READS["queue"])


async def test_admin_revokes_anyones_token(api: Client, shop: Shop) -> None:
    password = await shop.password_for("pat")
    created = await post(api, shop.tokens["pat"], CREATE_API_TOKEN, {"n": "scanner", "p": password})
    secret = created["data"]["createApiToken"]["secret"]
    token_id = created["data"]["createApiToken"]["token"]["id"]
    revoked = await post(api, shop.tokens["ada"], REVOKE_TOKEN, {"id": token_id})
    assert revoked["data"]["revokeToken"]["userErrors"] == []
    assert codes(await post(api, secret, READS["queue"])) == ["UNAUTHENTICATED"]


async def test_display_tokens_are_created_by_admins_and_read_only(api: Client, shop: Shop) -> None:
    before = await table_snapshot(shop.engine)
    denied = await post(api, shop.tokens["sam"], CREATE_DISPLAY_TOKEN, {"n": "w", "d": ["print"]})
    assert codes(denied) == ["FORBIDDEN"]
    assert await table_snapshot(shop.engine) == before

    created = await post(api, shop.tokens["ada"], CREATE_DISPLAY_TOKEN, {"n": "w", "d": ["print"]})
    payload = created["data"]["createDisplayToken"]
    assert payload["userErrors"] == []
    assert payload["token"]["kind"] == "DISPLAY"
    assert payload["token"]["departments"] == [{"code": "print"}]
    wall = payload["secret"]

    q = "query($d: String!) { queue(department: $d) { edges { node { id } } } }"
    assert "errors" not in await post(api, wall, q, {"d": "print"})
    assert codes(await post(api, wall, q, {"d": "finishing"})) == ["FORBIDDEN"]
    before = await table_snapshot(shop.engine)
    for query, variables in [
        (CREATE_API_TOKEN, {"n": "escalate", "p": "any-password"}),
        (CREATE_DISPLAY_TOKEN, {"n": "more", "d": ["finishing"]}),
        (REVOKE_TOKEN, {"id": payload["token"]["id"]}),
    ]:
        assert codes(await post(api, wall, query, variables)) == ["FORBIDDEN"], query
    assert await table_snapshot(shop.engine) == before

    revoked = await post(api, shop.tokens["ada"], REVOKE_TOKEN, {"id": payload["token"]["id"]})
    assert revoked["data"]["revokeToken"]["userErrors"] == []
    assert codes(await post(api, wall, q, {"d": "print"})) == ["UNAUTHENTICATED"]
