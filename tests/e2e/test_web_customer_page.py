"""The customer's page in Chromium on a phone (390 px wide): it shows the order in a
customer's words with no serious axe-core violation and no sideways scroll, asks for its
state once a minute and no more often, follows the order, and a revoked link's page says
so. Screenshots are written (the folder is printed; PRESSROOM_SCREENSHOTS chooses it)."""

import io
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from PIL import Image, ImageDraw
from playwright.async_api import Page, expect

from db import customer_links
from db.engine import unit_of_work
from tests.e2e.web.support import OpenTab, axe_violations, base
from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.orders import reschedule
from tests.support.servers import serving
from tests.support.shop import Shop
from tests.support.subscriptions import FINISH, START

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}
CREATE = """mutation($i: CreateCustomerLinkInput!) { createCustomerLink(input: $i) {
  url link { id } } }"""
REVOKE = """mutation($i: RevokeCustomerLinkInput!) { revokeCustomerLink(input: $i) {
  link { works } } }"""
DUE = datetime(2027, 3, 4, 13, 30, tzinfo=UTC)
LATER = "2027-03-11T13:30:00Z"


async def look(page: Page, folder: Path, name: str, axe_source: str) -> None:
    """No serious axe-core violation, nothing wider than the phone, and a screenshot."""
    assert await axe_violations(page, axe_source) == [], name
    width = await page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{name} scrolls sideways: {width} px"
    await page.screenshot(path=str(folder / f"{name}-phone.png"), full_page=True)


def artwork() -> bytes:
    """A proof as a designer would send it: a flyer's colours and a headline band."""
    image = Image.new("RGB", (800, 1100), (250, 246, 236))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 800, 260), fill=(11, 92, 173))
    draw.rectangle((60, 340, 740, 420), fill=(22, 32, 42))
    draw.ellipse((250, 520, 550, 820), fill=(240, 180, 0))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


async def upload(http: httpx.AsyncClient, server: str, shop: Shop, order: int) -> None:
    answer = await http.post(
        f"{base(server)}/orders/{gid('WorkOrder', order)}/proofs",
        files={"file": ("flyer.png", artwork(), "image/png")},
        headers={"authorization": f"Bearer {shop.tokens['sam']}"},
    )
    assert answer.status_code == 201, answer.text


async def reloaded_by_refresh(page: Page) -> None:
    """The page's refresh, which finds the order changed and reloads the page: the reload
    is waited for, not the refresh's promise, whose page may be gone before it settles."""
    async with page.expect_navigation():
        await page.evaluate("void window.__pressroom.refresh()")


async def test_the_customer_follows_their_order_on_a_phone(
    api: Client,
    shop: Shop,
    server: str,
    http: httpx.AsyncClient,
    tabs: OpenTab,
    screenshots: Path,
    axe_source: str,
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

    # Its state is asked for once a minute, not sooner. (Checked before the screenshots:
    # the page's clock also flows by itself, and they took part of the minute on a slow run.)
    states = [url for url in asked if url.endswith("/state")]
    assert states == []
    await page.clock.run_for(59_000)
    assert [url for url in asked if url.endswith("/state")] == []
    async with page.expect_response(lambda r: r.url.endswith("/state")):
        await page.clock.run_for(2_000)
    assert [url for url in asked if url.endswith("/state")] == [made["url"] + "/state"]
    await look(page, screenshots, "customer-page", axe_source)

    # Design starts: the next refresh shows it.
    tasks = await task_ids(shop.engine, order)
    dee = api.as_(shop.tokens["dee"])
    await dee(START, {"i": {"taskId": gid("DepartmentTask", tasks["design"])}})
    await reloaded_by_refresh(page)
    await expect(page.locator("#stage")).to_have_text("In design")
    await look(page, screenshots, "customer-page-in-design", axe_source)
    await dee(FINISH, {"i": {"taskId": gid("DepartmentTask", tasks["design"])}})

    # A proof arrives: the page shows it, waiting for the customer, with its preview.
    await upload(http, server, shop, order)
    await reloaded_by_refresh(page)
    await expect(page.locator("#stage")).to_have_text("Waiting for your approval")
    version = page.get_by_role("article", name="Version 1")
    await expect(version.get_by_role("img", name="Preview of Version 1")).to_be_visible()
    assert await version.get_by_role("img").evaluate("(img) => img.naturalWidth") == 800
    await expect(version.get_by_role("link", name="Download Version 1")).to_be_visible()
    await look(page, screenshots, "customer-page-proof", axe_source)

    # The customer asks for changes: the comment is needed, and their name.
    await version.get_by_text("Request changes").click()
    await version.get_by_label("What should change?").fill("The logo bigger, please.")
    await version.get_by_label("Your name").last.fill("Jane Doe")
    # The order changes while they type: the page says so rather than reload under them.
    await reschedule(api, shop, order, LATER)
    await page.evaluate("window.__pressroom.refresh()")
    changed = page.get_by_role("status")
    await expect(changed).to_contain_text("Your order has changed since this page was loaded.")
    await expect(changed.get_by_role("button", name="Show the changes")).to_be_visible()
    await expect(version.get_by_label("What should change?")).to_have_value(
        "The logo bigger, please."
    )
    await look(page, screenshots, "customer-page-request-changes", axe_source)
    async with page.expect_navigation():
        await version.get_by_role("button", name="Send the changes").click()
    await expect(page.get_by_role("status")).to_have_text(
        "Thank you: we have your comments and will send you a new version."
    )
    await expect(page.locator("#stage")).to_have_text("In design")
    await expect(page.locator("dd time")).to_have_text("Thursday, 11 March 2027 at 13:30")
    await expect(version).to_contain_text("Your comments: The logo bigger, please.")
    await look(page, screenshots, "customer-page-changes-sent", axe_source)

    # Design makes version 2 (its task was reopened with the comment); the customer approves.
    await dee(START, {"i": {"taskId": gid("DepartmentTask", tasks["design"])}})
    await dee(FINISH, {"i": {"taskId": gid("DepartmentTask", tasks["design"])}})
    await upload(http, server, shop, order)
    await reloaded_by_refresh(page)
    latest = page.get_by_role("article", name="Version 2")
    await expect(page.get_by_role("article", name="Version 1")).to_contain_text("Changes requested")
    await latest.get_by_text("Approve Version 2").first.click()
    await latest.get_by_label("Your name").first.fill("Jane Doe")
    async with page.expect_navigation():
        await latest.get_by_role("button", name="Approve Version 2").click()
    await expect(page.get_by_role("status")).to_have_text("Thank you: your approval is recorded.")
    await expect(latest).to_contain_text("Approved on")
    await expect(page.locator("#stage")).to_have_text("In production")
    await expect(page.get_by_text("Jane")).to_have_count(0)
    await look(page, screenshots, "customer-page-approved", axe_source)

    # The shop withdraws the link: the page says so at its next refresh, and how to reach it.
    await sam(REVOKE, {"i": {"id": made["link"]["id"]}})
    await reloaded_by_refresh(page)
    await expect(page.get_by_role("heading", name="This link was withdrawn")).to_be_visible()
    await expect(page.locator("main")).to_contain_text("Please contact Print shop.")
    await look(page, screenshots, "customer-page-revoked", axe_source)

    tab.assert_clean()
    # The revoked link's answers are 410s, as meant; nothing else is an error (a script
    # or style the page's CSP refused would be).
    gone = "the server responded with a status of 410"
    assert [line for line in console if line.startswith("error") and gone not in line] == []


async def test_a_german_shop_speaks_german_and_writes_times_its_own_way(
    api: Client,
    database_url: str,
    shop: Shop,
    server: str,
    http: httpx.AsyncClient,
    tabs: OpenTab,
    screenshots: Path,
    axe_source: str,
) -> None:
    order = await shop.order(["print"], due_at=DUE)
    await upload(http, server, shop, order)
    async with unit_of_work(shop.engine) as conn:
        made = await customer_links.create(conn, order, created_by=shop.users["sam"])
    settings = {
        "PRESSROOM_LOCALE": "de-DE",
        "PRESSROOM_TIME_ZONE": "Europe/Berlin",
        "PRESSROOM_SHOP_NAME": "Druckerei Müller",
    }
    with serving(None, database_url=database_url, settings=settings) as (site, _):
        tab = await tabs(viewport=PHONE)
        await tab.page.goto(f"{site}/c/{made.secret}")
        due = tab.page.locator("dd time")
        await expect(due).to_have_text("Donnerstag, 4. März 2027 um 14:30")
        assert await due.get_attribute("lang") == "de-DE"
        await expect(tab.page.get_by_text("Druckerei Müller", exact=True)).to_be_visible()
        page = tab.page
        assert await page.get_attribute("html", "lang") == "de"
        await expect(page.get_by_role("heading", level=1)).to_have_text("Auftrag WO-000001")
        await expect(page.locator("#stage")).to_have_text("Wartet auf Ihre Freigabe")
        version = page.get_by_role("article", name="Version 1")
        await expect(version.get_by_role("img", name="Vorschau von Version 1")).to_be_visible()
        await version.get_by_text("Version 1 freigeben").first.click()
        await look(page, screenshots, "customer-page-german", axe_source)
        # The script's own words: the order changed while a name is being typed.
        await version.get_by_label("Ihr Name").first.fill("Jana")
        await reschedule(api, shop, order, LATER)
        await page.evaluate("window.__pressroom.refresh()")
        changed = page.get_by_role("status").filter(has_text="Ihr Auftrag hat sich geändert")
        await expect(changed).to_be_visible()
        await expect(changed.get_by_role("button", name="Änderungen anzeigen")).to_be_visible()
        await expect(page.locator("#updated")).to_contain_text("Zuletzt aktualisiert ")
        tab.assert_clean()
