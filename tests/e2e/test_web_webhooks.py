"""Webhooks and payment inboxes through the admin screens: an admin creates a webhook (its
secret shown once, and it verifies what arrives), sees the receiver's failure and a
delivery's attempts, redelivers it, turns the webhook off, replaces its secret and deletes
it; opens a payment inbox and sees what was accepted and what refused."""

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from playwright.async_api import expect
from sqlalchemy import text
from standardwebhooks.webhooks import Webhook

from tests.e2e.web.support import OpenTab, base, shoot
from tests.support.client import gid
from tests.support.shop import Shop
from tests.support.webhooks import Receiver, settled
from workers.webhooks import WebhookRelay

pytestmark = pytest.mark.e2e


async def test_an_admin_creates_watches_redelivers_and_deletes_a_webhook(
    server: str,
    shop: Shop,
    tabs: OpenTab,
    screenshots: Path,
    axe_source: str,
    receiver: Receiver,
    relay: WebhookRelay,
) -> None:
    receiver.plan = [500] * 6  # every attempt of the first event fails
    tab = await tabs(token=shop.tokens["ada"])
    page = tab.page
    await page.goto(base(server) + "/admin/webhooks")
    await expect(page.get_by_role("heading", name="New webhook")).to_be_visible()
    await page.get_by_label("Receiver address (URL)").fill(receiver.url)
    await page.get_by_label("Description (optional)").fill("Accounting system")
    await page.get_by_label("A work order was created").check()
    await page.get_by_label("Print").check()
    await shoot(page, screenshots, "admin-webhooks-new", axe_source)
    await page.get_by_role("button", name="Create webhook").click()
    secret_box = page.locator(".secret")
    await expect(secret_box).to_contain_text("shown only this once")
    secret = await secret_box.locator("code.secret-value").inner_text()
    panel = page.get_by_role("region", name="Webhook Accounting system")
    await expect(panel).to_contain_text("Sending.")
    await expect(panel).to_contain_text("Sends: A work order was created.")
    await expect(panel).to_contain_text("Departments: Print")
    await shoot(page, screenshots, "admin-webhooks-created", axe_source)

    await shop.order(["print"])

    async def dead() -> bool:
        async with shop.engine.connect() as conn:
            found = await conn.scalar(
                text("SELECT count(*) FROM webhook_deliveries WHERE status = 'DEAD'")
            )
        return bool(found)

    await settled(relay, dead)
    await page.reload()
    await panel.get_by_role("button", name="Show deliveries").click()
    row = panel.get_by_role("row").filter(has_text="A work order was created")
    await expect(row).to_contain_text("Failed for good")
    await expect(row).to_contain_text("The receiver answered 500 Internal Server Error")
    await shoot(page, screenshots, "admin-webhooks-deliveries", axe_source)
    sent = len(receiver.requests)
    await row.get_by_role("button", name="Redeliver").click()
    await expect(panel.get_by_role("status")).to_contain_text("will be sent again")
    await receiver.wait_requests(sent + 1)
    again = receiver.requests[sent]
    assert again.id == receiver.requests[0].id
    Webhook(secret).verify(again.body, again.headers)

    await panel.get_by_role("button", name="Turn off").click()
    await expect(panel).to_contain_text("Stopped: Turned off by an admin.")
    await panel.get_by_role("button", name="Replace secret").click()
    await expect(panel.locator(".secret")).to_contain_text("The secret was replaced.")
    new_secret = await panel.locator("code.secret-value").inner_text()
    assert new_secret.startswith("whsec_") and new_secret != secret
    await shoot(page, screenshots, "admin-webhooks-stopped", axe_source)
    await panel.get_by_role("button", name="Delete").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_role("button", name="Delete webhook").click()
    await expect(page.get_by_text("None yet.")).to_be_visible()
    tab.assert_clean()


async def test_an_admin_opens_a_payment_inbox_and_sees_what_came(
    server: str,
    shop: Shop,
    tabs: OpenTab,
    screenshots: Path,
    axe_source: str,
    http: httpx.AsyncClient,
) -> None:
    tab = await tabs(token=shop.tokens["ada"])
    page = tab.page
    await page.goto(base(server) + "/admin/inboxes")
    await page.get_by_label("Inbox name").fill("bank")
    await page.get_by_label("Currency it takes").fill("eur")
    await page.get_by_role("button", name="Create payment inbox").click()
    box = page.locator(".secret")
    await expect(box).to_contain_text("shown only this once")
    url = await box.locator("code").first.inner_text()
    secret = await box.locator("code.secret-value").inner_text()
    assert url == base(server) + "/hooks/payments/bank"
    await shoot(page, screenshots, "admin-inbox-created", axe_source)

    body = json.dumps(
        {
            "customerId": gid("Customer", shop.customer_id),
            "amount": "75.00",
            "currency": "EUR",
            "paidAt": "2026-12-02T09:00:00+00:00",
            "reference": "SEPA 88",
        }
    )
    nobody = body.replace(gid("Customer", shop.customer_id), gid("Customer", 999_999))

    async def send(msg_id: str, content: str, signer: str) -> int:
        now = datetime.now(UTC)
        headers = {
            "webhook-id": msg_id,
            "webhook-timestamp": str(int(now.timestamp())),
            "webhook-signature": Webhook(signer).sign(msg_id, now, content),
        }
        return (await http.post(url, content=content.encode(), headers=headers)).status_code

    assert await send("msg_ok", body, secret) == 200
    assert await send("msg_nobody", nobody, secret) == 404
    assert await send("msg_forged", body, "whsec_" + "QUFB" * 8) == 401
    await page.reload()
    inbox = page.get_by_role("region", name="Payment inbox bank")
    rows = inbox.get_by_role("row")
    await expect(rows.filter(has_text="msg_ok")).to_contain_text("200: accepted")
    await expect(rows.filter(has_text="msg_ok")).to_contain_text("ACME")
    await expect(rows.filter(has_text="msg_nobody")).to_contain_text("404: No such customer.")
    # Anyone could have sent the forged one: it is counted, not shown.
    await expect(rows.filter(has_text="msg_forged")).to_have_count(0)
    await shoot(page, screenshots, "admin-inbox-requests", axe_source)

    await inbox.get_by_role("button", name="Replace secret").click()
    replaced = inbox.locator("code.secret-value")
    await expect(replaced).to_have_text(re.compile(r"^whsec_"))
    new_secret = await replaced.inner_text()
    await expect(inbox).to_contain_text("The secret before the last replacement is taken until")
    # The old secret still works for the overlap, the new one at once.
    assert await send("msg_old_secret", body, secret) == 200
    assert await send("msg_new_secret", body, new_secret) == 200
    await inbox.get_by_role("button", name="Turn off").click()
    await expect(inbox).to_contain_text("Turned off: every notification is refused.")
    assert await send("msg_off", body, new_secret) == 401
    await inbox.get_by_role("button", name="Delete").click()
    await page.get_by_role("dialog").get_by_role("button", name="Delete payment inbox").click()
    await expect(page.get_by_role("region", name="Payment inbox bank")).to_have_count(0)
    tab.assert_clean()
