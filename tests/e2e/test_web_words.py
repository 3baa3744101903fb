"""Words as a person reads them, in Chromium: sentences keep the space between them, a
late card says "Late by 2 h" once, the live status has its space, a date never breaks
across lines, the delivery queue's customer names sit beside their order numbers, and
the admin screens' note on task moves is said once, where it helps."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.e2e.web.support import PHONE, WIDTHS, OpenTab, base, shoot_widths
from tests.support.client import Client, gid
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e

# The rendered text, as a person sees it: innerText follows the layout, spaces included.
SEEN = "(found) => found.innerText"
UPDATE_CUSTOMER = """mutation($i: UpdateCustomerInput!) { updateCustomer(input: $i) {
  userErrors { code } } }"""
ON_ITS_PAGE = (
    "Complete and Reopen of a task are on its work order\N{RIGHT SINGLE QUOTATION MARK}s page."
)


async def broken_dates(page: Page) -> list[str]:
    """The <time> elements drawn on more than one line."""
    broken: list[str] = await page.eval_on_selector_all(
        "time", "(all) => all.filter((t) => t.getClientRects().length > 1).map((t) => t.innerText)"
    )
    return broken


async def test_the_order_list_and_a_refusal_keep_the_space_between_sentences(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    due = datetime.now(UTC) + timedelta(days=3)
    for product in ("Flyers", "Posters"):
        await shop.order(["print"], due_at=due, details={"product": product})
    sam = await tabs(token=shop.tokens["sam"])
    page = sam.page
    await page.goto(base(server) + "/orders")
    await page.get_by_label("Select WO-000001 for printing").check()
    paging = page.locator(".paging")
    await expect(paging).to_contain_text("Print 1 ticket")
    assert await paging.evaluate(SEEN) == "Showing 2 work orders. Print 1 ticket"
    for size, viewport in WIDTHS:
        await page.set_viewport_size(viewport)  # type: ignore[arg-type]
        assert await broken_dates(page) == [], size
    await shoot_widths(page, screenshots, "words-order-list", axe_source)
    await page.goto(base(server) + "/accounts")
    notice = page.locator(".message.notice")
    await expect(notice).to_contain_text("Go to your start page")
    assert await notice.evaluate(SEEN) == (
        "Your account does not give you access to this screen. Go to your start page."
    )
    await shoot_widths(page, screenshots, "words-not-allowed", axe_source)
    sam.assert_clean()


async def test_the_delivery_queue_reads_late_once_live_with_a_space_and_names_in_line(
    server: str, api: Client, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    address = {"lines": ["12 Quay Street"], "postcode": "BS1 4DJ", "city": "Bristol"}
    moved = {"customerId": gid("Customer", shop.customer_id), "address": address}
    answer = await api.as_(shop.tokens["sam"])(UPDATE_CUSTOMER, {"i": moved})
    assert answer["updateCustomer"]["userErrors"] == []
    await shop.order([], due_at=datetime.now(UTC) - timedelta(hours=2))
    await shop.order([], due_at=datetime.now(UTC) + timedelta(days=2))
    dan = await tabs(token=shop.tokens["dan"], viewport=PHONE)
    page = dan.page
    await page.goto(base(server) + "/queues")
    cards = page.locator(".tasks.waiting > li")
    await expect(cards).to_have_count(2)
    status = page.locator(".live-status")
    await expect(status).to_contain_text("Live")
    assert await status.evaluate(SEEN) == "● Live"
    late = cards.filter(has_text="WO-000001").locator(".task-due")
    assert (await late.evaluate(SEEN)).startswith("! Late by 2 h ")
    for size, viewport in WIDTHS:
        await page.set_viewport_size(viewport)  # type: ignore[arg-type]
        # The customer's name beside the order number on every card, not pushed aside by
        # the delivery address below them.
        gaps = await cards.evaluate_all(
            """(all) => all.map((card) => {
                 const number = card.querySelector(".task-order a").getBoundingClientRect();
                 const name = card.querySelector(".task-customer").getBoundingClientRect();
                 return name.left - number.right;
               })"""
        )
        # The grid's gap, 0.75rem: nothing wider in the order number's column.
        assert all(abs(gap - 12) < 1 for gap in gaps), (size, gaps)
    await shoot_widths(page, screenshots, "words-delivery-queue", axe_source)
    dan.assert_clean()


async def test_the_note_on_task_moves_is_on_stale_work_alone(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    ada = await tabs(token=shop.tokens["ada"])
    page = ada.page
    await page.goto(base(server) + "/admin/stale")
    await expect(page.get_by_text("Nothing stale.")).to_be_visible()
    await expect(page.get_by_text(ON_ITS_PAGE)).to_have_count(1)
    await shoot_widths(page, screenshots, "words-stale-work", axe_source)
    await page.goto(base(server) + "/admin/people")
    await expect(page.get_by_role("heading", name="Add a person")).to_be_visible()
    await expect(page.get_by_text(ON_ITS_PAGE)).to_have_count(0)
    ada.assert_clean()
