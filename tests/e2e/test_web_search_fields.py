"""The list screens' search fields keep what a person types before the screen's first
effects have run (they run once the screen is shown): the field follows the address when
it changes, and only then. The page's clock is stopped as the person opens the screen from
the menu, so the typing lands before those effects every time."""

from datetime import UTC, datetime, timedelta

import pytest
from playwright.async_api import expect

from db import customers
from db.engine import unit_of_work
from tests.e2e.web.support import OpenTab, base
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e

SCREENS = [
    # the menu's link, the screen's path, the field's label
    ("Customers", "/customers", "Search customers"),
    ("Work orders", "/orders", "Search"),
]


@pytest.mark.parametrize(("link", "path", "label"), SCREENS, ids=["customers", "orders"])
async def test_what_is_typed_before_the_first_effects_stays(
    server: str, shop: Shop, tabs: OpenTab, link: str, path: str, label: str
) -> None:
    async with unit_of_work(shop.engine) as conn:
        made = await customers.create_customer(conn, "Harbour Books", shop.users["sam"])
    await shop.order(["print"], customer_id=made.customer.id)
    await shop.order(["print"])
    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    await page.clock.install()
    await page.goto(base(server) + "/insights")
    menu = page.get_by_role("link", name=link, exact=True).first
    await expect(menu).to_be_visible()
    # No timer, frame or effect of the page runs from here until the clock moves; the
    # screen itself is drawn at once.
    await page.clock.pause_at(datetime.now(UTC) + timedelta(seconds=1))
    await menu.click()
    field = page.get_by_label(label, exact=True)
    await field.fill("harb")
    # The screen's first effects, and not yet the work orders' search, which waits for a
    # pause in the typing (300 ms) and would put the words back from the address.
    await page.clock.run_for(200)
    assert await field.input_value() == "harb"
    await page.clock.resume()
    await expect(page.locator("tbody tr").first).to_be_visible()
    await expect(field).to_have_value("harb")
    await field.press("Enter")
    await expect(page).to_have_url(base(server) + path + "?q=harb")
    await expect(page.locator("tbody tr")).to_have_count(1)
    await expect(page.locator("tbody tr")).to_contain_text("Harbour Books")
    tab.assert_clean()
    await tab.close()
