"""The work orders list on a phone, in Chromium: at 390 px each order is a card whose
fields wrap under their names, so neither the page nor the list scrolls sideways; at 800
and 1366 px it stays a table, which may scroll in its frame but never the page.
Screenshots at the three widths, axe-clean."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from playwright.async_api import expect

from domain.enums import WorkOrderPriority
from tests.e2e.web.support import PHONE, OpenTab, base, shoot_widths
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e

PAGE_WIDTH = "document.documentElement.scrollWidth"
# What the list would scroll sideways in its frame.
LIST_OVERFLOW = """(() => { const frame = document.querySelector('.table-wrap');
  return frame.scrollWidth - frame.clientWidth; })()"""


async def test_the_order_list_fits_a_phone(
    shop: Shop, server: str, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    due = datetime.now(UTC) + timedelta(days=3)
    await shop.order(
        ["design", "print"],
        details={"product": "Folded brochures A4 to DL, matt laminated covers", "quantity": 2500},
        due_at=due,
        priority=WorkOrderPriority.RUSH,
        proof_required=True,
    )
    await shop.order(["print"], details={"product": "Business cards"}, due_at=due)
    await shop.order(["print"], details={"product": "Posters A1"})

    tab = await tabs(token=shop.tokens["sam"], viewport=PHONE)
    page = tab.page
    await page.goto(base(server) + "/orders")
    card = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="WO-000001"))
    await expect(card).to_contain_text("Folded brochures A4 to DL")
    await shoot_widths(page, screenshots, "order-list", axe_source)
    await page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    assert await page.evaluate(PAGE_WIDTH) <= PHONE["width"]
    assert await page.evaluate(LIST_OVERFLOW) <= 0, "the list scrolls sideways in its frame"
    # On a phone each field says what it is, the table's headings being out of sight.
    due_cell = card.locator("td").nth(5)
    label = await due_cell.evaluate("(e) => getComputedStyle(e, '::before').content")
    assert label == '"Due"'
    tab.assert_clean()
