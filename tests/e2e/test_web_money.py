"""Money in the shop's notation: the app reads what people type ("480,50", "1.250,00",
"1 250,00", "480.50") and sends the API its one plain form; it shows amounts as the shop's
locale writes them (PRESSROOM_LOCALE, served in the page). A German shop's server shows
"1.250,00 EUR"; an amount it cannot read is refused in words before anything is sent."""

from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import expect

from domain.money import Money
from tests.e2e.web.support import OpenTab, base
from tests.support.client import gid
from tests.support.servers import serving
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e

# (locale, typed, what the API is sent; None: not an amount)
READS = [
    ("en-GB", "480,50", "480.50"),
    ("en-GB", "1.250,00", "1250.00"),
    ("en-GB", "1 250,00", "1250.00"),
    ("en-GB", "480.50", "480.50"),
    ("en-GB", "1,250", "1250"),
    ("en-GB", "1,250.5", "1250.5"),
    ("en-GB", "12,5,0", None),
    ("en-GB", "twelve", None),
    ("en-GB", "1.2.3,4", None),
    ("de-DE", "1.250", "1250"),
    ("de-DE", "1,250", "1.250"),
    ("de-DE", "1.250,5", "1250.5"),
    ("de-DE", "1 250,00", "1250.00"),
    ("fr-FR", "1\u202f250,00", "1250.00"),
    ("de-CH", "1'250.50", "1250.50"),
]
SHOWS = [
    ("en-GB", "12500.00", "12,500.00"),
    ("de-DE", "12500.00", "12.500,00"),
    ("fr-FR", "12500.00", "12\u202f500,00"),
    ("de-DE", "-7.5", "-7,5"),
]


async def test_amounts_are_read_and_written_in_the_shops_notation(
    server: str, shop: Shop, tabs: OpenTab
) -> None:
    tab = await tabs(token=shop.tokens["sam"])
    await tab.page.goto(base(server) + "/orders")
    found: Any = await tab.page.evaluate(
        """async ([reads, shows]) => {
          const f = await import("/app/lib/format.js");
          return {
            reads: reads.map(([locale, typed]) => f.readAmount(typed, locale)),
            shows: shows.map(([locale, amount]) => f.decimal(amount, locale)),
            locale: f.LOCALE,
          };
        }""",
        [[[loc, typed] for loc, typed, _ in READS], [[loc, amount] for loc, amount, _ in SHOWS]],
    )
    assert found["reads"] == [sent for _, _, sent in READS]
    assert found["shows"] == [shown for _, _, shown in SHOWS]
    assert found["locale"] == "en-GB"


async def test_a_quote_typed_with_a_comma_is_saved_and_a_bad_one_refused_in_words(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path
) -> None:
    order = await shop.order(["print"])
    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    await page.goto(base(server) + "/orders/" + gid("WorkOrder", order))
    await page.get_by_role("button", name="Edit quote").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("Amount").fill("12,5,0")
    await dialog.get_by_role("button", name="Save quote").click()
    await expect(dialog.locator(".field-error")).to_have_text(
        "⚠ Write an amount like 1,250.50 or 1250.50."
    )
    await dialog.get_by_label("Amount").fill("1.250,00")
    await dialog.get_by_role("button", name="Save quote").click()
    await expect(dialog).to_have_count(0)
    await expect(page.locator(".quote")).to_have_text("Quote: 1,250.00 EUR")
    await page.screenshot(path=str(screenshots / "quote-comma-desktop.png"))
    tab.assert_clean()
    await tab.close()


async def test_a_german_shop_shows_its_amounts_its_way(
    lone_shop: tuple[str, Shop], tabs: OpenTab, screenshots: Path
) -> None:
    url, shop = lone_shop
    order = await shop.order(["print"], quote=Money(125_050, "EUR"))
    with serving(None, database_url=url, settings={"PRESSROOM_LOCALE": "de-DE"}) as (german, _):
        tab = await tabs(token=shop.tokens["sam"])
        page = tab.page
        await page.goto(f"{german}/orders/{gid('WorkOrder', order)}")
        await expect(page.locator(".quote")).to_have_text("Quote: 1.250,50 EUR")
        await page.get_by_role("button", name="Edit quote").click()
        dialog = page.get_by_role("dialog")
        await expect(dialog.get_by_label("Amount")).to_have_value("1.250,50")
        await dialog.get_by_label("Amount").fill("1.300")
        await dialog.get_by_role("button", name="Save quote").click()
        await expect(page.locator(".quote")).to_have_text("Quote: 1.300,00 EUR")
        await page.screenshot(path=str(screenshots / "quote-german-desktop.png"))
        tab.assert_clean()
        await tab.close()
