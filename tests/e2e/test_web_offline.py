"""The app on a tablet that loses its network: the queue keeps what it showed, says
"Offline - last updated HH:MM" and offers no Start or Finish until the network is back,
then catches up; the wall display does the same; the service worker opens the app's
shell without a network."""

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from playwright.async_api import expect

from tests.e2e.web.support import OpenTab, base, scalar, shoot_widths, under_service_worker
from tests.support.client import Client, gid
from tests.support.shop import Shop
from tests.support.subscriptions import START, display_token, print_tasks

pytestmark = pytest.mark.e2e

OFFLINE = re.compile(r"^✕ Offline - last updated \d\d:\d\d$")


async def order_numbers(shop: Shop, tasks: list[int]) -> list[str]:
    return [
        str(
            await scalar(
                shop,
                "SELECT w.order_number FROM work_orders w JOIN department_tasks t "
                "ON t.work_order_id = w.id WHERE t.id = :t",
                t=task,
            )
        )
        for task in tasks
    ]


async def test_the_queue_offline_keeps_its_tasks_and_offers_no_start_or_finish(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
    screenshots: Path,
    axe_source: str,
) -> None:
    tasks = await print_tasks(shop, 3)
    waiting_number, mine_number, later_number = await order_numbers(shop, tasks)
    await api.as_(shop.tokens["pat"])(START, {"i": {"taskId": gid("DepartmentTask", tasks[1])}})
    tab = await tabs(token=shop.tokens["pat"], service_worker=True)
    page = tab.page
    await page.goto(base(server) + "/queues")
    column = page.locator("section.queue[data-department='print']")
    status = column.get_by_role("status")
    start = column.locator("ol.waiting li", has_text=waiting_number).get_by_role(
        "button", name="Start", exact=True
    )
    finish = column.locator("ol.in-progress li", has_text=mine_number).get_by_role(
        "button", name="Finish", exact=True
    )
    await expect(status).to_have_text("● Live")
    await expect(start).to_be_enabled()
    await expect(finish).to_be_enabled()

    # The browser's times have milliseconds.
    now = datetime.now(UTC)
    cut = now.replace(microsecond=now.microsecond // 1000 * 1000)
    await tab.context.set_offline(True)
    await expect(status).to_have_text(OFFLINE)
    # The time it says is when the column stopped being current: the moment it was cut.
    updated = datetime.fromisoformat(await status.locator("time").get_attribute("datetime") or "")
    assert cut <= updated <= datetime.now(UTC)
    await expect(start).to_be_disabled()
    await expect(finish).to_be_disabled()
    await expect(column.locator("ol.waiting li")).to_have_count(2)
    await shoot_widths(page, screenshots, "offline-queue", axe_source)

    # Meanwhile someone else starts a task; back online, the column catches up and offers
    # Start and Finish again.
    await api.as_(shop.tokens["pia"])(START, {"i": {"taskId": gid("DepartmentTask", tasks[2])}})
    await expect(column.locator("ol.in-progress li", has_text=later_number)).to_have_count(0)
    await tab.context.set_offline(False)
    await expect(status).to_have_text("● Live")
    await expect(column.locator("ol.in-progress li", has_text=later_number)).to_contain_text("Pia")
    await expect(start).to_be_enabled()
    await finish.click()
    await expect(column.locator("li", has_text=mine_number)).to_have_count(0)
    tab.assert_clean()


async def test_the_service_worker_opens_the_app_without_a_network(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
) -> None:
    # Served fresh each time (a release is a new worker), and allowed by the pages' policy.
    worker = await api.http.get(base(server) + "/sw.js")
    assert worker.headers["cache-control"] == "no-cache"
    assert worker.headers["content-type"].startswith("text/javascript")
    assert worker.text.startswith('const VERSION = "')
    manifest = await api.http.get(base(server) + "/app/manifest.webmanifest")
    assert manifest.headers["content-type"] == "application/manifest+json"
    policy = (await api.http.get(base(server) + "/queues")).headers["content-security-policy"]
    assert "worker-src 'self'" in policy and "manifest-src 'self'" in policy

    tab = await tabs(token=shop.tokens["pat"], service_worker=True)
    page = tab.page
    await page.goto(base(server) + "/queues")
    await expect(page.get_by_role("heading", name="My queues")).to_be_visible()
    installable = await page.evaluate(
        "fetch(document.querySelector('link[rel=manifest]').href).then((r) => r.json())"
    )
    assert installable["start_url"] == "/" and installable["display"] == "standalone"
    # The worker has kept the app's files and controls the page.
    await under_service_worker(page)

    await tab.context.set_offline(True)
    # The worker itself reaches nothing: what it answers now is its own copy.
    [worker] = tab.context.service_workers
    assert await worker.evaluate("fetch('/healthz').then(() => 'answered', () => 'failed')") == (
        "failed"
    )
    response = await page.reload()
    assert response is not None and response.from_service_worker
    # The app itself runs, and says what it cannot do without the server.
    await expect(page.get_by_text("The server could not be reached")).to_be_visible()
    await expect(page.get_by_role("button", name="Try again")).to_be_visible()
    # What the server decides is never answered from the worker's copies.
    assert (
        await page.evaluate(
            "fetch('/graphql', {method: 'POST', headers: {'content-type': 'application/json'},"
            " body: '{}'}).then(() => 'answered', () => 'failed')"
        )
        == "failed"
    )

    await tab.context.set_offline(False)
    await page.get_by_role("button", name="Try again").click()
    await expect(page.get_by_role("heading", name="My queues")).to_be_visible()
    tab.assert_clean()


async def test_the_wall_display_offline_keeps_its_queue_and_says_since_when(
    api: Client,
    server: str,
    shop: Shop,
    tabs: OpenTab,
    screenshots: Path,
) -> None:
    tasks = await print_tasks(shop, 2)
    later_number = (await order_numbers(shop, tasks[1:]))[0]
    secret = (await display_token(api, shop, ["print"]))["secret"]
    tab = await tabs()
    page = tab.page
    await page.goto(f"{base(server)}/display/print?token={secret}")
    status = page.locator("#status")
    await expect(status).to_have_text("Live")
    await expect(page.locator("#waiting li")).to_have_count(2)

    await tab.context.set_offline(True)
    await expect(status).to_have_text(re.compile(r"^Offline - last updated \d\d:\d\d$"))
    await expect(page.locator("#waiting li")).to_have_count(2)
    await page.screenshot(path=str(screenshots / "offline-display.png"))

    await api.as_(shop.tokens["pia"])(START, {"i": {"taskId": gid("DepartmentTask", tasks[1])}})
    await tab.context.set_offline(False)
    await expect(status).to_have_text("Live")
    await expect(page.locator("#working li", has_text=later_number)).to_contain_text("Pia")
    await expect(page.locator("#waiting li")).to_have_count(1)
    tab.assert_clean()
