"""Away longer than the event log keeps: the wall display and the app's queue column
resubscribe from their cursor, are answered CURSOR_EXPIRED, and take a new snapshot by
themselves: they show the queue as it is now (moves they never heard of included) and
follow live from there."""

import asyncio
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, WebSocketRoute, expect
from sqlalchemy import text

from tests.e2e.web.support import OpenTab, base
from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop
from tests.support.subscriptions import START, display_token
from workers.retention import PruneLoop

pytestmark = pytest.mark.e2e

LONG_AGO = timedelta(days=100)


class HeldSubscriptions:
    """Between a page and the server: while holding, the page's subscribe messages wait
    here (its socket is open, nothing reaches the server) until released."""

    def __init__(self) -> None:
        self.holding = False
        self.held: list[tuple[WebSocketRoute, str | bytes]] = []
        self.arrived = asyncio.Event()

    def route(self, page_side: WebSocketRoute) -> None:
        server_side = page_side.connect_to_server()

        def from_page(message: str | bytes) -> None:
            if self.holding and json.loads(message).get("type") == "subscribe":
                self.held.append((server_side, message))
                self.arrived.set()
            else:
                server_side.send(message)

        page_side.on_message(from_page)

    def release(self) -> None:
        self.holding = False
        for server_side, message in self.held:
            server_side.send(message)


@dataclass(frozen=True)
class Order:
    task: int  # its print task
    number: str


async def old_print_order(shop: Shop) -> Order:
    """A print order of a hundred days ago."""
    order = await shop.order(["print"], at=datetime.now(UTC) - LONG_AGO)
    async with shop.engine.connect() as conn:
        number = await conn.scalar(
            text("SELECT order_number FROM work_orders WHERE id = :o"), {"o": order}
        )
    return Order((await task_ids(shop.engine, order))["print"], str(number))


async def routed(page: Page) -> HeldSubscriptions:
    """The page's websockets, from now on, through a HeldSubscriptions."""
    between = HeldSubscriptions()
    await page.route_web_socket(re.compile(r".*/graphql$"), between.route)
    return between


async def away_past_the_retention(
    page: Page,
    between: HeldSubscriptions,
    shop: Shop,
    api: Client,
    pruner: PruneLoop,
    started: Order,
) -> Order:
    """The page's connection drops and its subscription waits, while an order comes that
    it never hears of, pat starts `started`, and the old events are pruned past the
    page's cursor; then the subscription goes on. The order it missed."""
    between.holding = True
    await page.evaluate("window.__pressroom.drop()")
    async with asyncio.timeout(30):
        await between.arrived.wait()
    missed = await old_print_order(shop)
    pat = api.as_(shop.tokens["pat"])
    await pat(START, {"i": {"taskId": gid("DepartmentTask", started.task)}})
    async with shop.engine.connect() as conn:
        old = await conn.scalar(
            text("SELECT count(*) FROM events WHERE occurred_at < now() - interval '90 days'")
        )
    await pruner.idle.wait()
    # The old orders' events, all before today's move: past the page's cursor.
    assert await pruner.prune_all() == old
    between.release()
    return missed


@pytest.fixture
def pruner(running_app: tuple[str, Any]) -> PruneLoop:
    """The session server's pruner (90 days)."""
    found: PruneLoop = running_app[1].state.pruner
    return found


async def test_the_display_takes_a_new_snapshot_when_its_cursor_expired(
    api: Client, server: str, shop: Shop, tabs: OpenTab, pruner: PruneLoop, screenshots: Path
) -> None:
    first, second = [await old_print_order(shop) for _ in range(2)]
    secret = (await display_token(api, shop, ["print"]))["secret"]
    tab = await tabs()
    page = tab.page
    errors: list[Any] = []
    page.on("pageerror", lambda error: errors.append(error))
    between = await routed(page)
    await page.goto(f"{base(server)}/display/print?token={secret}")
    status, waiting = page.locator("#status"), page.locator("#waiting")
    working = page.locator("#working")
    await expect(status).to_have_text("Live")
    for order in (first, second):
        await expect(waiting).to_contain_text(order.number)
    assert await page.evaluate("window.__pressroom.snapshots") == 1

    missed = await away_past_the_retention(page, between, shop, api, pruner, started=first)
    await expect(waiting).to_contain_text(missed.number)
    await expect(status).to_have_text("Live")
    assert await page.evaluate("window.__pressroom.snapshots") == 2
    await expect(working.locator("li", has_text=first.number)).to_contain_text("Pat")
    await expect(waiting).not_to_contain_text(first.number)
    await expect(waiting).to_contain_text(second.number)
    await expect(page.locator("#waiting-count")).to_have_text("2")
    await expect(page.locator("#working-count")).to_have_text("1")

    # It follows from the new snapshot's cursor: the next move arrives live.
    pia = api.as_(shop.tokens["pia"])
    await pia(START, {"i": {"taskId": gid("DepartmentTask", second.task)}})
    await expect(working.locator("li", has_text=second.number)).to_contain_text("Pia")
    await expect(page.locator("#working-count")).to_have_text("2")
    await expect(status).to_have_text("Live")
    await page.screenshot(path=str(screenshots / "display-cursor-expired-desktop.png"))
    assert errors == []


async def test_the_queue_column_takes_a_new_snapshot_when_its_cursor_expired(
    api: Client, server: str, shop: Shop, tabs: OpenTab, pruner: PruneLoop, screenshots: Path
) -> None:
    first, second = [await old_print_order(shop) for _ in range(2)]
    tab = await tabs(token=shop.tokens["pia"])
    page = tab.page
    between = await routed(page)
    await page.goto(base(server) + "/queues")
    column = page.locator("section.queue[data-department='print']")
    waiting, working = column.locator("ol.waiting"), column.locator("ol.in-progress")
    await expect(column.get_by_role("status")).to_have_text("● Live")
    for order in (first, second):
        await expect(waiting.locator("li", has_text=order.number)).to_be_visible()

    missed = await away_past_the_retention(page, between, shop, api, pruner, started=first)
    await expect(waiting.locator("li", has_text=missed.number)).to_be_visible()
    await expect(column.get_by_role("status")).to_have_text("● Live")
    await expect(working.locator("li", has_text=first.number)).to_contain_text("Pat")
    await expect(waiting.locator("li")).to_have_count(2)

    # It follows from the new snapshot's cursor: the next move arrives live.
    pat = api.as_(shop.tokens["pat"])
    await pat(START, {"i": {"taskId": gid("DepartmentTask", second.task)}})
    await expect(working.locator("li", has_text=second.number)).to_contain_text("Pat")
    await expect(working.locator("li")).to_have_count(2)
    await expect(column.get_by_role("status")).to_have_text("● Live")
    await page.screenshot(path=str(screenshots / "queues-cursor-expired-desktop.png"))
    tab.assert_clean()
