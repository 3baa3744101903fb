"""The job in the browser: the new-order form asks for each of the job's fields and shows
every problem the server finds at its field, at once; a long product name wraps on the
queue card without covering its Start button, on the order page and on the ticket, at
phone, tablet and desktop widths; a ticket of a long product prints on one page."""

import io
import re
from pathlib import Path

import pypdfium2
import pytest
from playwright.async_api import Locator, expect

from tests.e2e.web.support import WIDTHS, OpenTab, base, shoot, shoot_widths
from tests.support.client import gid
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e

# No space to break at: the worst a name can do to a layout.
LONG = ("Concertinafoldedleaflet" * 20)[:200]


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


async def box(locator: Locator) -> dict[str, float]:
    found = await locator.bounding_box()
    assert found is not None
    return dict(found)


async def text_box(locator: Locator) -> dict[str, float]:
    """Where the element's text is drawn: past its own box when it overflows."""
    found: dict[str, float] = await locator.evaluate(
        """(element) => {
          const range = document.createRange();
          range.selectNodeContents(element);
          const { x, y, width, height } = range.getBoundingClientRect();
          return { x, y, width, height };
        }"""
    )
    return found


async def test_the_form_names_every_problem_of_the_job_at_its_field(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    await page.goto(base(server) + "/orders/new")
    await page.get_by_label("Customer").fill("ACME")
    await page.get_by_role("radio", name="ACME").click()
    await page.get_by_role("checkbox", name="Print", exact=True).check()
    await page.get_by_label("Product").fill(LONG + "x")
    await page.get_by_label("Quantity").fill("abc")
    await page.get_by_label("Colours").fill("4/4" * 40)
    await page.get_by_role("button", name="Create work order").click()
    for label, says in (
        ("Product", "Shorten the product to at most 200 characters."),
        ("Quantity", "Give the quantity as a whole number from 1 to 10,000,000."),
        ("Colours", "Shorten the colours to at most 100 characters."),
    ):
        field = page.get_by_label(label, exact=True)
        await expect(field).to_have_attribute("aria-invalid", "true")
        await expect(field).to_have_accessible_description(re.compile(re.escape(says)))
    await shoot_widths(page, screenshots, "job-form-problems", axe_source)

    await page.get_by_label("Product").fill(LONG)
    await page.get_by_label("Quantity").fill("500")
    await page.get_by_label("Colours").fill("4/4")
    await page.get_by_label("Stock", exact=True).fill("350 g silk")
    await page.get_by_role("button", name="Create work order").click()
    await expect(page.get_by_role("heading", level=1)).to_contain_text("WO-")
    details = page.locator(".details")
    for line in ("Product" + LONG, "Quantity500", "Stock350 g silk", "Colours4/4"):
        await expect(details).to_contain_text(line)
    await shoot_widths(page, screenshots, "job-order-page", axe_source)
    tab.assert_clean()


async def test_a_long_product_wraps_and_never_covers_start(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    order = await shop.order(["print"], details={"product": LONG, "quantity": 500})
    tab = await tabs(token=shop.tokens["pat"])
    page = tab.page
    await page.goto(base(server) + "/queues")
    card = page.locator("section.queue[data-department='print'] ol.waiting li").first
    start = card.get_by_role("button", name="Start", exact=True)
    await expect(start).to_be_visible()
    for size, viewport in WIDTHS:
        await page.set_viewport_size(viewport)  # type: ignore[arg-type]
        button = await box(start)
        for part in ("task-job", "task-order", "task-customer", "task-since"):
            assert not overlap(await text_box(card.locator("." + part)), button), (part, size)
        assert button["x"] + button["width"] <= viewport["width"], size
    await shoot_widths(page, screenshots, "job-long-queue", axe_source)

    await page.goto(base(server) + "/orders/" + gid("WorkOrder", order))
    await expect(page.locator(".details")).to_contain_text(LONG)
    await shoot_widths(page, screenshots, "job-long-order", axe_source)
    tab.assert_clean()


async def test_a_ticket_of_a_long_product_prints_on_one_page(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    # An order from before the caps: 300 characters of product, long notes.
    product = ("Concertina folded leaflet " * 12)[:300]
    order = await shop.order(
        ["print"], details={"product": product, "quantity": 500, "notes": "Fold twice. " * 300}
    )
    tab = await tabs(token=shop.tokens["pat"])
    page = tab.page
    await page.goto(base(server) + f"/orders/{gid('WorkOrder', order)}/ticket")
    await expect(page.get_by_role("article")).to_have_count(1)
    for paper in ("A4", "Letter"):
        printed = pypdfium2.PdfDocument(io.BytesIO(await page.pdf(format=paper)))
        assert len(printed) == 1, paper
        text = printed[0].get_textpage().get_text_range()
        assert "Departments" in text and "Print" in text, paper
    await shoot_widths(page, screenshots, "job-long-ticket", axe_source)
    await page.emulate_media(media="print")
    await shoot(page, screenshots, "job-long-ticket-print", axe_source)
    tab.assert_clean()
