"""Routing on the screens: an admin routes Finishing after Print on the departments page
(a loop is refused in words), the order page says what a task waits for, and its
timeline says when the next department can start; a cancelled order's tasks say
Cancelled."""

from pathlib import Path

import pytest
from playwright.async_api import expect

from db.cancellation import cancel_work_order
from db.engine import unit_of_work
from tests.e2e.web.support import OpenTab, base, shoot
from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop
from tests.support.subscriptions import FINISH, START

pytestmark = pytest.mark.e2e


async def test_an_admin_routes_work_and_the_order_page_says_what_waits(
    api: Client, server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    admin = await tabs(token=shop.tokens["ada"])
    page = admin.page
    await page.goto(base(server) + "/admin/departments")
    finishing = page.locator("form.route").filter(has_text="Finishing waits for")
    await finishing.get_by_label("Print").check()
    await finishing.get_by_role("button", name="Save route of Finishing").click()
    await expect(finishing.get_by_role("status")).to_contain_text("Finishing now waits for Print.")
    row = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="Finishing"))
    await expect(row).to_contain_text("Print")
    delivery = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="Delivery"))
    await expect(delivery).to_contain_text("Print, Finishing")

    # Print after Finishing would be a loop: refused, named in words.
    printing = page.locator("form.route").filter(has_text="Print waits for")
    await printing.get_by_label("Finishing").check()
    await printing.get_by_role("button", name="Save route of Print").click()
    await expect(printing.locator(".field-error")).to_have_text(
        "⚠ That would make a loop: Print waits for Finishing, which waits for Print."
    )
    await expect(printing.get_by_role("alert")).to_have_text(
        "⚠ 1 problem: fix the field marked above."
    )
    await shoot(page, screenshots, "admin-routing", axe_source)

    order = await shop.order(["print", "finishing"], details={"product": "Routed flyers"})
    tasks = await task_ids(shop.engine, order)
    await page.goto(base(server) + "/orders/" + gid("WorkOrder", order))
    finishing_row = page.locator(f"tr[data-task-id='{gid('DepartmentTask', tasks['finishing'])}']")
    await expect(finishing_row).to_contain_text("Not yet: waits for Print")
    pat = api.as_(shop.tokens["pat"])
    variables = {"i": {"taskId": gid("DepartmentTask", tasks["print"])}}
    assert (await pat(START, variables))["startTask"]["changed"] is True
    assert (await pat(FINISH, variables))["finishTask"]["changed"] is True
    # The page follows the order live: Finishing joins its queue.
    await expect(page.locator(".timeline")).to_contain_text("Finishing can start")
    await expect(finishing_row).not_to_contain_text("waits for")
    await shoot(page, screenshots, "order-routed", axe_source)

    async with unit_of_work(shop.engine) as conn:
        await cancel_work_order(conn, order, shop.users["ada"], "Customer withdrew.")
    await expect(finishing_row.locator(".badge")).to_have_text("✕ Cancelled")
    await shoot(page, screenshots, "order-cancelled-tasks", axe_source)
    admin.assert_clean()
    await admin.close()
