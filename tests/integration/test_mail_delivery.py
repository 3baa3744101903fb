"""How the outbox delivers, through a real SMTP server on loopback (aiosmtpd): a refused
message is sent again with the same Message-ID and admins see why, one refused past its
last retry is dead, Sales see an order's emails and resend one when the server offers it, a
mail server out of reach leaves the message waiting with why; the running outbox follows
the feed, the app runs one only with a mail server, and two processes sending at once send
each message once.

The outbox's rounds are run by the test unless it says otherwise."""

import asyncio
from dataclasses import replace
from typing import Any

from sqlalchemy import text

from db import mail as db_mail
from db.engine import unit_of_work
from pressroom import policies
from pressroom.app import create_app
from pressroom.settings import Settings
from tests.support.client import Client, gid
from tests.support.database import table_snapshot
from tests.support.mail import (
    CUSTOMER,
    PUBLIC_URL,
    SALES,
    Inbox,
    admin_messages,
    idle_feed,
    parts,
    policy,
    proof_event,
)
from tests.support.servers import free_port
from tests.support.shop import Shop
from workers.mail import MailOutbox

RESEND = """mutation($i: ResendMailMessageInput!) { resendMailMessage(input: $i) {
  message { status attempts error } userErrors { code field } } }"""
ORDER_MAIL = """query($id: ID!) { workOrder(id: $id) { ... on WorkOrder {
  mailMessages { id kind recipient status attempts allowedActions } } } }"""


async def test_a_refused_message_is_sent_again_with_the_same_message_id_and_admins_see_why(
    api: Client, shop: Shop, outbox: MailOutbox, inbox: tuple[Inbox, int]
) -> None:
    server = inbox[0]
    server.refuse = 1
    order = await shop.order(["print"])
    await proof_event(shop, order, "PROOF_UPLOADED")
    await outbox.round()
    assert len(server.refused) == 1 and server.arrived == []
    [waiting] = await admin_messages(api, shop)
    assert waiting["status"] == "PENDING" and waiting["attempts"] == 1
    assert waiting["error"] == "The mail server answered 451 4.3.0 Try again later"
    assert waiting["nextAttemptAt"] is not None
    await outbox.round()
    [message] = server.arrived
    assert message["Message-ID"] == server.refused[0]["Message-ID"]
    assert parts(message) == parts(server.refused[0])
    [sent] = await admin_messages(api, shop)
    assert sent["status"] == "DELIVERED" and sent["attempts"] == 2 and sent["sentAt"]
    assert sent["kind"] == "PROOF_READY" and sent["recipient"] == CUSTOMER
    await outbox.round()
    assert len(server.arrived) == 1
    async with shop.engine.connect() as conn:
        kept = await conn.execute(text("SELECT count(*) FROM mail_messages WHERE message IS NULL"))
        assert kept.scalar_one() == 1, "a sent message forgets its bytes (they hold the link)"
        links = await conn.execute(text("SELECT count(*) FROM customer_links"))
        assert links.scalar_one() == 1, "the retry sent the link made for the first attempt"


async def test_a_message_refused_past_its_last_retry_is_dead_for_admins_to_see(
    api: Client, shop: Shop, outbox: MailOutbox, inbox: tuple[Inbox, int]
) -> None:
    server = inbox[0]
    outbox.policy = policy(inbox[1], retries=())
    server.refuse = 1
    order = await shop.order(["print"])
    await proof_event(shop, order, "PROOF_UPLOADED")
    await outbox.round()
    await outbox.round()
    assert server.arrived == [] and len(server.refused) == 1
    [dead] = await admin_messages(api, shop, "DEAD")
    assert dead["attempts"] == 1 and "451" in dead["error"] and dead["nextAttemptAt"] is None
    assert await admin_messages(api, shop, "PENDING") == []
    resent = await api.as_(shop.tokens["ada"])(RESEND, {"i": {"messageId": dead["id"]}})
    assert resent["resendMailMessage"] == {
        "message": {"status": "PENDING", "attempts": 0, "error": None},
        "userErrors": [],
    }
    await outbox.round()
    [message] = server.arrived
    assert message["Message-ID"] == server.refused[0]["Message-ID"]
    [sent] = await admin_messages(api, shop, "DELIVERED")
    assert sent["id"] == dead["id"] and sent["attempts"] == 1
    missing = gid("MailMessage", 10**9)
    gone = await api.as_(shop.tokens["ada"])(RESEND, {"i": {"messageId": missing}})
    assert gone["resendMailMessage"]["userErrors"] == [{"code": "NOT_FOUND", "field": "messageId"}]


async def test_sales_see_an_orders_emails_and_resend_one_when_the_server_offers_it(
    api: Client, shop: Shop, outbox: MailOutbox, inbox: tuple[Inbox, int]
) -> None:
    server = inbox[0]
    sam, pat = api.as_(shop.tokens["sam"]), api.as_(shop.tokens["pat"])
    order, other = await shop.order(["print"]), await shop.order(["print"])
    await proof_event(shop, order, "PROOF_UPLOADED")
    # The message made but its first attempt still to come: on its way, nothing offered.
    async with unit_of_work(shop.engine) as conn:
        assert await db_mail.claim(conn, outbox.owner, 60)
        await db_mail.follow(conn, outbox.owner, sales_email=SALES, max_age_seconds=3600, limit=100)
        await db_mail.release(conn, outbox.owner)
    [waiting] = (await sam(ORDER_MAIL, {"id": gid("WorkOrder", order)}))["workOrder"][
        "mailMessages"
    ]
    assert waiting["status"] == "PENDING" and waiting["attempts"] == 0
    assert waiting["allowedActions"] == []
    before = await table_snapshot(shop.engine)
    early = await sam(RESEND, {"i": {"messageId": waiting["id"]}})
    assert early["resendMailMessage"]["userErrors"] == [
        {"code": "INVALID_TRANSITION", "field": "messageId"}
    ]
    assert await table_snapshot(shop.engine) == before

    await outbox.round()
    [sent] = (await sam(ORDER_MAIL, {"id": gid("WorkOrder", order)}))["workOrder"]["mailMessages"]
    assert sent == {**waiting, "status": "DELIVERED", "attempts": 1, "allowedActions": ["RESEND"]}
    assert (await sam(ORDER_MAIL, {"id": gid("WorkOrder", other)}))["workOrder"][
        "mailMessages"
    ] == []
    # The floor sees none of it and may not resend.
    hidden = await pat.raw(ORDER_MAIL, {"id": gid("WorkOrder", order)})
    assert hidden["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    refused = await pat.raw(RESEND, {"i": {"messageId": sent["id"]}})
    assert refused["errors"][0]["extensions"]["code"] == "FORBIDDEN"

    resent = await sam(RESEND, {"i": {"messageId": sent["id"]}})
    assert resent["resendMailMessage"] == {
        "message": {"status": "PENDING", "attempts": 0, "error": None},
        "userErrors": [],
    }
    await outbox.round()
    first, again = server.arrived
    assert again["Message-ID"] == first["Message-ID"] and again["To"] == CUSTOMER


async def test_a_mail_server_out_of_reach_leaves_the_message_waiting_with_why(
    api: Client, shop: Shop, outbox: MailOutbox, inbox: tuple[Inbox, int]
) -> None:
    outbox.policy = policy(free_port())
    order = await shop.order(["print"])
    await proof_event(shop, order, "PROOF_UPLOADED")
    await outbox.round()
    [waiting] = await admin_messages(api, shop)
    assert waiting["status"] == "PENDING" and waiting["attempts"] == 1
    assert waiting["error"].startswith("Could not reach the mail server")
    outbox.policy = policy(inbox[1])
    await outbox.round()
    assert [m["To"] for m in inbox[0].arrived] == [CUSTOMER]


async def test_the_running_outbox_sends_as_the_feed_brings_new_events(
    running_app: tuple[str, Any], shop: Shop, inbox: tuple[Inbox, int]
) -> None:
    """Started as the app starts it, on the session server's feed: its rounds follow."""
    feed = running_app[1].state.services.feed
    # No poll to fall back on: only the feed's word starts a round.
    waiting = replace(policy(inbox[1]), poll_seconds=3600)
    outbox = MailOutbox(shop.engine, feed, waiting, PUBLIC_URL)
    async with unit_of_work(shop.engine) as conn:
        await conn.execute(
            text("UPDATE customers SET email = :e WHERE id = :id"),
            {"e": CUSTOMER, "id": shop.customer_id},
        )
    await outbox.round()  # the cursor starts here
    outbox.start()
    try:
        async with asyncio.timeout(30):
            order = await shop.order(["print"])
            await proof_event(shop, order, "PROOF_UPLOADED")
            await outbox.written_past(0)
    finally:
        await outbox.stop()
    assert [m["To"] for m in inbox[0].arrived] == [CUSTOMER]


def test_the_app_runs_an_outbox_only_with_a_mail_server(database_url: str) -> None:
    assert create_app(Settings(), url=database_url).state.mailer is None
    settings = Settings(smtp_url="smtp://127.0.0.1:2525", mail_from="shop@copper.test")
    mailer = create_app(settings, url=database_url).state.mailer
    assert isinstance(mailer, MailOutbox) and mailer.policy == policies.mail(settings)


async def test_two_processes_sending_at_once_send_each_message_once(
    shop: Shop, outbox: MailOutbox, inbox: tuple[Inbox, int]
) -> None:
    """The outbox has one holder at a time: the other process's rounds find it leased. The
    messages are made (and refused) first, so that both would find them ready to send."""
    other = MailOutbox(shop.engine, idle_feed(shop), outbox.policy, PUBLIC_URL)
    orders = [await shop.order(["print"]) for _ in range(5)]
    for order in orders:
        await proof_event(shop, order, "PROOF_UPLOADED")
    inbox[0].refuse = 5
    await outbox.round()
    assert len(inbox[0].refused) == 5
    for _ in range(3):
        await asyncio.gather(outbox.round(), other.round())
    ids = [m["Message-ID"] for m in inbox[0].arrived]
    assert len(ids) == len(set(ids)) == 5
