"""Proofs on the shop's screens, in Chromium: Sales sees an order's proof state in the
list and on its page, uploads versions through the file input (a GraphQL multipart
request), makes a customer link whose address is shown once with a Copy button, records
the customer's word (changes, then approval), sees the customer's own decision on their
page arrive live, and revokes the link; Design's queue card
says what the customer asked to change; a wall display shows the work waiting for the
customer's approval. Screenshots at 390, 800 and 1366 px wide, axe-clean, none scrolling
sideways (the folder is printed; PRESSROOM_SCREENSHOTS chooses it). Design uploads its
order's proof from the order page; Print, waiting for it, is not offered to."""

import io
import re
from pathlib import Path

import httpx
import pytest
from PIL import Image, ImageDraw
from playwright.async_api import Page, expect

from tests.e2e.web.support import PHONE, OpenTab, base, shoot_widths
from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop
from tests.support.subscriptions import display_token

pytestmark = pytest.mark.e2e

NEEDS = """mutation($i: SetDepartmentNeedsApprovedProofInput!) {
  setDepartmentNeedsApprovedProof(input: $i) { userErrors { message } } }"""
FOLLOWS = """mutation($i: SetDepartmentFollowsInput!) {
  setDepartmentFollows(input: $i) { userErrors { message } } }"""
MOVE = """mutation($i: StartTaskInput!) { startTask(input: $i) { changed } }"""
APPROVE = """mutation($i: ApproveProofInput!) { approveProof(input: $i) { changed } }"""


def artwork(colour: tuple[int, int, int]) -> bytes:
    """A flyer's proof: a coloured headline band on paper."""
    image = Image.new("RGB", (600, 840), (250, 246, 236))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 600, 200), fill=colour)
    draw.rectangle((50, 280, 550, 340), fill=(22, 32, 42))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


async def proof_shop(api: Client, shop: Shop) -> None:
    """Design → Print, and Print waits for an approved proof."""
    ada = api.as_(shop.tokens["ada"])
    body = await ada(NEEDS, {"i": {"departmentCode": "print", "needsApprovedProof": True}})
    assert body["setDepartmentNeedsApprovedProof"]["userErrors"] == []
    body = await ada(FOLLOWS, {"i": {"departmentCode": "print", "followsCodes": ["design"]}})
    assert body["setDepartmentFollows"]["userErrors"] == []


async def upload(page: Page, name: str, colour: tuple[int, int, int]) -> None:
    await page.get_by_label("New proof version").set_input_files(
        {"name": name, "mimeType": "image/png", "buffer": artwork(colour)}
    )
    await page.get_by_role("button", name="Upload version").click()


async def test_sales_works_an_orders_proofs_and_design_sees_the_changes(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
    screenshots: Path,
    axe_source: str,
) -> None:
    await proof_shop(api, shop)
    order = await shop.order(
        ["design", "print"],
        details={"product": "Flyers A5", "quantity": 500},
        proof_required=True,
    )
    await shop.order(["print"], details={"product": "Business cards"})
    tasks = await task_ids(shop.engine, order)
    dee = api.as_(shop.tokens["dee"])
    for move in ("start", "finish"):
        mutation = MOVE.replace("start", move).replace("Start", move.capitalize())
        await dee(mutation, {"i": {"taskId": gid("DepartmentTask", tasks["design"])}})

    tab = await tabs(token=shop.tokens["sam"])
    await tab.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = tab.page
    await page.goto(base(server) + "/orders")
    row = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="WO-000001"))
    await expect(row).to_contain_text("Needed, none yet")
    other = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="WO-000002"))
    await expect(other.locator("td").nth(5)).to_have_text("—")
    await shoot_widths(page, screenshots, "proofs-orders-needed", axe_source)

    await row.get_by_role("link", name="WO-000001").click()
    panel = page.get_by_role("region", name="Proof")
    await expect(panel.get_by_text("No proof versions yet.")).to_be_visible()
    await expect(
        panel.get_by_label("The customer must approve a proof before production")
    ).to_be_checked()
    await expect(panel.get_by_text("No links yet")).to_be_visible()
    print_row = page.locator(f"tr[data-task-id='{gid('DepartmentTask', tasks['print'])}']")
    await expect(print_row).to_contain_text(
        "Not yet: waits for the customer's approval of the proof"
    )
    await shoot_widths(page, screenshots, "proofs-order-none", axe_source)

    # Version 1, through the file input: it waits for the customer, previewed.
    await upload(page, "flyer-v1.png", (11, 92, 173))
    await expect(panel.get_by_role("status")).to_contain_text("Version 1 uploaded")
    first = panel.locator("li.proof[data-version='1']")
    await expect(first.locator(".badge")).to_have_text("○ Waiting for the customer")
    preview = first.get_by_role("img", name="Preview of version 1")
    await expect(preview).to_be_visible()
    await expect(preview).to_have_js_property("complete", True)
    # The preview's PNG, read with the session's token: 600 px wide, as uploaded.
    assert await preview.evaluate("(img) => img.naturalWidth") == 600
    async with page.expect_download() as download:
        await first.get_by_role("button", name="Download version 1").click()
    assert (await download.value).suggested_filename == "flyer-v1.png"

    # A customer link: its address shown once, copied with one press.
    await panel.get_by_role("button", name="Make customer link").click()
    address = panel.get_by_label("Customer page address")
    await expect(address).to_have_value(re.compile(r"/c/[A-Za-z0-9_-]{43}$"))
    await panel.get_by_role("button", name="Copy").click()
    await expect(panel.locator(".copied")).to_have_text("Copied.")
    url = await address.input_value()
    assert await page.evaluate("navigator.clipboard.readText()") == url
    links = panel.locator("ul.links li")
    await expect(links).to_have_count(1)
    await expect(links.first).to_contain_text("Works while the order is open")
    await expect(links.first).to_contain_text("not opened yet")
    await shoot_widths(page, screenshots, "proofs-order-waiting", axe_source)
    await panel.get_by_role("button", name="Done, hide the address").click()
    await expect(address).to_have_count(0)

    # The customer phoned: changes, recorded on their word.
    await first.get_by_role("button", name="Record changes requested").click()
    dialog = page.get_by_role("dialog", name="Record changes to version 1")
    await dialog.get_by_role("button", name="Record changes").click()
    # Nothing is sent without the name and what to change, each said in words.
    await expect(dialog.locator(".field-error")).to_have_text(
        [
            "⚠ Give the name the customer gave: it is kept with the decision.",
            "⚠ Say what the customer wants changed.",
        ]
    )
    await dialog.get_by_label("Customer's name").fill("Jane Doe")
    await dialog.get_by_label("Changes asked for").fill("The logo bigger, and the date in bold.")
    await shoot_widths(page, screenshots, "proofs-record-changes", axe_source)
    await dialog.get_by_role("button", name="Record changes").click()
    await expect(dialog).to_have_count(0)
    await expect(first.locator(".badge")).to_have_text("↺ Changes requested")
    await expect(first.locator(".proof-decision")).to_contain_text(
        "Changes asked for by Jane Doe, told to Sam"
    )
    await expect(first.locator(".proof-comment")).to_have_text(
        "The logo bigger, and the date in bold."
    )
    await expect(first.get_by_role("button", name="Record approval")).to_have_count(0)

    # Design's queue card says what to change.
    design = await tabs(token=shop.tokens["dee"])
    await design.page.goto(base(server) + "/queues")
    card = design.page.locator(f"li[data-task-id='{gid('DepartmentTask', tasks['design'])}']")
    await expect(card.locator(".task-proof")).to_contain_text(
        "Proof changes requested (version 1): The logo bigger, and the date in bold."
    )
    await shoot_widths(design.page, screenshots, "proofs-design-queue", axe_source)

    # Version 2: the customer sends it back on their own page; Sales' page follows live.
    await upload(page, "flyer-v2.png", (29, 107, 63))
    second = panel.locator("li.proof[data-version='2']")
    await expect(second.locator(".badge")).to_have_text("○ Waiting for the customer")
    await expect(panel.locator("li.proof").first).to_have_attribute("data-version", "2")
    await expect(first.locator(".proof-decision")).to_contain_text("told to Sam")
    customer = await tabs(viewport=PHONE)
    await customer.page.goto(url)
    on_page = customer.page.get_by_role("article", name="Version 2")
    await on_page.get_by_text("Request changes").click()
    await on_page.get_by_label("What should change?").fill("A darker green.")
    await on_page.get_by_label("Your name").last.fill("Joe Roe")
    async with customer.page.expect_navigation():
        await on_page.get_by_role("button", name="Send the changes").click()
    await expect(second.locator(".badge")).to_have_text("↺ Changes requested")
    await expect(second.locator(".proof-decision")).to_contain_text(
        "Changes asked for by Joe Roe, through their link"
    )
    await expect(links.first).to_contain_text("opened")

    # Version 3, approved on the customer's word; the link revoked.
    await upload(page, "flyer-v3.png", (29, 107, 63))
    third = panel.locator("li.proof[data-version='3']")
    await third.get_by_role("button", name="Record approval").click()
    dialog = page.get_by_role("dialog", name="Record approval of version 3")
    await dialog.get_by_label("Customer's name").fill("Jane Doe")
    await dialog.get_by_role("button", name="Record approval").click()
    await expect(third.locator(".badge")).to_have_text("✓ Approved")
    await expect(third.locator(".proof-decision")).to_contain_text(
        "Approved by Jane Doe, told to Sam"
    )
    await links.first.get_by_role("button", name=re.compile("^Revoke")).click()
    await expect(links.first).to_contain_text("Revoked")
    await expect(links.first.get_by_role("button")).to_have_count(0)
    await shoot_widths(page, screenshots, "proofs-order-approved", axe_source)

    await page.goto(base(server) + "/orders")
    await expect(row).to_contain_text("v3 ✓ Approved")
    tab.assert_clean()
    design.assert_clean()


async def test_design_uploads_the_proof_of_its_order_and_print_is_not_offered_to(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
    screenshots: Path,
    axe_source: str,
) -> None:
    await proof_shop(api, shop)
    order = await shop.order(
        ["design", "print"],
        details={"product": "Flyers A5", "quantity": 500},
        proof_required=True,
    )
    address = f"{base(server)}/orders/{gid('WorkOrder', order)}"

    printer = await tabs(token=shop.tokens["pat"])
    await printer.page.goto(address)
    panel = printer.page.get_by_role("region", name="Proof")
    await expect(panel.get_by_text("No proof versions yet.")).to_be_visible()
    await expect(panel.get_by_label("New proof version")).to_have_count(0)

    design = await tabs(token=shop.tokens["dee"])
    page = design.page
    await page.goto(address)
    panel = page.get_by_role("region", name="Proof")
    await expect(panel.get_by_label("New proof version")).to_be_visible()
    # Design records no decision and makes no link: those stay Sales' own.
    await expect(panel.get_by_role("button", name="Make customer link")).to_have_count(0)
    await shoot_widths(page, screenshots, "proofs-order-design", axe_source)
    await upload(page, "flyer-v1.png", (11, 92, 173))
    await expect(panel.get_by_role("status")).to_contain_text("Version 1 uploaded")
    first = panel.locator("li.proof[data-version='1']")
    await expect(first.locator(".badge")).to_have_text("○ Waiting for the customer")
    await expect(first.get_by_role("button", name="Record approval")).to_have_count(0)
    await shoot_widths(page, screenshots, "proofs-order-design-uploaded", axe_source)
    printer.assert_clean()
    design.assert_clean()


async def test_a_wall_display_shows_the_work_waiting_for_the_customer(
    api: Client,
    server: str,
    http: httpx.AsyncClient,
    shop: Shop,
    tabs: OpenTab,
    screenshots: Path,
    axe_source: str,
) -> None:
    await proof_shop(api, shop)
    waiting = [
        await shop.order(["print"], details={"product": f"Poster {n}"}, proof_required=True)
        for n in range(3)
    ]
    await shop.order(["print"], details={"product": "Business cards"})
    secret = (await display_token(api, shop, ["print"]))["secret"]
    tab = await tabs()
    page = tab.page
    await page.goto(f"{base(server)}/display/print?token={secret}")
    await expect(page.locator("#status")).to_have_text("Live")
    strip = page.get_by_role("contentinfo")
    await expect(strip.get_by_role("heading")).to_have_text("Waiting for customer approval 3")
    await expect(strip.locator("li")).to_have_count(3)
    await expect(strip.locator("li").first).to_contain_text("WO-000001")
    await expect(page.locator("#waiting-count")).to_have_text("1")
    await shoot_widths(page, screenshots, "proofs-wall-display", axe_source)

    # An approval opens the gate: the task joins the queue and leaves the strip, live.
    answer = await http.post(
        f"{base(server)}/orders/{gid('WorkOrder', waiting[0])}/proofs",
        files={"file": ("poster.png", artwork((11, 92, 173)), "image/png")},
        headers={"authorization": f"Bearer {shop.tokens['sam']}"},
    )
    assert answer.status_code == 201, answer.text
    sam = api.as_(shop.tokens["sam"])
    body = await sam(
        APPROVE,
        {"i": {"workOrderId": gid("WorkOrder", waiting[0]), "version": 1, "approverName": "Jo"}},
    )
    assert body["approveProof"]["changed"] is True
    await expect(page.locator("#waiting-count")).to_have_text("2")
    await expect(strip.locator("li")).to_have_count(2)
    await expect(strip).not_to_contain_text("WO-000001")
    tab.assert_clean()
