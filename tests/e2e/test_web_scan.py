"""Scan to act, in Chromium: on the queues, the scan field has the focus (and takes it back
when nothing else has it); typing the ticket's number and Enter starts the job (the API
confirms it), the same again finishes it, and another member's scan names who holds it."""

from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import expect

from tests.e2e.web.support import OpenTab, base, shoot
from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e

TASK = """query T($id: ID!) { node(id: $id) { ... on DepartmentTask {
  status pickedUpBy { name } } } }"""


async def task_now(api: Client, shop: Shop, task: int) -> dict[str, Any]:
    found: dict[str, Any] = (
        await api.as_(shop.tokens["ada"])(TASK, {"id": gid("DepartmentTask", task)})
    )["node"]
    return found


async def test_a_scan_starts_the_job_and_the_next_finishes_it(
    server: str, shop: Shop, api: Client, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    order = await shop.order(["print"])
    print_task = (await task_ids(shop.engine, order))["print"]
    tab = await tabs(token=shop.tokens["pat"])
    page = tab.page
    await page.goto(base(server) + "/queues")
    scan = page.get_by_label("Scan or type an order number")
    await expect(scan).to_be_focused()
    await page.keyboard.type("WO-000001")
    await page.keyboard.press("Enter")
    said = page.locator(".scan [role=status]")
    await expect(said).to_have_text("✓ Started: WO-000001 · Print")
    assert await task_now(api, shop, print_task) == {
        "status": "STARTED",
        "pickedUpBy": {"name": "Pat"},
    }
    await shoot(page, screenshots, "scan-started", axe_source)
    # Focus wanders off (a click on nothing); the field takes it back for the next scan.
    await page.evaluate("document.activeElement.blur()")
    await expect(scan).to_be_focused()
    await page.keyboard.type("WO-000001")
    await page.keyboard.press("Enter")
    await expect(said).to_have_text("✓ Finished: WO-000001 · Print")
    assert (await task_now(api, shop, print_task))["status"] == "COMPLETED"
    tab.assert_clean()


async def test_another_members_scan_names_who_holds_it(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    await shop.order(["print"])
    pat = await tabs(token=shop.tokens["pat"])
    await pat.page.goto(base(server) + "/queues")
    await pat.page.get_by_label("Scan or type an order number").fill("WO-000001")
    await pat.page.keyboard.press("Enter")
    await expect(pat.page.locator(".scan [role=status]")).to_have_text(
        "✓ Started: WO-000001 · Print"
    )
    pia = await tabs(token=shop.tokens["pia"])
    page = pia.page
    await page.goto(base(server) + "/queues")
    await page.get_by_label("Scan or type an order number").fill("WO-000001")
    await page.keyboard.press("Enter")
    await expect(page.locator(".scan [role=status]")).to_have_text(
        "⚠ WO-000001 · Print — Pat has already started this task."
    )
    await page.get_by_label("Scan or type an order number").fill("WO-424242")
    await page.keyboard.press("Enter")
    await expect(page.locator(".scan [role=status]")).to_have_text(
        "⚠ No work order has the number 'WO-424242'."
    )
    await shoot(page, screenshots, "scan-refused", axe_source)
    pat.assert_clean()
    pia.assert_clean()
