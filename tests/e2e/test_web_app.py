"""The shop's app at /: served by the app itself (history-API routing, its own files
under /app/, a strict CSP), loading with every non-local request blocked; signing in,
signing out, and a session that ends under the page."""

import asyncio
import json
from typing import Any

import pytest
from playwright.async_api import Route, expect

from api import manifest
from db import people
from db.engine import unit_of_work
from domain.enums import TokenKind
from tests.e2e.web.support import (
    PASSWORD,
    OpenTab,
    base,
    session_token,
    sign_in,
    stored_session,
    user_with_password,
)
from tests.support.client import Client
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e

ME = "{ me { name } }"


async def test_the_shell_answers_every_app_path_and_the_other_routes_still_work(
    api: Client, server: str
) -> None:
    root = base(server)
    shell = await api.http.get(root + "/")
    assert shell.status_code == 200
    assert shell.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="/app/main.js">' in shell.text
    policy = shell.headers["content-security-policy"]
    assert "script-src 'self' 'sha256-" in policy
    assert "connect-src 'self'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    for path in ["/queues", "/orders/V29ya09yZGVyOjE=", "/admin/tokens", "/no/such/page"]:
        response = await api.http.get(root + path)
        assert response.status_code == 200, path
        assert response.text == shell.text, path
    script = await api.http.get(root + "/app/main.js")
    assert script.status_code == 200
    assert "javascript" in script.headers["content-type"]
    assert (await api.http.get(root + "/app/no-such-file.js")).status_code == 404
    # The API, its IDE, the wall display, static files and the probes keep their paths.
    assert (await api.http.get(server, params={"query": "{ __typename }"})).json() == {
        "data": {"__typename": "Query"}
    }
    graphiql = await api.http.get(server, headers={"accept": "text/html"})
    assert "GraphiQL" in graphiql.text
    display = await api.http.get(root + "/display/print")
    assert 'src="/app/display/display.js"' in display.text
    assert "content-security-policy" in display.headers
    assert (await api.http.get(root + "/static/vendor/README.md")).status_code == 200
    assert (await api.http.get(root + "/healthz")).json() == {"ok": True}
    assert (await api.http.get(root + "/readyz")).status_code == 200
    assert (await api.http.get(root + "/metrics")).status_code == 200


async def test_the_app_loads_with_every_outside_request_blocked(
    server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    tab = await tabs(token=shop.tokens["ada"])
    requested: list[str] = []
    tab.page.on("request", lambda request: requested.append(request.url))
    await tab.page.goto(base(server) + "/orders")
    await expect(tab.page.get_by_role("heading", name="Work orders")).to_be_visible()
    await expect(tab.page.get_by_role("link", name="Admin")).to_be_visible()
    assert requested and all(url.startswith(base(server)) for url in requested), requested
    tab.assert_clean()
    await tab.close()


async def test_a_request_to_another_host_never_leaves_and_is_recorded(
    server: str, tabs: OpenTab
) -> None:
    """What makes the test above mean something: a tab's request to another host, named
    or by address, fails in the browser and is recorded, while this host is reached. From
    a page without the app's Content-Security-Policy, which would refuse them first."""
    tab = await tabs()
    await tab.page.goto(base(server) + "/healthz")
    fetch = "url => fetch(url, {mode: 'no-cors'}).then(() => 'reached', () => 'failed')"
    outside = ["https://cdn.example.com/app.js", "http://192.0.2.1/", "http://[2001:db8::1]/"]
    for url in outside:
        async with tab.context.expect_event("requestfailed") as failed:
            assert await tab.page.evaluate(fetch, url) == "failed"
        # The browser's own refusal, not this closed network's: nothing was tried.
        assert (await failed.value).failure == "net::ERR_PROXY_CONNECTION_FAILED", url
    assert await tab.page.evaluate(fetch, base(server) + "/healthz") == "reached"
    assert tab.outside == outside
    await tab.close()


async def test_the_app_sends_its_documents_by_hash_to_a_server_that_trusts_only_them(
    trusted_server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    """Signed out (trusted documents are all an anonymous caller may run), signing in, and
    the worker's queues: every request names one of the manifest's documents by its hash,
    alone; the queues' subscriptions send its text with the hash."""
    email = await user_with_password(shop, "wes", ["print"])
    await shop.order(["print"])
    tab = await tabs()
    bodies: list[dict[str, object]] = []
    frames: list[dict[str, object]] = []
    tab.page.on(
        "request",
        lambda r: bodies.append(r.post_data_json) if r.url == trusted_server else None,
    )
    # The queues subscribe once their snapshot is shown: the test waits for that frame.
    subscribing = asyncio.Event()

    def sent(frame: str) -> None:
        message = json.loads(frame)
        frames.append(message)
        if message.get("type") == "subscribe":
            subscribing.set()

    tab.page.on("websocket", lambda ws: ws.on("framesent", sent))
    await sign_in(tab.page, trusted_server, email)
    await expect(tab.page.get_by_role("heading", name="My queues")).to_be_visible()
    await expect(tab.page.get_by_role("button", name="Start").first).to_be_visible()
    async with asyncio.timeout(30):
        await subscribing.wait()
    documents = manifest.load()
    names = [body["operationName"] for body in bodies]
    assert names[0] == "SignIn" and len(names) >= 2, names
    for body in bodies:
        assert "query" not in body, body
        assert body["extensions"]["persistedQuery"]["sha256Hash"] in documents  # type: ignore[index]
    subscribed = [f["payload"] for f in frames if f["type"] == "subscribe"]
    assert subscribed
    for payload in subscribed:
        known = documents[payload["extensions"]["persistedQuery"]["sha256Hash"]]  # type: ignore[index]
        assert payload["query"] == known  # type: ignore[index]
    tab.assert_clean()
    await tab.close()


async def test_the_app_sends_the_text_when_the_server_does_not_know_the_hash(
    server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    """Apollo's exchange from the browser's side: the first request's hash is answered
    PERSISTED_QUERY_NOT_FOUND (as by a server that has not seen it), and the app sends the
    same request again with the text, and shows the answer."""
    tab = await tabs(token=shop.tokens["ada"])
    sent: list[dict[str, Any]] = []
    not_found = {
        "errors": [
            {
                "message": "PersistedQueryNotFound",
                "extensions": {"code": "PERSISTED_QUERY_NOT_FOUND"},
            }
        ]
    }

    async def forget_the_first(route: Route) -> None:
        sent.append(route.request.post_data_json)
        if len(sent) == 1:
            await route.fulfill(json=not_found)
        else:
            await route.continue_()

    await tab.page.route(server, forget_the_first)
    await tab.page.goto(base(server) + "/orders")
    await expect(tab.page.get_by_role("heading", name="Work orders")).to_be_visible()
    first = sent[0]
    assert "query" not in first
    [again] = [b for b in sent[1:] if b["operationName"] == first["operationName"]]
    sha256 = first["extensions"]["persistedQuery"]["sha256Hash"]
    assert again["query"] == manifest.load()[sha256]
    assert again["extensions"] == first["extensions"]
    assert all("query" not in b for b in sent[1:] if b is not again)
    tab.assert_clean()
    await tab.close()


async def test_a_worker_signs_in_and_out(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    email = await user_with_password(shop, "wes", ["print"])
    tab = await tabs()
    page = tab.page
    await page.goto(base(server) + "/")
    # Wrong credentials: the server's message, next to the form.
    await page.get_by_label("Email").fill(email)
    await page.get_by_label("Password").fill("not the password")
    await page.get_by_role("button", name="Sign in").click()
    await expect(page.get_by_role("alert")).to_have_text("⚠ Email or password is incorrect.")

    # Then by keyboard alone: the fields and the button are reached with Tab.
    await page.get_by_label("Email").fill("")
    await page.get_by_label("Password").fill("")
    await page.get_by_label("Email").focus()
    await page.keyboard.type(email)
    await page.keyboard.press("Tab")
    await page.keyboard.type(PASSWORD)
    await page.keyboard.press("Tab")
    await expect(page.get_by_role("button", name="Sign in")).to_be_focused()
    await page.keyboard.press("Enter")
    await expect(page).to_have_url(base(server) + "/queues")
    await expect(page.get_by_role("heading", name="My queues")).to_be_visible()
    token = await session_token(page)
    assert token is not None
    assert (await api.as_(token)(ME))["me"] == {"name": "Wes"}
    # With the session's id, which tells this browser's session among her tokens.
    newest = await api.as_(token)("{ myTokens(first: 1) { edges { node { id kind } } } }")
    [session] = [edge["node"] for edge in newest["myTokens"]["edges"]]
    assert session["kind"] == "SESSION"
    assert (await stored_session(page) or {}).get("tokenId") == session["id"]

    # A reload keeps the tab signed in (sessionStorage).
    await page.reload()
    await expect(page.get_by_role("button", name="Sign out")).to_be_visible()

    await page.get_by_role("button", name="Sign out").click()
    await expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    await expect(page.get_by_role("status")).to_have_text("You have signed out.")
    assert await session_token(page) is None
    # Signing out revoked the token on the server.
    assert (await api.as_(token)(ME))["me"] is None
    tab.assert_clean()
    await tab.close()


async def test_a_revoked_token_sends_the_page_back_to_sign_in(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    # Revoked while the queue screen is open: its websocket closes, the page says why.
    email = await user_with_password(shop, "wes", ["print"])
    tab = await tabs()
    await sign_in(tab.page, server, email)
    await expect(tab.page.get_by_role("status").filter(has_text="Live")).to_be_visible()
    token = await session_token(tab.page)
    await api.as_(token)("mutation { logout(input: {}) { token { revokedAt } } }")
    await expect(tab.page.get_by_role("button", name="Sign in")).to_be_visible()
    await expect(tab.page.locator(".notice")).to_contain_text("Please sign in again.")
    tab.assert_clean()
    await tab.close()

    # A tab that comes back with a token that no longer works.
    tab = await tabs(token="not-a-token")
    await tab.page.goto(base(server) + "/orders")
    await expect(tab.page.get_by_role("button", name="Sign in")).to_be_visible()
    await expect(tab.page.locator(".notice")).to_contain_text("Your session has ended")
    tab.assert_clean()
    await tab.close()

    # A request refused as UNAUTHENTICATED mid-session.
    revoked = shop.tokens["sam"]
    tab = await tabs(token=revoked)
    await tab.page.goto(base(server) + "/orders")
    await expect(tab.page.get_by_text("No work orders match.")).to_be_visible()
    await api.as_(revoked)("mutation { logout(input: {}) { token { revokedAt } } }")
    await tab.page.get_by_label("Status").select_option("ACTIVE")
    await expect(tab.page.get_by_role("button", name="Sign in")).to_be_visible()
    await expect(tab.page.locator(".notice")).to_contain_text("Please sign in again.")
    tab.assert_clean()
    await tab.close()


async def test_an_expired_session_sends_the_page_back_to_sign_in(
    server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    # Long enough for a loaded machine to open the tab and go live before it ends (3 s
    # was not: the page once loaded with the session already over).
    async with unit_of_work(shop.engine) as conn:
        issued = await people.issue_token(
            conn, kind=TokenKind.SESSION, name="short", user_id=shop.users["pat"], ttl_seconds=12
        )
    tab = await tabs(token=issued.token)
    await tab.page.goto(base(server) + "/queues")
    await expect(tab.page.get_by_role("status").filter(has_text="Live")).to_be_visible()
    # The server closes the expired session's websocket (4401); the page says why.
    await expect(tab.page.get_by_role("button", name="Sign in")).to_be_visible(timeout=30000)
    await expect(tab.page.locator(".notice")).to_have_text(
        "Your session has expired. Please sign in again."
    )
    tab.assert_clean()
