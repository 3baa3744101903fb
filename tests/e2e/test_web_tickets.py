"""Job tickets in the browser: "Print ticket" on the order page opens a ticket whose QR
code (read from the screenshot) opens the order; two orders ticked on the work-order list
print as two tickets, one a page, on A4 and on Letter, and "Download PDF" gives them
in one PDF the server renders; Design added to an order of Print
heads its task table and its ticket, in route order."""

import io
from pathlib import Path

import pypdf
import pypdfium2
import pytest
import zxingcpp
from PIL import Image
from playwright.async_api import expect

from domain.enums import WorkOrderPriority
from tests.e2e.web.support import OpenTab, base, shoot, shoot_widths
from tests.support.client import Client, gid
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e


async def test_print_ticket_shows_a_ticket_whose_qr_code_opens_the_order(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    order = await shop.order(
        ["print", "finishing"],
        details={"product": "Posters A2", "quantity": 40, "paperType": "silk"},
        priority=WorkOrderPriority.RUSH,
    )
    tab = await tabs(token=shop.tokens["pat"])
    page = tab.page
    await page.goto(base(server) + "/orders/" + gid("WorkOrder", order))
    await page.get_by_role("link", name="Print ticket").click()
    ticket = page.get_by_role("article", name="Job ticket WO-000001")
    await expect(ticket.get_by_role("heading", name="WO-000001")).to_be_visible()
    await expect(ticket.get_by_text("RUSH", exact=True)).to_be_visible()
    await expect(ticket.get_by_text("40 x Posters A2")).to_be_visible()
    # In route order: this shop's departments follow none, so by name; delivery last.
    await expect(ticket.locator(".ticket-departments li")).to_have_text(
        ["Finishing", "Print", "Delivery"]
    )
    await shoot(page, screenshots, "ticket", axe_source)
    png = await ticket.get_by_role("img").screenshot()
    found = [c.text for c in zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))]
    assert found == [base(server) + "/orders/" + gid("WorkOrder", order)]
    await page.emulate_media(media="print")
    await shoot(page, screenshots, "ticket-print", axe_source)
    await expect(page.get_by_role("button", name="Print")).to_be_hidden()
    tab.assert_clean()


async def test_a_selection_prints_one_ticket_a_page(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    for product in ("Menus", "Banners"):
        await shop.order(["print"], details={"product": product})
    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    await page.goto(base(server) + "/orders")
    await page.get_by_label("Select WO-000001 for printing").check()
    await page.get_by_label("Select WO-000002 for printing").check()
    await page.get_by_role("link", name="Print 2 tickets").click()
    await expect(page.get_by_role("article")).to_have_count(2)
    await shoot(page, screenshots, "tickets-selection", axe_source)
    for paper, size in (("A4", (595.92, 842.88)), ("Letter", (612.0, 792.0))):
        printed = await page.pdf(format=paper, print_background=True)
        pages = pypdf.PdfReader(io.BytesIO(printed)).pages
        assert len(pages) == 2, paper
        texts = [p.extract_text() for p in pages]
        # In the order they were ticked.
        assert "WO-000001" in texts[0] and "Menus" in texts[0]
        assert "WO-000002" in texts[1] and "Banners" in texts[1]
        width, height = float(pages[0].mediabox.width), float(pages[0].mediabox.height)
        assert (width, height) == pytest.approx(size, abs=1.0), paper
    tab.assert_clean()


async def test_download_pdf_gives_the_selections_tickets_in_one_file(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    made = [
        await shop.order(["print"], details={"product": p})
        for p in ("Menus", "Banners", "Stickers")
    ]
    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    await page.goto(base(server) + "/orders")
    for number in ("WO-000003", "WO-000001"):
        await page.get_by_label(f"Select {number} for printing").check()
    await page.get_by_role("link", name="Print 2 tickets").click()
    await expect(page.get_by_role("article")).to_have_count(2)
    await shoot_widths(page, screenshots, "tickets-download-pdf", axe_source)
    async with page.expect_download() as downloading:
        await page.get_by_role("button", name="Download PDF").click()
    download = await downloading.value
    assert download.suggested_filename == "Job-tickets-WO-000003-and-1-more.pdf"
    document = pypdfium2.PdfDocument(await download.path())
    texts = [p.get_textpage().get_text_bounded() for p in document]
    assert len(texts) == 2
    assert "WO-000003" in texts[0] and "Stickers" in texts[0]
    assert "WO-000001" in texts[1] and "Menus" in texts[1]
    document.close()

    await page.goto(base(server) + "/orders/" + gid("WorkOrder", made[1]) + "/ticket")
    await expect(page.get_by_role("article")).to_have_count(1)
    async with page.expect_download() as downloading:
        await page.get_by_role("button", name="Download PDF").click()
    download = await downloading.value
    assert download.suggested_filename == "Job-ticket-WO-000002.pdf"
    assert len(pypdfium2.PdfDocument(await download.path())) == 1
    tab.assert_clean()


FOLLOWS = """mutation($i: SetDepartmentFollowsInput!) {
  setDepartmentFollows(input: $i) { userErrors { message } } }"""


async def test_design_added_to_an_order_heads_its_tasks_and_its_ticket(
    api: Client, server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    for code, follows in (("print", "design"), ("finishing", "print")):
        body = await api.as_(shop.tokens["ada"])(
            FOLLOWS, {"i": {"departmentCode": code, "followsCodes": [follows]}}
        )
        assert body["setDepartmentFollows"]["userErrors"] == []
    order = await shop.order(["print"], details={"product": "Leaflets", "quantity": 300})
    sam = await tabs(token=shop.tokens["sam"])
    page = sam.page
    await page.goto(base(server) + "/orders/" + gid("WorkOrder", order))
    await page.get_by_role("button", name="Add department").click()
    dialog = page.get_by_role("dialog")
    await expect(dialog.get_by_label("Department").locator("option")).to_have_text(
        ["Design", "Finishing"]
    )
    await dialog.get_by_label("Department").select_option("design")
    await dialog.get_by_role("button", name="Add department").click()
    await expect(dialog).to_have_count(0)
    rows = page.locator(".table-wrap tbody tr th")
    await expect(rows).to_have_text(["Design", "Print", "Delivery"])
    await shoot(page, screenshots, "order-route-order", axe_source)
    await page.get_by_role("link", name="Print ticket").click()
    ticket = page.get_by_role("article", name="Job ticket WO-000001")
    await expect(ticket.locator(".ticket-departments li")).to_have_text(
        ["Design", "Print", "Delivery"]
    )
    await shoot(page, screenshots, "ticket-route-order", axe_source)
    sam.assert_clean()
