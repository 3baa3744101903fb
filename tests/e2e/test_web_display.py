"""The improved wall display: the department's name, a job line per task, "+ N more"
when the queue does not fit, a plain message for an unknown department or a refused
token, and a 24-hour clock unless ?clock=12."""

import re
from pathlib import Path

import pytest
from playwright.async_api import expect
from sqlalchemy import text

from db.engine import unit_of_work
from tests.e2e.web.support import (
    OpenTab,
    base,
    scalar,
)
from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop
from tests.support.subscriptions import START, display_token

pytestmark = pytest.mark.e2e

DEPARTMENT = """mutation($i: CreateDepartmentInput!) { createDepartment(input: $i) {
  department { code } userErrors { code message } } }"""
REVOKE = """mutation($i: RevokeTokenInput!) { revokeToken(input: $i) { token { revokedAt } } }"""


async def test_the_display_shows_names_job_lines_and_how_many_more(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
    screenshots: Path,
) -> None:
    made = await api.as_(shop.tokens["ada"])(
        DEPARTMENT, {"i": {"code": "wide", "name": "Wide format", "kind": "PRODUCTION"}}
    )
    assert made["createDepartment"]["userErrors"] == []
    orders = [
        await shop.order(["wide"], details={"product": f"Banner {n}", "quantity": 10 + n})
        for n in range(16)
    ]
    # Two of them are in progress (the last two, so the waiting ones keep their numbers).
    shop.departments["wide"] = await scalar(shop, "SELECT id FROM departments WHERE code = 'wide'")
    wim = api.as_(await shop.add_user("wim", ["wide"]))
    for order in orders[14:]:
        task = (await task_ids(shop.engine, order))["wide"]
        await wim(START, {"i": {"taskId": gid("DepartmentTask", task)}})
    # The oldest has waited 50 hours: the display says it as the app does ("2 days").
    async with unit_of_work(shop.engine) as conn:
        await conn.execute(
            text(
                "UPDATE department_tasks SET available_at = now() - interval '50 hours 3 minutes'"
                " WHERE id = :t"
            ),
            {"t": (await task_ids(shop.engine, orders[0]))["wide"]},
        )
    secret = (await display_token(api, shop, ["wide"]))["secret"]
    tab = await tabs()
    page = tab.page
    await page.goto(f"{base(server)}/display/wide?token={secret}")
    await expect(page.locator("#status")).to_have_text("Live")
    await expect(page.locator("#title")).to_have_text("Wide format queue")
    await expect(page.locator("#waiting-count")).to_have_text("14")
    first = page.locator("#waiting li").first
    await expect(first).to_contain_text("10 x Banner 0")
    # Each timer says which clock it is.
    await expect(first.locator(".since")).to_have_text("waiting 2 days")
    await expect(page.locator("#waiting li").nth(1).locator(".since")).to_have_text("waiting 0 min")
    await expect(page.locator("#working-count")).to_have_text("2")
    await expect(page.locator("#working li").first.locator(".since")).to_have_text("working 0 min")
    await expect(page.locator("#working li").first).to_contain_text("Wim")

    # 14 do not fit on 1366x768: the ones that fit are whole, the rest are counted.
    more = page.locator("#waiting-more")
    await expect(more).to_be_visible()
    shown = await page.locator("#waiting li:visible").count()
    assert 0 < shown < 14
    await expect(more).to_have_text(f"+ {14 - shown} more waiting")
    list_box = await page.locator("#waiting").bounding_box()
    last_box = await page.locator("#waiting li:visible").last.bounding_box()
    assert list_box is not None and last_box is not None
    assert last_box["y"] + last_box["height"] <= list_box["y"] + list_box["height"] + 1
    await page.screenshot(path=str(screenshots / "wall-display-more-desktop.png"))

    # 24-hour clock by default.
    await expect(page.locator("#clock")).to_have_text(re.compile(r"^([01]\d|2[0-3]):[0-5]\d$"))
    # On a taller screen more fit, and the count follows.
    await page.set_viewport_size({"width": 800, "height": 1280})
    await expect(page.locator("#waiting li:visible")).not_to_have_count(shown)
    await page.screenshot(path=str(screenshots / "wall-display-more-tablet.png"))
    # Portrait is one column (in progress below waiting), and nothing wraps: the title,
    # the headings, order numbers and timers each keep to one line.
    waiting_box = await page.locator("#waiting").bounding_box()
    working_box = await page.locator("#working").bounding_box()
    assert waiting_box is not None and working_box is not None
    assert working_box["x"] == waiting_box["x"]
    assert working_box["y"] > waiting_box["y"] + waiting_box["height"]
    assert waiting_box["width"] > 700
    one_line = """el => { const s = getComputedStyle(el);
        return el.getBoundingClientRect().height < 1.5 * parseFloat(s.fontSize); }"""
    for selector in ["#title", "#working-heading", "#waiting-heading", "#clock",
                     "#waiting li:visible .order", "#waiting li:visible .since",
                     "#working li .order", "#working li .since"]:  # fmt: skip
        for element in await page.locator(selector).all():
            assert await element.evaluate(one_line), selector
    # At least twice as many waiting tasks as the two that fit before.
    portrait = await page.locator("#waiting li:visible").count()
    assert portrait >= 5
    await expect(more).to_have_text(f"+ {14 - portrait} more waiting")
    tab.assert_clean()
    await tab.close()

    tab = await tabs()
    await tab.page.goto(f"{base(server)}/display/wide?token={secret}&clock=12")
    await expect(tab.page.locator("#clock")).to_have_text(
        re.compile(r"^(1[0-2]|[1-9]):[0-5]\d (AM|PM)$")
    )
    # The token left the address bar as soon as it was read (the clock setting stayed);
    # the tab keeps it, so a reload still shows the queue.
    await expect(tab.page.locator("#status")).to_have_text("Live")
    assert tab.page.url == f"{base(server)}/display/wide?clock=12"
    await tab.page.reload()
    await expect(tab.page.locator("#status")).to_have_text("Live")
    assert secret not in tab.page.url
    tab.assert_clean()
    await tab.close()


async def test_the_display_says_what_is_wrong_instead_of_reconnecting(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
    screenshots: Path,
) -> None:
    made = await display_token(api, shop, ["print"])
    secret, token_id = made["secret"], made["token"]["id"]
    cases = [
        (f"/display/nope?token={secret}", "There is no department “nope”"),
        ("/display/print?token=not-a-token", "This display's token was refused"),
        (f"/display/finishing?token={secret}", "may not show the “finishing” queue"),
        ("/display/print", "This display has no token"),
    ]
    for path, message in cases:
        tab = await tabs()
        await tab.page.goto(base(server) + path)
        await expect(tab.page.locator("#problem")).to_contain_text(message)
        await expect(tab.page.locator("#status")).to_have_text("Not live")
        # No empty "Waiting 0 / In progress 0" columns under the message.
        await expect(tab.page.locator("#waiting-heading")).to_be_hidden()
        await expect(tab.page.locator("#working-heading")).to_be_hidden()
        if "nope" in path:
            await tab.page.screenshot(path=str(screenshots / "wall-display-unknown-desktop.png"))
        tab.assert_clean()
        await tab.close()

    # Revoked while it is live: the server closes its websocket, the screen says so.
    tab = await tabs()
    await tab.page.goto(f"{base(server)}/display/print?token={secret}")
    await expect(tab.page.locator("#status")).to_have_text("Live")
    await api.as_(shop.tokens["ada"])(REVOKE, {"i": {"tokenId": token_id}})
    await expect(tab.page.locator("#problem")).to_contain_text("This display's token was refused")
    await expect(tab.page.locator("#status")).to_have_text("Not live")
    await expect(tab.page.locator("#waiting-heading")).to_be_hidden()
    tab.assert_clean()
    await tab.close()


async def test_the_display_runs_on_a_server_that_trusts_only_the_apps_documents(
    api: Client,
    server: str,
    trusted_server: str,
    shop: Shop,
    tabs: OpenTab,
    screenshots: Path,
) -> None:
    await shop.order(["print"], details={"product": "Posters", "quantity": 40})
    secret = (await display_token(api, shop, ["print"]))["secret"]
    tab = await tabs()
    page = tab.page
    await page.goto(f"{base(trusted_server)}/display/print?token={secret}")
    await expect(page.locator("#status")).to_have_text("Live")
    await expect(page.locator("#waiting li").first).to_contain_text("40 x Posters")
    # A task that arrives live: the subscription runs too.
    await shop.order(["print"], details={"product": "Flyers", "quantity": 500})
    await expect(page.locator("#waiting li")).to_have_count(2)
    await page.screenshot(path=str(screenshots / "wall-display-trusted-documents.png"))
    tab.assert_clean()
    await tab.close()
