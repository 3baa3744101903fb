"""Every problem at once, in Chromium: a form sent with several bad fields shows each of
the server's messages at its own field (aria-invalid, tied with aria-describedby), and one
summary read out as an alert counts them, on the new-order form, the new-customer dialog
and an admin form; at phone, tablet and desktop widths."""

from pathlib import Path

import pytest
from playwright.async_api import Locator, Page, expect

from tests.e2e.web.support import OpenTab, base, scalar, shoot_widths
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e


async def at_field(field: Locator, scope: Page | Locator, message: str) -> None:
    """`field` is marked invalid and described by the element that says `message`."""
    await expect(field).to_have_attribute("aria-invalid", "true")
    described = await field.get_attribute("aria-describedby")
    assert described is not None
    said = scope.locator(", ".join(f"[id='{one}']" for one in described.split()))
    await expect(said.filter(has_text=message)).to_have_count(1)


async def described(group: Locator, scope: Page | Locator, message: str) -> None:
    """A group of checkboxes (a fieldset) described by the element that says `message`."""
    named = await group.get_attribute("aria-describedby")
    assert named is not None
    await expect(scope.locator(f"[id='{named}']")).to_have_text("⚠ " + message)


async def count(shop: Shop, table: str) -> int:
    return int(await scalar(shop, f"SELECT count(*) FROM {table}"))


async def test_the_new_order_form_shows_every_problem_at_its_field(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    await page.goto(base(server) + "/orders/new")
    await page.get_by_label("Customer").fill("ACME")
    await page.get_by_role("radio", name="ACME").click()
    await page.get_by_role("checkbox", name="Print", exact=True).check()
    await page.get_by_label("Due").fill("1999-06-01T10:00")
    await page.get_by_label("Quote amount").fill("-5")
    await page.get_by_role("button", name="Create work order").click()
    # A date gone by is asked about first (an order taken late is late); then sent.
    await page.get_by_role("button", name="Create it anyway").click()

    await expect(page.get_by_role("alert")).to_have_text(
        "⚠ 2 problems: fix the fields marked above."
    )
    await at_field(page.get_by_label("Due"), page, "Choose a due date from 2000 on.")
    await at_field(page.get_by_label("Quote amount"), page, "A quote cannot be negative.")
    await expect(page.locator(".field-error")).to_have_count(2)
    await expect(page.get_by_label("Currency")).not_to_have_attribute("aria-invalid", "true")
    assert await count(shop, "work_orders") == 0
    await shoot_widths(page, screenshots, "every-problem-new-order", axe_source)
    tab.assert_clean()
    await tab.close()


async def test_the_new_customer_dialog_shows_every_problem_at_its_field(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    await page.goto(base(server) + "/orders/new")
    await page.get_by_label("Customer").fill("Harbour Books")
    await page.get_by_role("button", name="Create customer “Harbour Books”").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("Email").fill("not an email")
    await dialog.get_by_label("Phone").fill("call the shop")
    await dialog.get_by_label("Postcode").fill("P" * 21)
    await dialog.get_by_label("City").fill("Bristol")
    await dialog.get_by_role("button", name="Create customer").click()

    await expect(dialog.get_by_role("alert")).to_have_text(
        "⚠ 3 problems: fix the fields marked above."
    )
    await at_field(dialog.get_by_label("Email"), dialog, "is not an email address")
    await at_field(dialog.get_by_label("Phone"), dialog, "A phone number has digits")
    await at_field(dialog.get_by_label("Postcode"), dialog, "Shorten the postcode")
    await expect(dialog.locator(".field-error")).to_have_count(3)
    await expect(dialog.get_by_label("City")).not_to_have_attribute("aria-invalid", "true")
    assert await count(shop, "customers WHERE name = 'Harbour Books'") == 0
    await shoot_widths(page, screenshots, "every-problem-new-customer", axe_source)
    tab.assert_clean()
    await tab.close()


async def test_an_admin_form_shows_every_problem_at_its_field(
    server: str, shop: Shop, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    tab = await tabs(token=shop.tokens["ada"])
    page = tab.page
    await page.goto(base(server) + "/admin/webhooks")
    form = page.locator("form").filter(has=page.get_by_role("button", name="Create webhook"))
    await page.get_by_label("Receiver address (URL)").fill("ftp://example.com/hooks")
    await page.get_by_label("Description (optional)").fill("D" * 501)
    await page.get_by_role("button", name="Create webhook").click()

    await expect(form.get_by_role("alert")).to_have_text(
        "⚠ 3 problems: fix the fields marked above."
    )
    await at_field(page.get_by_label("Receiver address (URL)"), page, "Give a web address such as")
    await at_field(page.get_by_label("Description (optional)"), page, "Shorten the description")
    await described(
        form.get_by_role("group", name="Events to send"),
        page,
        "Choose at least one kind of event to send.",
    )
    await expect(form.locator(".field-error")).to_have_count(3)
    assert await count(shop, "webhooks") == 0
    await shoot_widths(page, screenshots, "every-problem-webhook", axe_source)
    tab.assert_clean()
    await tab.close()
