"""What is mailed, through a real SMTP server on loopback (aiosmtpd), read as it arrived:
one message per event and recipient (a proof to the customer with a link made for that
address, changes asked for to Sales with the comment), plain text and HTML with every value
escaped, nothing to a customer who receives none, pickup, delivery and a later due date told
and an earlier one not.

The outbox's rounds are run by the test, one at a time: each returns once the server
has answered every message it sent, so what arrived is read right after it. Proof events
are written into the log as the proof writers write them (their own tests make them
through the API)."""

import hashlib
from datetime import UTC, datetime, timedelta

from sqlalchemy import text

from db.engine import unit_of_work
from domain import mail as rules
from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.mail import CUSTOMER, PUBLIC_URL, SALES, Inbox, caught_up, parts, proof_event
from tests.support.orders import reschedule
from tests.support.shop import Shop
from tests.support.subscriptions import START
from workers.mail import MailOutbox

UPDATE_CUSTOMER = """mutation($i: UpdateCustomerInput!) { updateCustomer(input: $i) {
  customer { receivesEmail } userErrors { code } } }"""
CREATE_CUSTOMER = """mutation($i: CreateCustomerInput!) { createCustomer(input: $i) {
  customer { name receivesEmail } userErrors { code } } }"""


async def test_a_proof_is_mailed_once_to_the_customer_with_a_link_made_for_that_address(
    shop: Shop, outbox: MailOutbox, inbox: tuple[Inbox, int]
) -> None:
    server = inbox[0]
    order = await shop.order(["print"])
    event = await proof_event(shop, order, "PROOF_UPLOADED")
    await outbox.round()
    await outbox.round()
    [message] = server.arrived
    assert server.envelopes == [[CUSTOMER]]
    assert message["To"] == CUSTOMER
    assert message["From"] == "Copper Press <shop@copper.test>"
    assert message["Message-ID"] == rules.message_id(event, CUSTOMER, "copper.test")
    assert "ready for your approval" in message["Subject"]
    plain, html = parts(message)
    assert "Version 1 of the proof" in plain and "Flyers" in plain
    link = next(w for w in plain.split() if w.startswith(f"{PUBLIC_URL}/c/"))
    assert f'href="{link}"' in html
    secret = link.removeprefix(f"{PUBLIC_URL}/c/")
    async with shop.engine.connect() as conn:
        links = (
            await conn.execute(
                text(
                    "SELECT work_order_id, secret_hash, emailed_to, created_by FROM customer_links"
                )
            )
        ).all()
    assert [tuple(r) for r in links] == [
        (order, hashlib.sha256(secret.encode()).digest(), CUSTOMER, None)
    ]


async def test_changes_requested_go_to_sales_with_the_comment_and_nothing_to_the_customer(
    shop: Shop, outbox: MailOutbox, inbox: tuple[Inbox, int]
) -> None:
    server = inbox[0]
    order = await shop.order(["print"])
    await proof_event(shop, order, "PROOF_CHANGES_REQUESTED", comment="Logo bigger, please.")
    await outbox.round()
    [message] = server.arrived
    assert message["To"] == SALES
    plain, html = parts(message)
    assert "> Logo bigger, please." in plain
    assert "Ann of ACME asked for changes to version 1" in plain
    assert "<blockquote>Logo bigger, please.</blockquote>" in html


async def test_a_customer_who_receives_no_email_gets_none_and_sales_still_does(
    api: Client, shop: Shop, outbox: MailOutbox, inbox: tuple[Inbox, int]
) -> None:
    server = inbox[0]
    sam = api.as_(shop.tokens["sam"])
    off = {"customerId": gid("Customer", shop.customer_id), "receivesEmail": False}
    changed = await sam(UPDATE_CUSTOMER, {"i": off})
    assert changed["updateCustomer"]["customer"] == {"receivesEmail": False}
    order = await shop.order(["print"])
    await proof_event(shop, order, "PROOF_UPLOADED")
    await proof_event(shop, order, "PROOF_CHANGES_REQUESTED", comment="Blue, not green.")
    await outbox.round()
    assert [m["To"] for m in server.arrived] == [SALES]
    made = await sam(CREATE_CUSTOMER, {"i": {"name": "Quiet Ltd", "receivesEmail": False}})
    assert made["createCustomer"]["customer"] == {"name": "Quiet Ltd", "receivesEmail": False}
    plain = await sam(CREATE_CUSTOMER, {"i": {"name": "Loud Ltd"}})
    assert plain["createCustomer"]["customer"]["receivesEmail"] is True


async def test_hostile_names_are_escaped_in_the_html_and_left_as_they_are_in_the_text(
    shop: Shop, outbox: MailOutbox, inbox: tuple[Inbox, int]
) -> None:
    server = inbox[0]
    hostile = '<script>alert("x")</script> & "Co"'
    async with unit_of_work(shop.engine) as conn:
        await conn.execute(
            text("UPDATE customers SET name = :n WHERE id = :id"),
            {"n": hostile, "id": shop.customer_id},
        )
    order = await shop.order(["print"], details={"product": '<img src=x onerror="alert(1)">'})
    await proof_event(shop, order, "PROOF_UPLOADED")
    await outbox.round()
    [message] = server.arrived
    plain, html = parts(message)
    assert hostile in plain
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &quot;Co&quot;" in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html


async def test_pickup_delivery_and_a_later_due_date_are_told_and_an_earlier_one_is_not(
    api: Client, shop: Shop, outbox: MailOutbox, inbox: tuple[Inbox, int]
) -> None:
    server = inbox[0]
    picked_up = await shop.order(["print"])
    transported = await shop.order(["print"])
    async with unit_of_work(shop.engine) as conn:
        await conn.execute(
            text("UPDATE work_orders SET needs_transport = true WHERE id = :id"),
            {"id": transported},
        )
    await shop.complete(picked_up, ["print"])
    await shop.complete(transported, ["print"])
    delivery = (await task_ids(shop.engine, transported))["delivery"]
    started = await api.as_(shop.tokens["dan"])(
        START, {"i": {"taskId": gid("DepartmentTask", delivery)}}
    )
    assert started["startTask"]["userErrors"] == []
    due = datetime(2031, 3, 14, 0, 0, tzinfo=UTC)
    for when in (due, due + timedelta(days=2), due + timedelta(days=1)):
        await reschedule(api, shop, picked_up, when.isoformat())
    await caught_up(shop)
    await outbox.round()
    subjects = sorted(str(m["Subject"]) for m in server.to(CUSTOMER))
    numbers = {o: (await shop_number(shop, o)) for o in (picked_up, transported)}
    assert subjects == sorted(
        [
            f"Order {numbers[picked_up]} will be ready later than planned",
            f"Your order {numbers[picked_up]} is ready for pickup",
            f"Your order {numbers[transported]} is out for delivery",
        ]
    )
    [later] = [m for m in server.arrived if "later" in str(m["Subject"])]
    plain, _ = parts(later)
    assert "now due on Sunday, 16 March 2031 (it was Friday, 14 March 2031)" in plain


async def shop_number(shop: Shop, order: int) -> str:
    async with shop.engine.connect() as conn:
        found = await conn.execute(
            text("SELECT order_number FROM work_orders WHERE id = :id"), {"id": order}
        )
        return str(found.scalar_one())
