"""Every screen of the app, at 1366x768 and on an 800x1280 tablet (a test each): axe-core finds no
serious or critical violation, the page does not scroll sideways, and a screenshot is
written (the folder is printed; set PRESSROOM_SCREENSHOTS to choose it)."""

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, Request, expect

from tests.e2e.web.support import (
    DESKTOP,
    TABLET,
    OpenTab,
    axe_violations,
    base,
)
from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop
from tests.support.subscriptions import FINISH, START

pytestmark = pytest.mark.e2e

POST = """mutation($i: PostLedgerEntryInput!) { postLedgerEntry(input: $i) {
  userErrors { message } } }"""
DISPLAY = """mutation($i: CreateDisplayTokenInput!) { createDisplayToken(input: $i) {
  secret } }"""

Prepare = Callable[[Page], Awaitable[None]]

# Controls a finger must hit (buttons, fields, menus) that are under 44 x 44 CSS pixels.
# Checkboxes and radios are 24 px boxes on 44 px rows whose label is part of the target.
SMALL_TARGETS = """() => Array.from(document.querySelectorAll(
    "button, a.button, select, textarea, input:not([type=checkbox]):not([type=radio])"))
  .filter((e) => e.getClientRects().length > 0)
  .map((e) => [e.getBoundingClientRect(), e.textContent.trim() || e.id || e.tagName])
  .filter(([r]) => r.height < 44 || r.width < 44)
  .map(([r, name]) => `${name} ${Math.round(r.width)}x${Math.round(r.height)}`)"""


# One look at the page over two rendered frames, each followed by a task (when Preact runs
# its effects, focus moves among them): what still changes or waits, or "" when nothing.
# Whatever waits on the server says so by aria-busy or a status ending in "…" (Loading…,
# Connecting… until the live subscription is up).
UNSETTLED = """async () => {
  await document.fonts.ready;
  const focused = document.activeElement;
  const observer = new MutationObserver(() => {});
  observer.observe(document, {subtree: true, childList: true, attributes: true,
                              characterData: true});
  for (let i = 0; i < 2; i++) {
    await new Promise((done) => requestAnimationFrame(() => setTimeout(done)));
  }
  const changes = observer.takeRecords().length;
  observer.disconnect();
  const waiting = Array.from(document.querySelectorAll('[aria-busy="true"], [role="status"]'))
    .filter((e) => e.getAttribute("aria-busy") === "true" || e.textContent.trim().endsWith("…"))
    .map((e) => e.textContent.trim());
  if (document.fonts.status !== "loaded") return "fonts still loading";
  if (changes) return `${changes} changes to the page`;
  if (document.activeElement !== focused) return "focus still moving";
  if (waiting.length) return `waiting: ${waiting.join(", ")}`;
  return "";
}"""
SETTLE_SECONDS = 30


class Settled:
    """Waits until the page is still: fonts loaded, no request to the server in flight
    (the websocket aside: it stays open), nothing waiting, and no change to the page or
    its focus for two frames. Listens from before the page is opened."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.started = self.ended = 0
        page.on("request", self._started)
        page.on("requestfinished", self._ended)
        page.on("requestfailed", self._ended)

    def _started(self, request: Request) -> None:
        self.started += 1

    def _ended(self, request: Request) -> None:
        self.ended += 1

    async def wait(self, label: str) -> None:
        unsettled = "not looked at yet"
        try:
            async with asyncio.timeout(SETTLE_SECONDS):
                while True:
                    # Requests counted on both sides of the look: none ran during it.
                    before = (self.started, self.ended)
                    unsettled = await self.page.evaluate(UNSETTLED)
                    if self.started != self.ended:
                        unsettled = f"{self.started - self.ended} requests in flight"
                    elif before != (self.started, self.ended):
                        unsettled = "requests made meanwhile"
                    if not unsettled:
                        return
        except TimeoutError:
            pytest.fail(f"{label} did not settle in {SETTLE_SECONDS} s: {unsettled}")


async def nothing(page: Page) -> None:
    return None


async def floor(shop: Shop, api: Client) -> dict[str, Any]:
    """A few orders in mixed states, a ledger, a display token."""
    pat, pia = api.as_(shop.tokens["pat"]), api.as_(shop.tokens["pia"])
    orders = []
    for n, details in enumerate(
        [
            {"product": "Flyers A5", "quantity": 500},
            {"title": "Menus for the summer terrace"},
            {"product": "Posters A2", "quantity": 40},
            {"notes": "Repair the shop sign\nbring ladder"},
        ]
    ):
        orders.append(
            await shop.order(["print", "finishing"] if n % 2 else ["print"], details=details)
        )
    first = await task_ids(shop.engine, orders[0])
    await pat(START, {"i": {"taskId": gid("DepartmentTask", first["print"])}})
    await pat(FINISH, {"i": {"taskId": gid("DepartmentTask", first["print"])}})
    second = await task_ids(shop.engine, orders[1])
    await pia(START, {"i": {"taskId": gid("DepartmentTask", second["print"])}})
    third = await task_ids(shop.engine, orders[2])
    await pat(START, {"i": {"taskId": gid("DepartmentTask", third["print"])}})
    abe = api.as_(shop.tokens["abe"])
    customer = gid("Customer", shop.customer_id)
    for kind, amount, key in [("CHARGE", "240.00", "a"), ("PAYMENT", "100.00", "b")]:
        result = await abe(
            POST,
            {"i": {"customerId": customer, "workOrderId": gid("WorkOrder", orders[0]),
                   "kind": kind, "amount": amount, "idempotencyKey": key, "memo": "Audit"}},
        )  # fmt: skip
        assert result["postLedgerEntry"]["userErrors"] == []
    secret = (await api.as_(shop.tokens["ada"])(
        DISPLAY, {"i": {"name": "Print wall", "departmentCodes": ["print"]}}
    ))["createDisplayToken"]["secret"]  # fmt: skip
    return {"order": gid("WorkOrder", orders[0]), "customer": customer, "secret": secret}


# One test a size, so that two of the suite's workers can take one each.
@pytest.mark.parametrize(("size_name", "size"), [("desktop", DESKTOP), ("tablet", TABLET)])
async def test_every_screen_passes_axe_and_holds_its_layout(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
    axe_source: str,
    screenshots: Path,
    size_name: str,
    size: dict[str, int],
) -> None:
    data = await floor(shop, api)

    async def new_order(page: Page) -> None:
        await page.get_by_label("Customer").fill("AC")
        await expect(page.get_by_role("radio", name="ACME")).to_be_visible()
        await page.get_by_role("button", name="Create work order").click()
        await expect(page.locator(".field-error").first).to_be_visible()

    async def reason_dialog(page: Page) -> None:
        await page.get_by_role("button", name="Reopen").first.click()
        await expect(page.get_by_role("dialog")).to_be_visible()

    async def quote_dialog(page: Page) -> None:
        await page.get_by_role("button", name="Edit quote").click()
        await expect(page.get_by_role("dialog")).to_be_visible()

    async def post_entry(page: Page) -> None:
        await page.get_by_role("button", name="New ledger entry").click()
        await expect(page.get_by_role("button", name="Post entry")).to_be_visible()

    async def new_display(page: Page) -> None:
        await page.get_by_label("Token name").fill("Finishing wall")
        await page.get_by_role("checkbox", name="Finishing").check()
        await page.get_by_role("button", name="Create display token").click()
        await expect(
            page.get_by_role("link", name="Open the Finishing wall display")
        ).to_be_visible()

    order, customer, secret = data["order"], data["customer"], data["secret"]
    screens: list[tuple[str, str | None, str, Prepare, str]] = [
        # name, who, path, what to do first, what shows it is ready
        ("sign-in", None, "/", nothing, "button >> text=Sign in"),
        ("queues", "pat", "/queues", nothing, "text=● Live"),
        ("work-orders", "sam", "/orders", nothing, "table.orders"),
        ("new-work-order", "sam", "/orders/new", new_order, "form"),
        ("work-order", "ada", f"/orders/{order}", nothing, ".timeline li"),
        ("work-order-reopen", "ada", f"/orders/{order}", reason_dialog, ".timeline li"),
        ("work-order-quote", "sam", f"/orders/{order}", quote_dialog, ".timeline li"),
        ("ticket", "pat", f"/orders/{order}/ticket", nothing, "article.ticket"),
        ("insights", "sam", "/insights", nothing, ".chart canvas"),
        ("accounts", "abe", "/accounts", nothing, "table"),
        ("ledger", "abe", f"/accounts/{customer}", post_entry, "table.ledger"),
        ("customers", "sam", "/customers", nothing, "table.customers"),
        ("customer", "abe", f"/customers/{customer}", nothing, "table"),
        ("admin-people", "ada", "/admin/people", nothing, "table"),
        ("admin-departments", "ada", "/admin/departments", nothing, "table"),
        ("admin-tokens", "ada", "/admin/tokens", new_display, "table"),
        ("not-found", "ada", "/no/such/screen", nothing, "text=Page not found"),
        ("bad-order-link", "sam", "/orders/bogus", nothing, "text=Work order not found"),
        ("wall-display", None, f"/display/print?token={secret}", nothing, "text=Live"),
    ]
    found: dict[str, list[dict[str, Any]]] = {}
    overflow: list[str] = []
    small_targets: dict[str, list[str]] = {}
    for name, who, path, prepare, ready in screens:
        tab = await tabs(token=shop.tokens[who] if who else None, viewport=size)
        page = tab.page
        settled = Settled(page)
        await page.goto(base(server) + path)
        await expect(page.locator(ready).first).to_be_visible()
        await prepare(page)
        label = f"{name}@{size_name}"
        await settled.wait(label)
        if violations := await axe_violations(page, axe_source):
            found[label] = violations
        if await page.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1"):
            overflow.append(label)
        if small := await page.evaluate(SMALL_TARGETS):
            small_targets[label] = small
        await page.screenshot(
            path=str(screenshots / f"{name}-{size_name}.png"),
            full_page=True,
            animations="disabled",
        )
        tab.assert_clean()
        await tab.close()
    print(f"\n{len(screens)} screenshots in {screenshots}")
    assert found == {}
    assert overflow == []
    assert small_targets == {}
