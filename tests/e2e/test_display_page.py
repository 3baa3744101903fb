"""The wall display in a real browser: it shows the queue, follows moves live, shows
when it is reconnecting, and catches up after the server's listener is killed."""

from typing import Any

import pytest
from playwright.async_api import Browser, expect
from sqlalchemy import text

from tests.support.client import Client, gid
from tests.support.database import kill_listeners
from tests.support.shop import Shop
from tests.support.subscriptions import FINISH, START, print_tasks

pytestmark = pytest.mark.e2e

DISPLAY = """mutation { createDisplayToken(input: {name: "Print wall", departmentCodes: ["print"]})
  { secret } }"""


async def order_number(shop: Shop, task: int) -> str:
    async with shop.engine.connect() as conn:
        return str(
            await conn.scalar(
                text(
                    "SELECT w.order_number FROM work_orders w JOIN department_tasks t "
                    "ON t.work_order_id = w.id WHERE t.id = :t"
                ),
                {"t": task},
            )
        )


async def test_wall_display_follows_the_queue_live(
    api: Client,
    server: str,
    shop: Shop,
    browser: Browser,
) -> None:
    tasks = await print_tasks(shop, 3)
    numbers = [await order_number(shop, t) for t in tasks]
    secret = (await api.as_(shop.tokens["ada"])(DISPLAY))["createDisplayToken"]["secret"]
    page = await browser.new_page()
    errors: list[Any] = []
    page.on("pageerror", lambda error: errors.append(error))
    base = server.removesuffix("/graphql")
    await page.goto(f"{base}/display/print?token={secret}")

    waiting, working = page.locator("#waiting"), page.locator("#working")
    status = page.locator("#status")
    await expect(status).to_have_text("Live")
    for number in numbers:
        await expect(waiting).to_contain_text(number)
    await expect(page.locator("#title")).to_have_text("Print queue")

    pat = api.as_(shop.tokens["pat"])
    await pat(START, {"i": {"taskId": gid("DepartmentTask", tasks[0])}})
    started = working.locator("li", has_text=numbers[0])
    await expect(started).to_contain_text("Pat")
    await expect(waiting).not_to_contain_text(numbers[0])

    await pat(FINISH, {"i": {"taskId": gid("DepartmentTask", tasks[0])}})
    await expect(page.locator(f"li:has-text('{numbers[0]}')")).to_have_count(0)

    # The server's listener dies; the page still hears of the next move.
    assert await kill_listeners(shop.engine) >= 1
    await api.as_(shop.tokens["pia"])(START, {"i": {"taskId": gid("DepartmentTask", tasks[1])}})
    await expect(working.locator("li", has_text=numbers[1])).to_contain_text("Pia")

    # The page's own connection drops: it says so, reconnects from its last cursor,
    # and a move made meanwhile still arrives.
    connects = await page.evaluate("window.__pressroom.connects")
    await page.evaluate("window.__pressroom.drop()")
    await expect(status).to_have_text("Reconnecting…")
    await pat(START, {"i": {"taskId": gid("DepartmentTask", tasks[2])}})
    await expect(status).to_have_text("Live")
    await expect(working.locator("li", has_text=numbers[2])).to_contain_text("Pat")
    assert await page.evaluate("window.__pressroom.connects") == connects + 1
    assert errors == []
    await page.close()
