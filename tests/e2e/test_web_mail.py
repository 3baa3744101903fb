"""Emails on the shop's screens, in Chromium: Sales see an order's emails on its page (to
whom, what, sent, failed or waiting, when, and why a failed one failed) and resend one
where the server offers it; the floor sees no such panel; admins list every order's
failed emails and resend from there. Screenshots at 390, 800 and 1366 px wide, axe-clean,
none scrolling sideways."""

from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import expect
from sqlalchemy import text

from db.engine import unit_of_work
from tests.e2e.web.support import OpenTab, base, scalar, shoot_widths
from tests.support.client import gid
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e

REFUSED = "The mail server refused the recipient: 550 5.1.1 No such user"


async def message(shop: Shop, order: int, kind: str, recipient: str, **state: Any) -> int:
    """An email of the order as the mail outbox leaves it (`state`: its status, attempts,
    error, when it was sent); its id."""
    values = {"status": "PENDING", "attempts": 0, "error": None, "sent": False, **state}
    async with unit_of_work(shop.engine) as conn:
        made = await conn.execute(
            text(
                "INSERT INTO mail_messages (event_id, event_type, work_order_id, kind, "
                "recipient, payload, status, attempts, error, subject, last_attempt_at, "
                "sent_at) VALUES ((SELECT coalesce(max(event_id), 0) + 1 FROM mail_messages), "
                "'X', :order, :kind, :recipient, '{}', :status, :attempts, :error, :subject, "
                "CASE WHEN :attempts > 0 THEN now() - interval '5 minutes' END, "
                "CASE WHEN :sent THEN now() - interval '5 minutes' END) RETURNING id"
            ),
            {"order": order, "kind": kind, "recipient": recipient,
             "subject": f"About {kind}" if values["attempts"] else None, **values},
        )  # fmt: skip
        return int(made.scalar_one())


async def test_sales_see_an_orders_emails_and_resend_a_failed_one(
    shop: Shop, server: str, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    order = await shop.order(["print"], details={"product": "Flyers A5", "quantity": 500})
    other = await shop.order(["print"], details={"product": "Posters A1"})
    await message(shop, order, "PROOF_READY", "orders@acme.test", status="DELIVERED",
                  attempts=1, sent=True)  # fmt: skip
    dead = await message(
        shop, order, "DUE_LATER", "typo@acme.tset", status="DEAD", attempts=6, error=REFUSED
    )
    await message(shop, order, "CHANGES_REQUESTED", "sales@copper.test")
    await message(shop, other, "READY_FOR_PICKUP", "gone@acme.test", status="DEAD",
                  attempts=1, error=REFUSED)  # fmt: skip

    tab = await tabs(token=shop.tokens["sam"])
    page = tab.page
    await page.goto(base(server) + "/orders/" + gid("WorkOrder", order))
    panel = page.get_by_role("region", name="Email")
    emails = panel.get_by_role("listitem")
    await expect(emails).to_have_count(3)
    # Newest first: the one on its way offers nothing.
    await expect(emails.nth(0)).to_contain_text("Changes requested (to Sales)")
    await expect(emails.nth(0)).to_contain_text("Waiting to be sent")
    await expect(emails.nth(0).get_by_role("button")).to_have_count(0)
    await expect(emails.nth(1)).to_contain_text("Due date moved later")
    await expect(emails.nth(1)).to_contain_text("Failed")
    await expect(emails.nth(1)).to_contain_text("To typo@acme.tset")
    await expect(emails.nth(1)).to_contain_text(f"Why: {REFUSED}")
    await expect(emails.nth(1)).to_contain_text("(6 attempts)")
    await expect(emails.nth(2)).to_contain_text("Proof ready for approval")
    await expect(emails.nth(2)).to_contain_text("Sent")
    await expect(panel.get_by_role("button", name="Resend")).to_have_count(2)
    await shoot_widths(page, screenshots, "mail-order", axe_source)

    await emails.nth(1).get_by_role("button", name="Resend").click()
    await expect(panel.get_by_role("status")).to_have_text(
        "✓ The email to typo@acme.tset will be sent again."
    )
    await expect(emails.nth(1)).to_contain_text("Waiting to be sent")
    await expect(emails.nth(1).get_by_role("button")).to_have_count(0)
    state = await scalar(
        shop, "SELECT status || ' ' || attempts FROM mail_messages WHERE id = :id", id=dead
    )
    assert state == "PENDING 0"
    tab.assert_clean()

    floor = await tabs(token=shop.tokens["pat"])
    await floor.page.goto(base(server) + "/orders/" + gid("WorkOrder", order))
    await expect(floor.page.get_by_role("region", name="Tasks")).to_be_visible()
    await expect(floor.page.get_by_role("region", name="Email")).to_have_count(0)
    floor.assert_clean()


async def test_admins_list_every_orders_failed_emails(
    shop: Shop, server: str, tabs: OpenTab, screenshots: Path, axe_source: str
) -> None:
    first = await shop.order(["print"])
    second = await shop.order(["print"])
    await message(shop, first, "PROOF_READY", "orders@acme.test", status="DELIVERED",
                  attempts=1, sent=True)  # fmt: skip
    await message(shop, second, "READY_FOR_PICKUP", "gone@acme.test", status="DEAD",
                  attempts=6, error=REFUSED)  # fmt: skip

    tab = await tabs(token=shop.tokens["ada"])
    page = tab.page
    await page.goto(base(server) + "/admin/mail")
    emails = page.locator(".mails").get_by_role("listitem")
    await expect(emails).to_have_count(1)
    await expect(emails.first).to_contain_text("Ready for pickup · WO-000002")
    await expect(emails.first).to_contain_text(f"Why: {REFUSED}")
    await shoot_widths(page, screenshots, "mail-admin-failed", axe_source)
    await page.get_by_label("Failed only").uncheck()
    await expect(emails).to_have_count(2)
    await expect(emails.first).to_contain_text("Ready for pickup")
    await expect(emails.nth(1)).to_contain_text("Proof ready for approval · WO-000001")

    await page.get_by_label("Failed only").check()
    await emails.first.get_by_role("button", name="Resend").click()
    await expect(page.get_by_role("status")).to_contain_text("will be sent again")
    await expect(emails.first).to_contain_text("Waiting to be sent")
    tab.assert_clean()
