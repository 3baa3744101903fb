"""The customer's page in Chromium on a phone (390 px wide): it shows the order in a
customer's words with no serious axe-core violation and no sideways scroll, asks for its
state once a minute and no more often, follows the order, and a revoked link's page says
so. Screenshots are written (the folder is printed; PRESSROOM_SCREENSHOTS chooses it)."""

from datetime import UTC, datetime
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.e2e.web.support import OpenTab, axe_violations
from tests.support import START, Client, Shop, gid, task_ids

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}
CREATE = """mutation($i: CreateCustomerLinkInput!) { createCustomerLink(input: $i) {
  url link { id } } }"""
REVOKE = """mutation($i: RevokeCustomerLinkInput!) { revokeCustomerLink(input: $i) {
  link { works } } }"""
DUE = datetime(2027, 3, 4, 13, 30, tzinfo=UTC)


async def look(page: Page, folder: Path, name: str, axe_source: str) -> None:
    """No serious axe-core violation, nothing wider than the phone, and a screenshot."""
    assert await axe_violations(page, axe_source) == [], name
    width = await page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{name} scrolls sideways: {width} px"
    await page.screenshot(path=str(folder / f"{name}-phone.png"), full_page=True)


async def test_the_customer_follows_their_order_on_a_phone(
    api: Client, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    order = await shop.order(
        ["design", "print"],
        details={"product": "Flyers A5, 135 g gloss", "quantity": 500},
        due_at=DUE,
    )
    sam = api.as_(shop.tokens["sam"])
    made = (await sam(CREATE, {"i": {"workOrderId": gid("WorkOrder", order)}}))[
        "createCustomerLink"
    ]
    tab = await tabs(viewport=PHONE)
    page = tab.page
    console: list[str] = []
    page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    await page.clock.install()
    await page.goto(made["url"])

    await expect(page.get_by_role("heading", name="Order WO-000001")).to_be_visible()
    await expect(page.locator("#stage")).to_have_text("Received")
    await expect(page.get_by_text("500 x Flyers A5, 135 g gloss")).to_be_visible()
    # The due date in the shop's locale (en-GB) and zone (UTC), by the page's script.
    await expect(page.locator("dd time")).to_have_text("Thursday, 4 March 2027 at 13:30")
    await expect(page.locator("#updated")).to_contain_text("Last updated")
    await look(page, screenshots, "customer-page", axe_source)

    # Its state is asked for once a minute, not sooner.
    states = [url for url in asked if url.endswith("/state")]
    assert states == []
    await page.clock.run_for(59_000)
    assert [url for url in asked if url.endswith("/state")] == []
    async with page.expect_response(lambda r: r.url.endswith("/state")):
        await page.clock.run_for(2_000)
    assert [url for url in asked if url.endswith("/state")] == [made["url"] + "/state"]

    # Design starts: the next refresh shows it.
    tasks = await task_ids(shop.engine, order)
    await api.as_(shop.tokens["dee"])(
        START, {"i": {"taskId": gid("DepartmentTask", tasks["design"])}}
    )
    async with page.expect_navigation():
        await page.evaluate("window.__pressroom.refresh()")
    await expect(page.locator("#stage")).to_have_text("In design")
    await look(page, screenshots, "customer-page-in-design", axe_source)

    # The shop withdraws the link: the page says so at its next refresh, and how to reach it.
    await sam(REVOKE, {"i": {"id": made["link"]["id"]}})
    async with page.expect_navigation():
        await page.evaluate("window.__pressroom.refresh()")
    await expect(page.get_by_role("heading", name="This link was withdrawn")).to_be_visible()
    await expect(page.locator("main")).to_contain_text("Please contact Print shop.")
    await look(page, screenshots, "customer-page-revoked", axe_source)

    tab.assert_clean()
    # The revoked link's answers are 410s, as meant; nothing else is an error (a script
    # or style the page's CSP refused would be).
    gone = "the server responded with a status of 410"
    assert [line for line in console if line.startswith("error") and gone not in line] == []
