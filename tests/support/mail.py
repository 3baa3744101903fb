"""Mail for the tests: an SMTP server on loopback (aiosmtpd) that keeps what it took and
refuses as told, the shop's outbox following the event log from now (the test runs its
rounds), the policy it sends by, proof events written as their writers log them, a
message's plain text and HTML, and the messages admins see."""

import asyncio
import email
import email.policy
import json
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from sqlalchemy import text

from db.engine import unit_of_work
from db.feed import EventFeed
from domain import mail as rules
from domain.mail import Policy
from tests.support.client import Client
from tests.support.servers import free_port
from tests.support.shop import Shop
from workers.mail import MailOutbox

SALES = "sales@copper.test"
CUSTOMER = "orders@acme.test"
PUBLIC_URL = "https://floor.copper.test"

MESSAGES = """query($s: WebhookDeliveryStatus) { mailMessages(status: $s, first: 50) {
  edges { node { id kind recipient orderNumber subject status attempts error sentAt
  nextAttemptAt } } } }"""


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


@contextmanager
def smtp_server(**options: Any) -> Iterator[tuple[Inbox, int]]:
    """A real SMTP server on a free port of loopback, with aiosmtpd's `options` (TLS,
    sign-in), for the block: what it takes, and its port."""
    found = Inbox()
    port = free_port()
    controller = Controller(found, hostname="127.0.0.1", port=port, **options)
    controller.start()
    try:
        yield found, port
    finally:
        controller.stop()


@pytest.fixture
def inbox() -> Iterator[tuple[Inbox, int]]:
    with smtp_server() as served:
        yield served


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
        event = int(found.scalar_one())
    await caught_up(shop)
    return event


async def caught_up(shop: Shop) -> None:
    """Until every event logged is below the log's horizon, which the outbox reads up to:
    while a transaction of the session's server that began before an event is still open,
    a round would not see that event yet (and one round is what a test runs)."""
    async with asyncio.timeout(10):
        while True:
            async with shop.engine.connect() as conn:
                if await conn.scalar(ALL_BELOW_THE_HORIZON):
                    return
            await asyncio.sleep(0.01)


ALL_BELOW_THE_HORIZON = text("SELECT coalesce(max(xid) < events_horizon(), true) FROM events")


def parts(message: EmailMessage) -> tuple[str, str]:
    plain = message.get_body(("plain",))
    html = message.get_body(("html",))
    assert plain is not None and html is not None
    return str(plain.get_content()), str(html.get_content())  # type: ignore[attr-defined]


async def admin_messages(api: Client, shop: Shop, status: str | None = None) -> list[Any]:
    data = await api.as_(shop.tokens["ada"])(MESSAGES, {"s": status})
    return [e["node"] for e in data["mailMessages"]["edges"]]
