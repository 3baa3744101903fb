"""Accounts and tokens through the admin screens: an admin deactivates a worker (their open
page and their token stop working at once), reactivates them, sets their password (they
sign in with the new one); creates an API token whose secret works; and sees which token
is this browser's session, with a warning before revoking it."""

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import expect

from db import people
from db.engine import unit_of_work
from domain.enums import TokenKind
from tests.e2e.web.support import (
    OpenTab,
    base,
    scalar,
    session_token,
    shoot,
    sign_in,
    user_with_password,
)
from tests.support.client import Client, gid
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e

DEPARTMENTS = "query { departments { code } }"
ME = "query { me { name } }"
TOKENS = "query { tokens(first: 50) { edges { node { name kind expiresAt } } } }"


async def refused(client: Client, query: str = DEPARTMENTS) -> list[str]:
    """The error codes of a request (`me` answers null rather than refusing)."""
    body = await client.raw(query)
    return [e.get("extensions", {}).get("code") for e in body.get("errors", [])]


async def test_an_admin_deactivates_reactivates_and_sets_a_password(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
    screenshots: Path,
    axe_source: str,
) -> None:
    email = await user_with_password(shop, "wes", ["print"])
    worker = await tabs()
    await sign_in(worker.page, server, email)
    await expect(worker.page.get_by_role("status").filter(has_text="Live")).to_be_visible()
    wes = api.as_(await session_token(worker.page))
    assert await refused(wes) == []

    admin = await tabs(token=shop.tokens["ada"])
    page = admin.page
    await page.goto(base(server) + "/admin/people")
    row = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="Wes"))
    await expect(row).to_contain_text("Active")
    # The server refuses self-deactivation; the screen does not offer it.
    await expect(page.get_by_role("button", name="Set password… for Ada")).to_be_visible()
    await expect(page.get_by_role("button", name="Deactivate Ada")).to_have_count(0)

    # Deactivate: confirmed first; "Keep active" changes nothing.
    await row.get_by_role("button", name="Deactivate Wes").click()
    dialog = page.get_by_role("dialog")
    await expect(dialog).to_contain_text("Deactivate Wes?")
    await dialog.get_by_role("button", name="Keep active").click()
    await expect(dialog).to_have_count(0)
    assert await refused(wes) == []
    await row.get_by_role("button", name="Deactivate Wes").click()
    await shoot(page, screenshots, "admin-people-deactivate", axe_source)
    await dialog.get_by_role("button", name="Deactivate account").click()
    await expect(dialog).to_have_count(0)
    await expect(row).to_contain_text("Deactivated")
    await expect(page.get_by_role("status")).to_contain_text("Wes is deactivated")
    await expect(row.get_by_role("button", name="Reactivate Wes")).to_be_visible()
    await expect(row.get_by_role("button", name="Deactivate Wes")).to_have_count(0)
    # The worker's open page is signed out, and their token is refused.
    await expect(worker.page.get_by_role("button", name="Sign in")).to_be_visible()
    await expect(worker.page.locator(".notice")).to_contain_text("Please sign in again.")
    assert await refused(wes) == ["UNAUTHENTICATED"]
    assert (
        await scalar(shop, "SELECT is_active FROM users WHERE id = :u", u=shop.users["wes"])
        is False
    )
    await shoot(page, screenshots, "admin-people-deactivated", axe_source)

    # Reactivate: the old session stays revoked (the account was presumed compromised);
    # the worker signs in again.
    await row.get_by_role("button", name="Reactivate Wes").click()
    await expect(row).not_to_contain_text("Deactivated")
    await expect(page.get_by_role("status")).to_contain_text("Wes is active again")
    await expect(row.get_by_role("button", name="Deactivate Wes")).to_be_visible()
    assert await refused(wes) == ["UNAUTHENTICATED"]
    await sign_in(worker.page, server, email)
    await expect(worker.page.get_by_role("status").filter(has_text="Live")).to_be_visible()
    wes = api.as_(await session_token(worker.page))
    assert await refused(wes) == []

    # Set password: the server's userErrors show on the field.
    await row.get_by_role("button", name="Set password… for Wes").click()
    await expect(dialog).to_contain_text("Set the password of Wes")
    await dialog.get_by_label("New password").fill("short")
    await dialog.get_by_role("button", name="Set password").click()
    field = dialog.get_by_label("New password")
    await expect(field).to_have_attribute("aria-invalid", "true")
    await expect(dialog.locator(".field-error")).to_be_visible()
    await shoot(page, screenshots, "admin-people-set-password", axe_source)
    await field.fill("a brand new secret")
    await dialog.get_by_role("button", name="Set password").click()
    await expect(dialog).to_have_count(0)
    await expect(page.get_by_role("status")).to_contain_text("Wes has a new password")
    # Their sessions ended; the new password signs in, the old one does not.
    assert await refused(wes) == ["UNAUTHENTICATED"]
    await worker.page.get_by_label("Email").fill(email)
    await worker.page.get_by_label("Password").fill("correct horse battery")
    await worker.page.get_by_role("button", name="Sign in").click()
    await expect(worker.page.get_by_role("alert")).to_be_visible()
    await sign_in(worker.page, server, email, "a brand new secret")
    await expect(worker.page.get_by_role("status").filter(has_text="Live")).to_be_visible()
    assert await refused(api.as_(await session_token(worker.page))) == []

    worker.assert_clean()
    admin.assert_clean()
    await worker.close()
    await admin.close()


async def test_an_admin_creates_an_api_token_and_sees_this_browsers_session(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
    screenshots: Path,
    axe_source: str,
) -> None:
    # Signed in as after `login`, which gives the session's id with its secret.
    admin = await tabs(token=shop.tokens["ada"], token_id=gid("Token", shop.token_ids["ada"]))
    page = admin.page
    await page.goto(base(server) + "/admin/tokens")

    # Ada has one live session: the one this browser uses.
    marked = page.get_by_role("row").filter(has_text="this browser")
    await expect(marked).to_have_count(1)
    await expect(marked).to_contain_text("Ada")
    await expect(marked).to_contain_text("Session")

    # The password is asked again: a wrong one is the server's field error.
    password = await shop.password_for("ada")
    await page.get_by_label("Name of the API token").fill("Web shop orders")
    await page.get_by_label("Your password").fill("not-adas-password")
    await page.get_by_role("button", name="Create API token").click()
    await expect(page.get_by_label("Your password")).to_have_attribute("aria-invalid", "true")
    await expect(page.get_by_label("Your password")).to_have_value("")

    # An expiry in the past is the server's field error.
    await page.get_by_label("Your password").fill(password)
    await page.get_by_label("API token expires (optional)").fill("2020-01-01T09:00")
    await page.get_by_role("button", name="Create API token").click()
    expires = page.get_by_label("API token expires (optional)")
    await expect(expires).to_have_attribute("aria-invalid", "true")

    # A date-time on the shop's clocks goes out as its instant (within the 365 days allowed).
    local = (datetime.now() + timedelta(days=200)).strftime("%Y-%m-%dT17:30")
    await expires.fill(local)
    await page.get_by_label("Your password").fill(password)
    await page.get_by_role("button", name="Create API token").click()
    secret_box = page.locator(".secret")
    await expect(secret_box).to_contain_text("Web shop orders was created")
    secret = (await secret_box.locator(".secret-value").text_content() or "").strip()
    assert secret.startswith("prs_a_")
    assert (await api.as_(secret)(ME))["me"]["name"] == "Ada"
    instant = await page.evaluate(
        f"import('/app/lib/format.js').then((f) => f.inputInstant({local!r}))"
    )
    nodes: list[dict[str, Any]] = [
        e["node"] for e in (await api.as_(shop.tokens["ada"])(TOKENS))["tokens"]["edges"]
    ]
    [made] = [n for n in nodes if n["name"] == "Web shop orders"]
    assert made["kind"] == "API"
    assert made["expiresAt"].replace("+00:00", "") == instant.replace(".000Z", "")
    row = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="Web shop orders"))
    await expect(row).to_contain_text("Active, expires")
    await expect(row.get_by_role("cell", name="API", exact=True)).to_be_visible()
    await expect(page.get_by_label("Name of the API token")).to_have_value("")
    await shoot(page, screenshots, "admin-tokens-api-secret", axe_source)
    await page.get_by_role("button", name="Done, hide the secret").click()
    await expect(secret_box).to_have_count(0)

    # Revoking another token warns of nothing more; revoking this browser's warns.
    await row.get_by_role("button", name="Revoke Web shop orders").click()
    dialog = page.get_by_role("dialog")
    await expect(dialog).not_to_contain_text("signs you out")
    await dialog.get_by_role("button", name="Revoke token").click()
    await expect(dialog).to_have_count(0)
    await expect(row).to_contain_text("Revoked")
    assert await refused(api.as_(secret)) == ["UNAUTHENTICATED"]

    await marked.get_by_role("button").click()
    await expect(dialog).to_contain_text("This is the session of this browser")
    await expect(dialog).to_contain_text("signs you out")
    await shoot(page, screenshots, "admin-tokens-revoke-own", axe_source)
    await dialog.get_by_role("button", name="Keep it").click()
    await expect(dialog).to_have_count(0)

    # Another live session of Ada's (another browser) is not this one: no mark, no warning.
    async with unit_of_work(shop.engine) as conn:
        await people.issue_token(
            conn, kind=TokenKind.SESSION, name="login", user_id=shop.users["ada"], ttl_seconds=600
        )
    await page.reload()
    await expect(marked).to_have_count(1)
    await expect(marked).to_contain_text("test")
    other = page.get_by_role("row").filter(has_text="login").filter(has_text="Session")
    await other.get_by_role("button").click()
    await expect(dialog).not_to_contain_text("signs you out")
    await dialog.get_by_role("button", name="Keep it").click()

    # A token that ran out is Expired by the server's clock, whatever this browser's says
    # (an hour slow here).
    async with unit_of_work(shop.engine) as conn:
        await people.issue_token(
            conn,
            kind=TokenKind.API,
            name="Old import",
            user_id=shop.users["ada"],
            ttl_seconds=None,
            expires_at=datetime.now(UTC) - timedelta(minutes=5),
        )
    await page.clock.set_system_time(datetime.now(UTC) - timedelta(hours=1))
    await page.reload()
    old = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="Old import"))
    await expect(old).to_contain_text("Expired")

    # Revoking this browser's session signs the admin out.
    await marked.get_by_role("button").click()
    await dialog.get_by_role("button", name="Revoke token").click()
    await expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    await expect(page.locator(".notice")).to_contain_text("Please sign in again.")
    admin.assert_clean()
    await admin.close()
