"""Email through a real SMTP server on loopback (aiosmtpd), read as it arrived: one message
per event and recipient, plain text and HTML with every value escaped, the same
Message-ID when a refused message is sent again, nothing to a customer who receives none,
and what failed shown to admins.

The outbox's rounds are run by the test, one at a time: each returns once the server
has answered every message it sent, so what arrived is read right after it. Proof events
are written into the log as the proof writers write them (their own tests make them
through the API)."""

import asyncio
import email
import email.policy
import hashlib
import json
import ssl
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session
from sqlalchemy import text

from db import mail as db_mail
from db.engine import unit_of_work
from db.feed import EventFeed
from domain import mail as rules
from domain.mail import Policy
from pressroom.app import create_app
from pressroom.settings import Settings
from tests.support.client import Client, gid
from tests.support.database import table_snapshot, task_ids
from tests.support.servers import free_port
from tests.support.shop import Shop
from tests.support.subscriptions import START
from workers.mail import MailOutbox

SALES = "sales@copper.test"
CUSTOMER = "orders@acme.test"
PUBLIC_URL = "https://floor.copper.test"

MESSAGES = """query($s: WebhookDeliveryStatus) { mailMessages(status: $s, first: 50) {
  edges { node { id kind recipient orderNumber subject status attempts error sentAt
  nextAttemptAt } } } }"""
UPDATE_CUSTOMER = """mutation($i: UpdateCustomerInput!) { updateCustomer(input: $i) {
  customer { receivesEmail } userErrors { code } } }"""
CREATE_CUSTOMER = """mutation($i: CreateCustomerInput!) { createCustomer(input: $i) {
  customer { name receivesEmail } userErrors { code } } }"""
RESEND = """mutation($i: ResendMailMessageInput!) { resendMailMessage(input: $i) {
  message { status attempts error } userErrors { code field } } }"""
ORDER_MAIL = """query($id: ID!) { workOrder(id: $id) { ... on WorkOrder {
  mailMessages { id kind recipient status attempts allowedActions } } } }"""
RESCHEDULE = """mutation($i: RescheduleWorkOrderInput!) { rescheduleWorkOrder(input: $i) {
  userErrors { code message } } }"""


@dataclass
class Inbox:
    """What the SMTP server took, and the messages it refused (`refuse`: how many DATA
    commands to answer 451 before it takes any)."""

    refuse: int = 0
    arrived: list[EmailMessage] = field(default_factory=list)
    refused: list[EmailMessage] = field(default_factory=list)
    envelopes: list[list[str]] = field(default_factory=list)
    # Per message taken: whether it came over TLS, and who signed in to send it.
    tls: list[bool] = field(default_factory=list)
    logins: list[Any] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        assert isinstance(envelope.content, bytes)
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)
        with self._lock:
            if self.refuse:
                self.refuse -= 1
                self.refused.append(parsed)
                return "451 4.3.0 Try again later"
            self.arrived.append(parsed)
            self.envelopes.append(list(envelope.rcpt_tos))
            self.tls.append(session.ssl is not None)
            self.logins.append(session.auth_data)
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.arrived if m["To"] == address]


@pytest.fixture
def inbox() -> Iterator[tuple[Inbox, int]]:
    found = Inbox()
    port = free_port()
    controller = Controller(found, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield found, port
    finally:
        controller.stop()


def policy(
    port: int, retries: tuple[float, ...] = (0.0, 0.0), url: str = "smtp://127.0.0.1"
) -> Policy:
    # Retries at once: the next round finds a refused message due again.
    return Policy(
        server=rules.smtp_server(f"{url}:{port}"),
        sender=rules.mail_from("Copper Press <shop@copper.test>"),
        sales=SALES,
        retries=retries,
    )


def idle_feed(shop: Shop) -> EventFeed:
    """A feed never started: the test runs the rounds."""
    return EventFeed(shop.engine, "unused")


@pytest.fixture
async def outbox(shop: Shop, inbox: tuple[Inbox, int]) -> AsyncIterator[MailOutbox]:
    """The shop's outbox, following the log from now (its first round starts it)."""
    found = MailOutbox(shop.engine, idle_feed(shop), policy(inbox[1]), PUBLIC_URL)
    await found.round()
    async with unit_of_work(shop.engine) as conn:
        await conn.execute(
            text("UPDATE customers SET email = :e WHERE id = :id"),
            {"e": CUSTOMER, "id": shop.customer_id},
        )
    yield found


async def proof_event(shop: Shop, order: int, kind: str, *, comment: str | None = None) -> int:
    """A proof version of the order, and its event as its writers log it: the event's id."""
    async with unit_of_work(shop.engine) as conn:
        decided = comment is not None
        proof = (
            await conn.execute(
                text(
                    "INSERT INTO proofs (work_order_id, version, file_name, media_type,"
                    " size_bytes, sha256, uploaded_by, status, decided_at, decided_through,"
                    " decided_by_name, decided_by, comment)"
                    " VALUES (:wo, coalesce((SELECT max(version) FROM proofs"
                    " WHERE work_order_id = :wo), 0) + 1, 'card.pdf', 'application/pdf', 10,"
                    " '\\x00', :by, :status, CASE WHEN :decided THEN now() END,"
                    " CASE WHEN :decided THEN 'SALES' END, CASE WHEN :decided THEN 'Ann' END,"
                    " CASE WHEN :decided THEN CAST(:by AS bigint) END, :comment)"
                    " RETURNING id, version"
                ),
                {
                    "wo": order,
                    "by": shop.users["sam"],
                    "status": "CHANGES_REQUESTED" if decided else "PENDING",
                    "decided": decided,
                    "comment": comment,
                },
            )
        ).one()
        payload = {"workOrderId": order, "proofId": proof.id, "version": proof.version}
        found = await conn.execute(
            text(
                "INSERT INTO events (type, work_order_id, payload)"
                " VALUES (:kind, :wo, CAST(:payload AS jsonb)) RETURNING id"
            ),
            {"kind": kind, "wo": order, "payload": json.dumps(payload)},
        )
        return int(found.scalar_one())


def parts(message: EmailMessage) -> tuple[str, str]:
    plain = message.get_body(("plain",))
    html = message.get_body(("html",))
    assert plain is not None and html is not None
    return str(plain.get_content()), str(html.get_content())  # type: ignore[attr-defined]


async def admin_messages(api: Client, shop: Shop, status: str | None = None) -> list[Any]:
    data = await api.as_(shop.tokens["ada"])(MESSAGES, {"s": status})
    return [e["node"] for e in data["mailMessages"]["edges"]]


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
    sam = api.as_(shop.tokens["sam"])
    due = datetime(2031, 3, 14, 0, 0, tzinfo=UTC)
    for when in (due, due + timedelta(days=2), due + timedelta(days=1)):
        moved = await sam(
            RESCHEDULE,
            {
                "i": {
                    "workOrderId": gid("WorkOrder", picked_up),
                    "dueAt": when.isoformat(),
                    "priority": "NORMAL",
                }
            },
        )
        assert moved["rescheduleWorkOrder"]["userErrors"] == []
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
    assert isinstance(mailer, MailOutbox) and mailer.policy == settings.mail_policy()


def signs_in_press(
    server: SMTP, session: Session, envelope: Envelope, mechanism: str, auth_data: Any
) -> AuthResult:
    good = isinstance(auth_data, LoginPassword) and auth_data == (b"press", b"s@cret:1")
    return AuthResult(success=good, auth_data=auth_data.login if good else None)


@pytest.fixture
def ca(tmp_path: Path) -> Iterator[tuple[trustme.CA, Path]]:
    """A certificate authority of the test's own, and its certificate's file."""
    found = trustme.CA()
    path = tmp_path / "ca.pem"
    found.cert_pem.write_to_path(str(path))
    yield found, path


def served_tls(ca: trustme.CA) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    return context


async def test_smtp_upgrades_by_starttls_and_signs_in_with_the_urls_user(
    shop: Shop, outbox: MailOutbox, ca: tuple[trustme.CA, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server offers STARTTLS and takes mail only over it, from a signed-in sender."""
    monkeypatch.setenv("SSL_CERT_FILE", str(ca[1]))
    server, port = Inbox(), free_port()
    controller = Controller(
        server,
        hostname="127.0.0.1",
        port=port,
        tls_context=served_tls(ca[0]),
        require_starttls=True,
        auth_required=True,
        authenticator=signs_in_press,
    )
    controller.start()
    try:
        outbox.policy = policy(port, url="smtp://press:s%40cret%3A1@127.0.0.1")
        order = await shop.order(["print"])
        await proof_event(shop, order, "PROOF_UPLOADED")
        await outbox.round()
    finally:
        controller.stop()
    assert [m["To"] for m in server.arrived] == [CUSTOMER]
    assert server.tls == [True] and server.logins == [b"press"]


async def test_smtps_speaks_tls_from_the_start_and_checks_the_certificate(
    api: Client,
    shop: Shop,
    outbox: MailOutbox,
    ca: tuple[trustme.CA, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Until the server's certificate is one the system trusts (SSL_CERT_FILE here), nothing
    is sent."""
    server, port = Inbox(), free_port()
    controller = Controller(server, hostname="127.0.0.1", port=port, ssl_context=served_tls(ca[0]))
    controller.start()
    try:
        outbox.policy = policy(port, url="smtps://127.0.0.1")
        order = await shop.order(["print"])
        await proof_event(shop, order, "PROOF_UPLOADED")
        await outbox.round()
        [waiting] = await admin_messages(api, shop)
        assert (
            waiting["status"] == "PENDING"
            and "certificate could not be verified" in waiting["error"]
        )
        assert server.arrived == []
        monkeypatch.setenv("SSL_CERT_FILE", str(ca[1]))
        await outbox.round()
    finally:
        controller.stop()
    # The server speaks nothing but TLS: what it took came over it.
    assert [m["To"] for m in server.arrived] == [CUSTOMER]


async def test_a_password_is_never_sent_to_a_server_that_offers_no_starttls(
    api: Client, shop: Shop, outbox: MailOutbox
) -> None:
    """A server (or a machine in the middle) that would take the password in clear."""
    server, port = Inbox(), free_port()
    controller = Controller(
        server,
        hostname="127.0.0.1",
        port=port,
        auth_require_tls=False,
        authenticator=signs_in_press,
    )
    controller.start()
    try:
        outbox.policy = policy(port, url="smtp://press:s%40cret%3A1@127.0.0.1")
        order = await shop.order(["print"])
        await proof_event(shop, order, "PROOF_UPLOADED")
        await outbox.round()
    finally:
        controller.stop()
    [waiting] = await admin_messages(api, shop)
    assert waiting["status"] == "PENDING" and "STARTTLS" in waiting["error"]
    assert server.arrived == [] and server.logins == []


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
