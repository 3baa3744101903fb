"""The mail outbox of one server process (PRESSROOM_SMTP_URL set): it leases the outbox
when no live process holds it, turns the log's next events into messages, and sends those
whose time has come through SMTP, one connection per batch.

A round: lease the outbox (db/mail.py, FOR UPDATE SKIP LOCKED); follow the log; for each
message due, make its bytes at its first attempt (a proof's message with a new customer
link) and keep them, so that a retry sends the same message with the same Message-ID;
send; write the attempts with the lease lengthened. A failed message waits for its retry
(domain/outbox.py) without holding back the others (each has its own recipient); after
the last retry it is dead, which admins see (`mailMessages`). Rounds follow the feed as
every outbox's do (workers/outbox.py).
"""

import contextlib
import logging
import random
import ssl
import time
from datetime import UTC, datetime

import aiosmtplib
from sqlalchemy.ext.asyncio import AsyncEngine

from db import customer_links, mail
from db.engine import unit_of_work
from db.feed import EventFeed
from db.mail import Attempt, Pending
from domain import mail as rules
from domain.jobs import job_line
from domain.mail import About, MailKind, Policy
from domain.outbox import DeliveryStatus, after_attempt
from workers.outbox import OutboxLoop, no_session

log = logging.getLogger("pressroom.mail")

# Events one statement turns into messages, and messages read to send at a time.
FOLLOW = 1000
BATCH = 50


def unreached(error: aiosmtplib.SMTPException | OSError) -> str:
    """Why the mail server was not reached, in words for the mail screen: the exception's
    own text (an errno, a class name) goes to the log."""
    if isinstance(error, aiosmtplib.SMTPAuthenticationError):
        return "it refused the user name or password"
    if isinstance(error, (aiosmtplib.SMTPTimeoutError, TimeoutError)):
        return "it did not answer in time"
    # aiosmtplib raises its connect error from the TLS one.
    if isinstance(error.__cause__ or error, ssl.SSLCertVerificationError):
        return "its certificate could not be verified"
    # aiosmtplib says so only in its words; a password is never sent in clear.
    if isinstance(error, aiosmtplib.SMTPException) and "STARTTLS" in error.message:
        return "it does not offer STARTTLS, and the password is never sent in clear"
    if isinstance(error, (aiosmtplib.SMTPConnectError, OSError)):
        return "nothing answered at its address"
    return "the connection failed"


class LeaseLost(Exception):
    """The outbox's lease ran out while a message was being made: nothing of it is kept."""


class MailOutbox(OutboxLoop[None]):
    name = "mail"

    def __init__(
        self, engine: AsyncEngine, feed: EventFeed, policy: Policy, public_url: str
    ) -> None:
        super().__init__(feed, policy.poll_seconds)
        self.engine = engine
        self.policy = policy
        self.public_url = public_url.rstrip("/")
        self._rng = random.Random()

    def session(self) -> contextlib.AbstractAsyncContextManager[None]:
        return no_session()

    async def round(self, client: None = None) -> None:
        async with unit_of_work(self.engine) as conn:
            if not await mail.claim(conn, self.owner, self.policy.lease_seconds):
                return
        until = time.monotonic() + self.policy.lease_seconds / 2
        try:
            while time.monotonic() < until:
                async with unit_of_work(self.engine) as conn:
                    read = await mail.follow(
                        conn,
                        self.owner,
                        sales_email=self.policy.sales,
                        max_age_seconds=rules.MAX_AGE_SECONDS,
                        limit=FOLLOW,
                    )
                    due = await mail.next_messages(conn, BATCH)
                if due and not await self._send(due):
                    return
                if read < FOLLOW and len(due) < BATCH:
                    return
        finally:
            async with unit_of_work(self.engine) as conn:
                await mail.release(conn, self.owner)

    async def _send(self, due: list[Pending]) -> bool:
        """Send the messages over one connection; whether the lease held throughout."""
        ready: list[tuple[Pending, bytes]] = []
        for pending in due:
            try:
                ready.append((pending, pending.message or await self._compose(pending)))
            except LeaseLost:
                return False
        server = self.policy.server
        smtp = aiosmtplib.SMTP(
            hostname=server.host,
            port=server.port,
            username=server.username,
            password=server.password,
            use_tls=server.tls,
            start_tls=rules.starttls(server),
            timeout=self.policy.timeout_seconds,
        )
        attempts: list[Attempt] = []
        try:
            async with smtp:
                for pending, message in ready:
                    attempts.append(await self._attempt(smtp, pending, message))
        except (aiosmtplib.SMTPException, OSError) as error:
            # No connection, or it broke: what was not tried failed with it.
            tried = {a.message_id for a in attempts}
            log.info("mail server not reached: %r", error)
            why = f"Could not reach the mail server: {unreached(error)}"
            attempts += [self._outcome(p, why) for p, _ in ready if p.id not in tried]
        async with unit_of_work(self.engine) as conn:
            held = await mail.attempted(conn, self.owner, self.policy.lease_seconds, attempts)
        await self.wrote(len(attempts))
        return held

    async def _compose(self, pending: Pending) -> bytes:
        """The message's bytes, kept for every attempt with the link made for it."""
        async with unit_of_work(self.engine) as conn:
            link_id = link = None
            if pending.kind is MailKind.PROOF_READY:
                made = await customer_links.create(
                    conn, pending.work_order_id, created_by=None, emailed_to=pending.recipient
                )
                link_id, link = made.link.id, f"{self.public_url}/c/{made.secret}"
            about = About(
                kind=pending.kind,
                order_number=pending.order_number,
                customer_name=pending.customer_name,
                job_line=job_line(pending.details),
                link=link,
                proof_version=pending.proof_version,
                comment=pending.proof_comment,
                decided_by_name=pending.proof_decided_by_name,
                due_at=rules.payload_time(pending.payload, "dueAt"),
                previous_due_at=rules.payload_time(pending.payload, "previousDueAt"),
            )
            composed = rules.compose(
                self.policy,
                about,
                event_id=pending.event_id,
                recipient=pending.recipient,
                now=datetime.now(UTC),
            )
            message = composed.as_bytes()
            kept = await mail.composed(
                conn,
                self.owner,
                pending.id,
                subject=str(composed["Subject"]),
                message=message,
                customer_link_id=link_id,
            )
            if not kept:
                raise LeaseLost
        return message

    async def _attempt(self, smtp: aiosmtplib.SMTP, pending: Pending, message: bytes) -> Attempt:
        try:
            await smtp.sendmail(self.policy.sender.addr_spec, [pending.recipient], message)
        except aiosmtplib.SMTPRecipientsRefused as refused:
            # 5xx: the address is refused for good; trying again would change nothing.
            why = "The mail server refused the recipient: " + "; ".join(
                f"{r.code} {r.message}" for r in refused.recipients
            )
            return self._outcome(pending, why, final=all(r.code >= 500 for r in refused.recipients))
        except aiosmtplib.SMTPResponseException as answered:
            return self._outcome(
                pending, f"The mail server answered {answered.code} {answered.message}"
            )
        return self._outcome(pending, None)

    def _outcome(self, pending: Pending, error: str | None, *, final: bool = False) -> Attempt:
        """What an attempt leaves the message as (`error` None: the server took it)."""
        status, retry_in = after_attempt(
            error is None,
            final=final,
            schedule=self.policy.retries,
            attempts=pending.attempts + 1,
            rng=self._rng,
        )
        if status is DeliveryStatus.DEAD:
            log.warning("mail %s (%s) is dead: %s", pending.id, pending.kind, error)
        return Attempt(pending.id, status, error, retry_in)
