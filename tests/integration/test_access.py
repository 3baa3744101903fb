"""Authorization (docs/api.md) and keyset pagination, through the real HTTP API.

Who may read and do what: anonymous callers are UNAUTHENTICATED; signed-in callers
without the right get FORBIDDEN (and nothing is written); revoked, expired and
inactive credentials stop working; field-level rules (`WorkOrder.quote`,
`User.email`) null only what the caller may not see. Then the connections:
`workOrders` newest first and `queue` in work order, page by page.
"""

import base64
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from db import customers, people
from db.engine import unit_of_work
from domain.enums import TokenKind
from domain.money import parse_money
from tests.support.client import Client, gid
from tests.support.database import table_snapshot, task_ids
from tests.support.shop import Shop

PASSWORD = "correct-horse-battery"


async def post(
    api: Client, token: str | None, query: str, variables: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One request; never a 500, never a stack trace, never a masked unexpected error."""
    headers = {"authorization": f"Bearer {token}"} if token else {}
    response: httpx.Response = await api.http.post(
        api.url, json={"query": query, "variables": variables or {}}, headers=headers
    )
    assert response.status_code < 500, response.text[:500]
    assert "Traceback" not in response.text
    assert "INTERNAL_SERVER_ERROR" not in response.text, response.text[:500]
    body: dict[str, Any] = response.json()
    return body


def codes(body: dict[str, Any]) -> list[str]:
    return [e["extensions"]["code"] for e in body.get("errors") or []]


async def sql(engine: AsyncEngine, statement: str, **params: Any) -> list[Any]:
    async with engine.begin() as conn:
        result = await conn.execute(text(statement), params)
        return list(result.all()) if result.returns_rows else []


async def display_token(shop: Shop, *codes_: str) -> str:
    async with unit_of_work(shop.engine) as conn:
        issued = await people.issue_token(
            conn,
            kind=TokenKind.DISPLAY,
            name="wall",
            user_id=shop.users["ada"],
            ttl_seconds=None,
            department_ids=[shop.departments[c] for c in codes_],
        )
    return issued.token


# ---------------------------------------------------------------------------------------------
# Authentication.

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


# ---------------------------------------------------------------------------------------------
# Reads by role.


async def test_workers_see_their_own_queue_only(api: Client, shop: Shop) -> None:
    order = await shop.order(["print", "finishing"])
    tasks = await task_ids(shop.engine, order)
    q = "query($d: String!) { queue(department: $d) { edges { node { id } } } }"

    own = await post(api, shop.tokens["pat"], q, {"d": "print"})
    assert "errors" not in own
    assert [e["node"]["id"] for e in own["data"]["queue"]["edges"]] == [
        gid("DepartmentTask", tasks["print"])
    ]
    for who, dept in [("pat", "finishing"), ("fin", "print"), ("sam", "print"), ("dan", "print")]:
        other = await post(api, shop.tokens[who], q, {"d": dept})
        assert codes(other) == ["FORBIDDEN"], (who, dept)
        assert other["data"] is None
        assert "queue" in other["errors"][0]["message"]


@pytest.mark.parametrize("dept", ["print", "finishing", "design", "delivery", "sales"])
async def test_admin_reads_any_queue(api: Client, shop: Shop, dept: str) -> None:
    order = await shop.order(["print", "finishing", "design"])
    tasks = await task_ids(shop.engine, order)
    body = await post(
        api,
        shop.tokens["ada"],
        "query($d: String!) { queue(department: $d) { edges { node { id } } } }",
        {"d": dept},
    )
    assert "errors" not in body, body
    expected = (
        [gid("DepartmentTask", tasks[dept])]
        if dept in ("print", "finishing", "design")
        else []  # delivery: gate closed; sales: no tasks
    )
    assert [e["node"]["id"] for e in body["data"]["queue"]["edges"]] == expected


@pytest.mark.parametrize(
    ("who", "allowed"),
    [("ada", True), ("sam", False), ("abe", False), ("pat", False), ("dan", False)],
)
async def test_users_is_admin_only(api: Client, shop: Shop, who: str, allowed: bool) -> None:
    body = await post(api, shop.tokens[who], "{ users(first: 100) { edges { node { email } } } }")
    if allowed:
        emails = {e["node"]["email"] for e in body["data"]["users"]["edges"]}
        assert emails == {f"{k}@shop.test" for k in shop.users}
    else:
        assert codes(body) == ["FORBIDDEN"]
        assert body["data"] is None
        assert "@shop.test" not in str(body)


@pytest.mark.parametrize(
    ("who", "allowed"),
    [("sam", True), ("abe", True), ("ada", True), ("pat", False), ("dee", False), ("dan", False)],
)
async def test_customers_is_sales_accounts_or_admin(
    api: Client, shop: Shop, who: str, allowed: bool
) -> None:
    body = await post(api, shop.tokens[who], "{ customers { edges { node { name } } } }")
    if allowed:
        assert body == {"data": {"customers": {"edges": [{"node": {"name": "ACME"}}]}}}
    else:
        assert codes(body) == ["FORBIDDEN"]
        assert body["data"] is None
        assert "ACME" not in str(body)


@pytest.mark.parametrize(
    ("who", "allowed"),
    [("sam", True), ("abe", True), ("ada", True), ("pat", False), ("fin", False), ("dan", False)],
)
async def test_quote_is_for_sales_accounts_and_admins(
    api: Client, shop: Shop, who: str, allowed: bool
) -> None:
    order = await shop.order(["print"])
    await sql(
        shop.engine,
        "UPDATE work_orders SET quote_minor = 123456, quote_currency = 'EUR' WHERE id = :o",
        o=order,
    )
    body = await post(
        api,
        shop.tokens[who],
        "query($id: ID!) { workOrder(id: $id) { orderNumber quote { amount currency } } }",
        {"id": gid("WorkOrder", order)},
    )
    work_order = body["data"]["workOrder"]
    assert work_order["orderNumber"] == "WO-000001"
    if allowed:
        assert "errors" not in body
        assert work_order["quote"] == {"amount": "1234.56", "currency": "EUR"}
    else:
        assert codes(body) == ["FORBIDDEN"]
        assert body["errors"][0]["path"] == ["workOrder", "quote"]
        assert work_order["quote"] is None
        assert "1234" not in str(body)


async def test_quote_in_a_list_is_nulled_per_row_for_workers(api: Client, shop: Shop) -> None:
    for _ in range(2):
        await shop.order(["print"])
    await sql(shop.engine, "UPDATE work_orders SET quote_minor = 999, quote_currency = 'EUR'")
    body = await post(
        api,
        shop.tokens["pat"],
        "{ workOrders { edges { node { orderNumber quote { amount } } } } }",
    )
    assert [e["node"] for e in body["data"]["workOrders"]["edges"]] == [
        {"orderNumber": "WO-000002", "quote": None},
        {"orderNumber": "WO-000001", "quote": None},
    ]
    assert codes(body) == ["FORBIDDEN", "FORBIDDEN"]
    assert sorted(e["path"][2] for e in body["errors"]) == [0, 1]


async def test_email_is_visible_to_self_and_admins_only(api: Client, shop: Shop) -> None:
    query = "query($id: ID!) { node(id: $id) { ... on User { name email } } }"
    sam = {"id": gid("User", shop.users["sam"])}

    self_view = await post(api, shop.tokens["sam"], query, sam)
    assert self_view == {"data": {"node": {"name": "Sam", "email": "sam@shop.test"}}}
    admin_view = await post(api, shop.tokens["ada"], query, sam)
    assert admin_view == {"data": {"node": {"name": "Sam", "email": "sam@shop.test"}}}
    me = await post(api, shop.tokens["pat"], "{ me { email } }")
    assert me == {"data": {"me": {"email": "pat@shop.test"}}}

    # Colleagues find each other by id (tests/integration/test_smaller_holes.py), but not
    # each other's email.
    for who, whom in (("pat", "pia"), ("dot", "dan")):
        other = await post(api, shop.tokens[who], query, {"id": gid("User", shop.users[whom])})
        assert codes(other) == ["FORBIDDEN"]
        assert other["errors"][0]["path"] == ["node", "email"]
        assert f"{whom}@shop.test" not in str(other)


async def test_forbidden_email_withholds_only_the_email(api: Client, shop: Shop) -> None:
    body = await post(
        api,
        shop.tokens["pat"],
        "query($id: ID!) { node(id: $id) { ... on User { name email } } }",
        {"id": gid("User", shop.users["pia"])},
    )
    assert codes(body) == ["FORBIDDEN"]
    assert body["data"]["node"] == {"name": "Pia", "email": None}


async def test_display_token_reads_only_its_queues(api: Client, shop: Shop) -> None:
    order = await shop.order(["print", "finishing"])
    tasks = await task_ids(shop.engine, order)
    wall = await display_token(shop, "print")
    q = "query($d: String!) { queue(department: $d) { edges { node { id status } } } }"

    own = await post(api, wall, q, {"d": "print"})
    assert own == {
        "data": {
            "queue": {
                "edges": [
                    {"node": {"id": gid("DepartmentTask", tasks["print"]), "status": "PENDING"}}
                ]
            }
        }
    }
    assert codes(await post(api, wall, q, {"d": "finishing"})) == ["FORBIDDEN"]
    for query in ("{ workOrders { edges { node { id } } } }", "{ departments { code } }"):
        assert codes(await post(api, wall, query)) == ["FORBIDDEN"], query
    assert (await post(api, wall, "{ me { id } }"))["data"]["me"] is None
    quote = await post(
        api,
        wall,
        '{ queue(department: "print") { edges { node { workOrder { quote { amount } } } } } }',
    )
    assert codes(quote) == ["FORBIDDEN"]

    before = await table_snapshot(shop.engine)
    start = await post(
        api,
        wall,
        "mutation($t: ID!) { startTask(input: {taskId: $t}) { changed } }",
        {"t": gid("DepartmentTask", tasks["print"])},
    )
    assert codes(start) == ["FORBIDDEN"]
    assert await table_snapshot(shop.engine) == before


# ---------------------------------------------------------------------------------------------
# Mutations by role.

MUTATIONS: dict[str, tuple[str, str]] = {
    "createCustomer": ("CreateCustomerInput", "customer { name }"),
    "createWorkOrder": ("CreateWorkOrderInput", "workOrder { status }"),
    "updateWorkOrderQuote": ("UpdateWorkOrderQuoteInput", "workOrder { version }"),
    "cancelWorkOrder": ("CancelWorkOrderInput", "workOrder { status }"),
    "createDepartment": ("CreateDepartmentInput", "department { code }"),
    "createUser": ("CreateUserInput", "user { name }"),
    "setUserDepartments": ("SetUserDepartmentsInput", "user { name }"),
    "startTask": ("StartTaskInput", "changed"),
    "releaseTask": ("ReleaseTaskInput", "changed"),
    "completeTask": ("CompleteTaskInput", "changed"),
    "reopenTask": ("ReopenTaskInput", "changed"),
    "chargeWorkOrderQuote": ("ChargeWorkOrderQuoteInput", "changed"),
}


def _mutation(name: str) -> str:
    input_type, selection = MUTATIONS[name]
    return (
        f"mutation($input: {input_type}!) {{ {name}(input: $input) "
        f"{{ {selection} userErrors {{ code message }} }} }}"
    )


async def _input(shop: Shop, name: str) -> dict[str, Any]:
    quote = parse_money(Decimal("120.00"), "EUR", "quote")
    order = await shop.order(["print"], order_number="WO-ACCESS", quote=quote)
    tasks = await task_ids(shop.engine, order)
    if name in ("releaseTask", "reopenTask"):
        status = "STARTED" if name == "releaseTask" else "COMPLETED"
        await sql(
            shop.engine,
            "UPDATE department_tasks SET status = :s, picked_up_by = :u, started_at = now(), "
            "completed_at = CASE WHEN :s = 'COMPLETED' THEN now() END WHERE id = :t",
            s=status,
            u=shop.users["pat"],
            t=tasks["print"],
        )
    task = gid("DepartmentTask", tasks["print"])
    return {
        "createCustomer": {"name": "Initech"},
        "createWorkOrder": {
            "customerId": gid("Customer", shop.customer_id),
            "departmentCodes": ["print"],
            "details": {"product": "Flyers"},
        },
        "updateWorkOrderQuote": {
            "workOrderId": gid("WorkOrder", order),
            "quote": {"amount": "10.00", "currency": "EUR"},
        },
        "cancelWorkOrder": {"workOrderId": gid("WorkOrder", order), "reason": "Withdrawn."},
        "createDepartment": {"code": "binding", "name": "Binding", "kind": "PRODUCTION"},
        "createUser": {
            "email": "new@shop.test",
            "name": "New",
            "password": "long-enough-pw",
            "departmentCodes": ["print"],
        },
        "setUserDepartments": {
            "userId": gid("User", shop.users["pat"]),
            "departmentCodes": ["print", "finishing"],
        },
        "startTask": {"taskId": task},
        "releaseTask": {"taskId": task, "reason": "Stuck."},
        "completeTask": {"taskId": task, "reason": "Done by hand."},
        "reopenTask": {"taskId": task, "reason": "Misprint."},
        "chargeWorkOrderQuote": {"workOrderId": gid("WorkOrder", order)},
    }[name]


ALLOWED = {
    "createCustomer": {"sam", "ada"},
    "createWorkOrder": {"sam", "ada"},
    "updateWorkOrderQuote": {"sam", "ada"},
    "cancelWorkOrder": {"sam", "ada"},
    "createDepartment": {"ada"},
    "createUser": {"ada"},
    "setUserDepartments": {"ada"},
    "startTask": {"pat", "pia"},  # members of the task's department; admins override instead
    "releaseTask": {"ada"},
    "completeTask": {"ada"},
    "reopenTask": {"ada"},
    "chargeWorkOrderQuote": {"abe", "ada"},
}
PEOPLE = ["sam", "abe", "dee", "pat", "fin", "dan", "ada"]


@pytest.mark.parametrize(
    ("name", "who"),
    [(name, who) for name in MUTATIONS for who in PEOPLE],
    ids=[f"{name}-{who}" for name in MUTATIONS for who in PEOPLE],
)
async def test_mutation_permissions(api: Client, shop: Shop, name: str, who: str) -> None:
    variables = {"input": await _input(shop, name)}
    before = await table_snapshot(shop.engine)
    body = await post(api, shop.tokens[who], _mutation(name), variables)
    if who in ALLOWED[name]:
        assert "errors" not in body, body
        assert body["data"][name]["userErrors"] == []
        assert await table_snapshot(shop.engine) != before
    else:
        assert codes(body) == ["FORBIDDEN"], body
        assert body["errors"][0]["path"] == [name]
        assert body["data"] is None
        assert await table_snapshot(shop.engine) == before


@pytest.mark.parametrize("name", sorted(MUTATIONS))
async def test_anonymous_mutations_are_unauthenticated(api: Client, shop: Shop, name: str) -> None:
    variables = {"input": await _input(shop, name)}
    before = await table_snapshot(shop.engine)
    body = await post(api, None, _mutation(name), variables)
    assert codes(body) == ["UNAUTHENTICATED"]
    assert await table_snapshot(shop.engine) == before


async def test_new_membership_grants_the_queue_on_the_next_request(api: Client, shop: Shop) -> None:
    """setUserDepartments is the complete membership: pat moves from print to finishing."""
    q = "query($d: String!) { queue(department: $d) { edges { node { id } } } }"
    assert codes(await post(api, shop.tokens["pat"], q, {"d": "finishing"})) == ["FORBIDDEN"]
    body = await post(
        api,
        shop.tokens["ada"],
        _mutation("setUserDepartments"),
        {"input": {"userId": gid("User", shop.users["pat"]), "departmentCodes": ["finishing"]}},
    )
    assert body["data"]["setUserDepartments"]["userErrors"] == []
    assert "errors" not in await post(api, shop.tokens["pat"], q, {"d": "finishing"})
    assert codes(await post(api, shop.tokens["pat"], q, {"d": "print"})) == ["FORBIDDEN"]


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


# ---------------------------------------------------------------------------------------------
# workOrders: keyset pagination, newest first, with filters.

WORK_ORDERS = """
query($first: Int, $after: String, $status: WorkOrderStatus, $customerId: ID, $search: String) {
  workOrders(first: $first, after: $after, status: $status, customerId: $customerId,
             search: $search) {
    edges { cursor node { id orderNumber status customer { name } } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}
"""


async def all_pages(
    api: Client, token: str, first: int, **filters: Any
) -> tuple[list[dict[str, Any]], int]:
    """Every node of the connection, page by page; also the number of pages."""
    nodes: list[dict[str, Any]] = []
    after: str | None = None
    pages = 0
    while True:
        body = await post(api, token, WORK_ORDERS, {"first": first, "after": after, **filters})
        assert "errors" not in body, body
        conn = body["data"]["workOrders"]
        edges, info = conn["edges"], conn["pageInfo"]
        pages += 1
        assert len(edges) <= first
        assert info["hasPreviousPage"] is (after is not None)
        if edges:
            assert info["startCursor"] == edges[0]["cursor"]
            assert info["endCursor"] == edges[-1]["cursor"]
        nodes += [e["node"] for e in edges]
        if not info["hasNextPage"]:
            break
        assert len(edges) == first
        after = info["endCursor"]
        assert pages < 50
    return nodes, pages


def pk(node: dict[str, Any]) -> int:
    return int(base64.b64decode(node["id"]).decode().split(":")[1])


@pytest.fixture
async def orders(shop: Shop, api: Client) -> dict[str, Any]:
    """Ten orders: seven of ACME (one cancelled), three of Globex Print Ltd."""
    async with unit_of_work(shop.engine) as conn:
        made = await customers.create_customer(conn, "Globex Print Ltd", shop.users["sam"])
        globex = made.customer.id
    acme_ids = [await shop.order(["print"]) for _ in range(4)]
    globex_ids = []
    for _ in range(3):
        shop.customer_id, acme = globex, shop.customer_id
        globex_ids.append(await shop.order(["finishing"]))
        shop.customer_id = acme
    acme_ids += [await shop.order(["design"], order_number=f"SPECIAL-{i}") for i in range(3)]
    cancelled = acme_ids[1]
    body = await post(
        api,
        shop.tokens["sam"],
        'mutation($id: ID!) { cancelWorkOrder(input: {workOrderId: $id, reason: "No."}) '
        "{ userErrors { code } } }",
        {"id": gid("WorkOrder", cancelled)},
    )
    assert body["data"]["cancelWorkOrder"]["userErrors"] == []
    return {
        "acme": acme_ids,
        "globex": globex_ids,
        "globex_id": globex,
        "cancelled": cancelled,
        "all": sorted(acme_ids + globex_ids, reverse=True),
    }


@pytest.mark.parametrize("first", [1, 3, 4, 10, 100])
async def test_work_orders_pages_newest_first_without_gaps_or_duplicates(
    api: Client, shop: Shop, orders: dict[str, Any], first: int
) -> None:
    nodes, pages = await all_pages(api, shop.tokens["sam"], first)
    ids = [pk(n) for n in nodes]
    assert ids == orders["all"]  # newest first, each exactly once
    assert pages == -(-len(ids) // first)  # the page holding the last order says so


async def test_work_orders_default_page_and_page_size_zero(
    api: Client, shop: Shop, orders: dict[str, Any]
) -> None:
    body = await post(api, shop.tokens["sam"], WORK_ORDERS, {})
    conn = body["data"]["workOrders"]
    assert [pk(e["node"]) for e in conn["edges"]] == orders["all"]
    assert conn["pageInfo"]["hasNextPage"] is False
    empty = await post(api, shop.tokens["sam"], WORK_ORDERS, {"first": 0})
    assert empty["data"]["workOrders"]["edges"] == []
    assert empty["data"]["workOrders"]["pageInfo"]["hasNextPage"] is True


async def test_work_orders_page_is_stable_while_new_orders_arrive(
    api: Client, shop: Shop, orders: dict[str, Any]
) -> None:
    """Keyset, not offset: an order created between two pages neither shifts nor repeats rows."""
    first = await post(api, shop.tokens["sam"], WORK_ORDERS, {"first": 4})
    page1 = [pk(e["node"]) for e in first["data"]["workOrders"]["edges"]]
    await shop.order(["print"])
    after = first["data"]["workOrders"]["pageInfo"]["endCursor"]
    second = await post(api, shop.tokens["sam"], WORK_ORDERS, {"first": 4, "after": after})
    page2 = [pk(e["node"]) for e in second["data"]["workOrders"]["edges"]]
    assert page1 + page2 == orders["all"][:8]


@pytest.mark.parametrize(
    ("filters", "expect"),
    [
        pytest.param({"status": "CANCELLED"}, lambda o: [o["cancelled"]], id="status-cancelled"),
        pytest.param(
            {"status": "ACTIVE"},
            lambda o: [i for i in o["all"] if i != o["cancelled"]],
            id="status-active",
        ),
        pytest.param({"status": "COMPLETED"}, lambda o: [], id="status-completed"),
        pytest.param(
            {"customer": "globex"}, lambda o: sorted(o["globex"], reverse=True), id="customer"
        ),
        pytest.param(
            {"search": "special-"},
            lambda o: sorted(o["acme"][4:], reverse=True),
            id="search-order-number-case-insensitive",
        ),
        pytest.param(
            {"search": "WO-000003"}, lambda o: [o["acme"][2]], id="search-exact-order-number"
        ),
        pytest.param(
            {"search": "  globex print "},
            lambda o: sorted(o["globex"], reverse=True),
            id="search-customer-name-trimmed",
        ),
        pytest.param(
            {"search": "acme", "status": "ACTIVE"},
            lambda o: sorted([i for i in o["acme"] if i != o["cancelled"]], reverse=True),
            id="search-and-status",
        ),
        pytest.param(
            {"customer": "globex", "status": "CANCELLED"}, lambda o: [], id="customer-and-status"
        ),
        pytest.param({"search": "no such thing"}, lambda o: [], id="search-no-match"),
    ],
)
async def test_work_orders_filters_paginate(
    api: Client, shop: Shop, orders: dict[str, Any], filters: dict[str, Any], expect: Any
) -> None:
    variables = dict(filters)
    if variables.pop("customer", None):
        variables["customerId"] = gid("Customer", orders["globex_id"])
    nodes, _ = await all_pages(api, shop.tokens["sam"], 2, **variables)
    assert [pk(n) for n in nodes] == expect(orders)
    if "status" in filters:
        assert {n["status"] for n in nodes} <= {filters["status"]}


@pytest.mark.parametrize("search", ["%", "_", "WO_0"])
async def test_search_matches_wildcard_characters_literally(
    api: Client, shop: Shop, orders: dict[str, Any], search: str
) -> None:
    nodes, _ = await all_pages(api, shop.tokens["sam"], 100, search=search)
    assert nodes == []  # no order number or customer name contains '%' or '_'


# ---------------------------------------------------------------------------------------------
# queue: available PENDING (oldest available first), then STARTED (oldest start first).

QUEUE = """
query($d: String!, $first: Int, $after: String) {
  queue(department: $d, first: $first, after: $after) {
    eventCursor
    edges { cursor node { id status availableAt workOrder { orderNumber } } }
    pageInfo { hasNextPage endCursor }
  }
}
"""
MOVE = (
    "mutation($t: ID!, $r: String!) {{ {name}(input: {{taskId: $t{reason}}}) "
    "{{ changed userErrors {{ code message }} }} }}"
)


async def move(api: Client, token: str, name: str, task: int, reason: str | None = None) -> None:
    query = MOVE.format(name=name, reason=", reason: $r" if reason else "")
    if not reason:
        query = query.replace("$t: ID!, $r: String!", "$t: ID!")
    variables: dict[str, Any] = {"t": gid("DepartmentTask", task)}
    if reason:
        variables["r"] = reason
    body = await post(api, token, query, variables)
    assert "errors" not in body, body
    assert body["data"][name] == {"changed": True, "userErrors": []}


async def queue_ids(api: Client, token: str, dept: str) -> list[int]:
    body = await post(api, token, QUEUE, {"d": dept, "first": 100})
    assert "errors" not in body, body
    assert body["data"]["queue"]["eventCursor"]
    return [pk(e["node"]) for e in body["data"]["queue"]["edges"]]


async def test_queue_order_pending_then_started_cancelled_absent(api: Client, shop: Shop) -> None:
    orders = [await shop.order(["print"]) for _ in range(5)]
    print_task = [(await task_ids(shop.engine, o))["print"] for o in orders]
    assert await queue_ids(api, shop.tokens["pat"], "print") == print_task

    # Starting moves a task behind every pending one; STARTED tasks go in order of start.
    await move(api, shop.tokens["pia"], "startTask", print_task[3])
    await move(api, shop.tokens["pat"], "startTask", print_task[0])
    assert await queue_ids(api, shop.tokens["pat"], "print") == [
        print_task[1],
        print_task[2],
        print_task[4],
        print_task[3],
        print_task[0],
    ]
    # Cancelling takes the order's tasks out (pending and started alike).
    for order in (orders[2], orders[3]):
        body = await post(
            api,
            shop.tokens["sam"],
            'mutation($id: ID!) { cancelWorkOrder(input: {workOrderId: $id, reason: "Off."}) '
            "{ userErrors { code } } }",
            {"id": gid("WorkOrder", order)},
        )
        assert body["data"]["cancelWorkOrder"]["userErrors"] == []
    # Completed tasks leave the queue too.
    await move(api, shop.tokens["ada"], "completeTask", print_task[4], "Done elsewhere.")
    assert await queue_ids(api, shop.tokens["pat"], "print") == [print_task[1], print_task[0]]


async def test_delivery_queue_follows_the_gate_oldest_available_first(
    api: Client, shop: Shop
) -> None:
    gated = await shop.order(["print", "finishing"])  # created first: lower task ids
    design_only = await shop.order(["design"])  # no gating task: gate open at creation
    print_and_design = await shop.order(["print", "design"])
    g, d, pd = [await task_ids(shop.engine, o) for o in (gated, design_only, print_and_design)]

    assert await queue_ids(api, shop.tokens["dan"], "delivery") == [d["delivery"]]

    # One of two gating tasks done: the gate stays closed.
    await move(api, shop.tokens["ada"], "completeTask", g["print"], "Printed.")
    assert await queue_ids(api, shop.tokens["dan"], "delivery") == [d["delivery"]]
    # Design does not gate: completing print alone opens print_and_design's gate.
    await move(api, shop.tokens["ada"], "completeTask", pd["print"], "Printed.")
    assert await queue_ids(api, shop.tokens["dan"], "delivery") == [d["delivery"], pd["delivery"]]
    # The last gating task: gated's delivery becomes available last, so it comes last,
    # although its task id is the lowest.
    await move(api, shop.tokens["ada"], "completeTask", g["finishing"], "Finished.")
    assert g["delivery"] < d["delivery"] < pd["delivery"]
    assert await queue_ids(api, shop.tokens["dot"], "delivery") == [
        d["delivery"],
        pd["delivery"],
        g["delivery"],
    ]
    # Reopening a gating task closes the gate again: the delivery task leaves the queue.
    await move(api, shop.tokens["ada"], "reopenTask", g["finishing"], "Misfolded.")
    assert await queue_ids(api, shop.tokens["dan"], "delivery") == [d["delivery"], pd["delivery"]]


async def test_queue_first_page_and_has_next_page(api: Client, shop: Shop) -> None:
    orders = [await shop.order(["print"]) for _ in range(3)]
    tasks = [(await task_ids(shop.engine, o))["print"] for o in orders]
    body = await post(api, shop.tokens["pat"], QUEUE, {"d": "print", "first": 2})
    conn = body["data"]["queue"]
    assert [pk(e["node"]) for e in conn["edges"]] == tasks[:2]
    assert conn["pageInfo"]["hasNextPage"] is True
    assert conn["pageInfo"]["endCursor"] == conn["edges"][-1]["cursor"]
    body = await post(api, shop.tokens["pat"], QUEUE, {"d": "print", "first": 3})
    assert body["data"]["queue"]["pageInfo"]["hasNextPage"] is False


async def test_queue_pages_without_gaps_or_duplicates(api: Client, shop: Shop) -> None:
    orders = [await shop.order(["print"]) for _ in range(5)]
    tasks = [(await task_ids(shop.engine, o))["print"] for o in orders]
    await move(api, shop.tokens["pia"], "startTask", tasks[1])
    await move(api, shop.tokens["pat"], "startTask", tasks[0])
    expected = [tasks[2], tasks[3], tasks[4], tasks[1], tasks[0]]
    assert await queue_ids(api, shop.tokens["pat"], "print") == expected

    seen: list[int] = []
    after: str | None = None
    for _ in range(10):
        body = await post(
            api, shop.tokens["pat"], QUEUE, {"d": "print", "first": 2, "after": after}
        )
        assert "errors" not in body, body
        conn = body["data"]["queue"]
        seen += [pk(e["node"]) for e in conn["edges"]]
        if not conn["pageInfo"]["hasNextPage"]:
            break
        after = conn["pageInfo"]["endCursor"]
    assert seen == expected
