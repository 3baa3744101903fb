"""Helpers for the app's browser tests (tests/e2e/test_web_*.py): pages with every
non-local request blocked, signing in, people with passwords, axe-core, screenshots."""

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from playwright.async_api import Browser, BrowserContext, Page, Request, expect
from sqlalchemy import text

from db.engine import unit_of_work
from tests.support.shop import Shop

HERE = Path(__file__).resolve().parent
AXE = HERE / "node_modules" / "axe-core" / "axe.min.js"
PASSWORD = "correct horse battery"
DESKTOP = {"width": 1366, "height": 768}
TABLET = {"width": 800, "height": 1280}
PHONE = {"width": 390, "height": 844}
WIDTHS = (("phone", PHONE), ("tablet", TABLET), ("desktop", DESKTOP))
SESSION_KEY = "pressroom.session"


# The browser's proxy (tests/e2e/conftest.py): no such host, so a request to any host but
# this one fails in the browser; loopback never goes through a proxy.
OUTSIDE_PROXY = "http://outside.invalid:9"
LOOPBACK = ("127.0.0.1", "localhost")


def record_outside(outside: list[str], request: Request) -> None:
    """Keeps the URL of a failed request to another host: one the app should not make."""
    if urlparse(request.url).hostname not in LOOPBACK:
        outside.append(request.url)


def base(server: str) -> str:
    return server.removesuffix("/graphql")


@dataclass
class Tab:
    """A page in its own browser context (its own sessionStorage, its own websocket)."""

    context: BrowserContext
    page: Page
    errors: list[Any] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)

    async def close(self) -> None:
        await self.context.close()

    def assert_clean(self) -> None:
        assert self.errors == [], self.errors
        assert self.outside == [], self.outside


async def open_tab(
    browser: Browser,
    *,
    token: str | None = None,
    token_id: str | None = None,
    viewport: dict[str, int] | None = None,
    timezone_id: str | None = None,
    service_worker: bool = False,
) -> Tab:
    """A new context whose requests to other hosts are recorded (the browser fails them);
    with `token`, the tab is signed in (the token, and `token_id` if given, in its
    sessionStorage, as after signing in); with `timezone_id`, the browser's clock is in
    that zone; with `service_worker`, the app's worker installs and controls the page.

    Without it the worker is blocked: installing it fetches every file of the app again
    into a new context's empty cache, a fifth of a browser test's CPU (the browser's and
    the server's), and only the tests of the worker and of a journey under it need it."""
    context = await browser.new_context(
        viewport=viewport or DESKTOP,  # type: ignore[arg-type]
        timezone_id=timezone_id,
        service_workers="allow" if service_worker else "block",
    )
    tab = Tab(context, await context.new_page())
    context.on("requestfailed", lambda request: record_outside(tab.outside, request))
    if token is not None:
        await context.add_init_script(
            f"window.sessionStorage.setItem({json.dumps(SESSION_KEY)}, "
            f"{json.dumps(json.dumps({'token': token, 'tokenId': token_id}))});"
        )
    tab.page.on("pageerror", lambda error: tab.errors.append(error))
    return tab


OpenTab = Callable[..., Awaitable[Tab]]


async def under_service_worker(page: Page, seconds: float = 15) -> None:
    """Returns once the app's service worker controls the page, or fails. Awaited in one
    evaluate: wait_for_function polls with eval, which the pages' policy refuses."""
    controlled = await page.evaluate(
        """(ms) => navigator.serviceWorker.controller ? true : new Promise((resolve) => {
          navigator.serviceWorker.addEventListener("controllerchange", () => resolve(true));
          setTimeout(() => resolve(false), ms);
        })""",
        seconds * 1000,
    )
    assert controlled, f"no service worker controls {page.url} after {seconds} s"


async def user_with_password(
    shop: Shop, key: str, codes: list[str], *, is_admin: bool = False
) -> str:
    """A person who signs in through the form (the shop's people have no password)."""
    async with unit_of_work(shop.engine) as conn:
        await shop.person(conn, key, codes, is_admin=is_admin, password=PASSWORD)
    return f"{key}@shop.test"


async def sign_in(page: Page, server: str, email: str, password: str = PASSWORD) -> None:
    await page.goto(base(server) + "/")
    await page.get_by_label("Email").fill(email)
    await page.get_by_label("Password").fill(password)
    await page.get_by_role("button", name="Sign in").click()
    await expect(page.get_by_role("button", name="Sign out")).to_be_visible()


async def session_token(page: Page) -> str | None:
    stored = await stored_session(page)
    return None if stored is None else str(stored["token"])


async def stored_session(page: Page) -> dict[str, Any] | None:
    stored = await page.evaluate(f"window.sessionStorage.getItem({json.dumps(SESSION_KEY)})")
    return None if stored is None else dict(json.loads(stored))


async def scalar(shop: Shop, sql: str, **params: Any) -> Any:
    async with shop.engine.connect() as conn:
        return await conn.scalar(text(sql), params)


# --- axe-core ----------------------------------------------------------------------------


def pinned_axe() -> str:
    return str(json.loads((HERE / "package.json").read_text())["dependencies"]["axe-core"])


async def axe_violations(page: Page, source: str) -> list[dict[str, Any]]:
    """Serious and critical axe-core violations on the page as it is now. axe is
    evaluated through the DevTools protocol, so the page's CSP stays as strict as served."""
    if not await page.evaluate("typeof window.axe !== 'undefined'"):
        await page.evaluate(source)
    result = await page.evaluate(
        """async () => {
          const r = await window.axe.run(document, {resultTypes: ["violations"]});
          return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map(n => n.target.join(" ")).slice(0, 5)}));
        }"""
    )
    return [v for v in result if v["impact"] in ("serious", "critical")]


# --- screenshots -------------------------------------------------------------------------


async def shoot(page: Page, folder: Path, name: str, source: str) -> None:
    """Screenshots at both sizes (a dialog: the viewport it covers; else the whole page),
    and no serious axe-core violation at either."""
    whole = await page.get_by_role("dialog").count() == 0
    for size, viewport in (("desktop", DESKTOP), ("tablet", TABLET)):
        await page.set_viewport_size(viewport)  # type: ignore[arg-type]
        assert await axe_violations(page, source) == [], size
        await page.screenshot(path=str(folder / f"{name}-{size}.png"), full_page=whole)
    await page.set_viewport_size(DESKTOP)  # type: ignore[arg-type]


async def shoot_widths(page: Page, folder: Path, name: str, source: str) -> None:
    """At phone, tablet and desktop widths: no serious axe-core violation, the page no
    wider than the window, and a screenshot (a dialog: the window it covers; else the
    whole page)."""
    whole = await page.get_by_role("dialog").count() == 0
    for size, viewport in WIDTHS:
        await page.set_viewport_size(viewport)  # type: ignore[arg-type]
        assert await axe_violations(page, source) == [], f"{name} at {size}"
        width = await page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], f"{name} scrolls sideways at {size}: {width} px"
        await page.screenshot(path=str(folder / f"{name}-{size}.png"), full_page=whole)
    await page.set_viewport_size(DESKTOP)  # type: ignore[arg-type]
