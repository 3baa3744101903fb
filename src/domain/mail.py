"""Email to customers and to Sales: which events say something worth a message, what each
message says (plain text and HTML, every value escaped in the HTML), and where it is sent
from.

The mail outbox (workers/mail.py) follows the event log as the webhook relay does
(domain/outbox.py): one message per event and recipient, each with a Message-ID made of
the two, so that the same message sent again after a failed attempt is recognisably the
same. The words are the shop's language's (domain/customer_words.py, English when it has
none); dates and times are written in the shop's locale (PRESSROOM_LOCALE) and time zone.
"""

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, parseaddr
from enum import StrEnum
from html import escape
from typing import Any
from urllib.parse import unquote, urlsplit
from zoneinfo import ZoneInfo

from babel import Locale
from babel.dates import format_date, format_time

from domain.customer_words import Words
from domain.outbox import DEFAULT_RETRIES, DeliveryStatus, retry_schedule

# Events read when the outbox was not running for longer than this are no longer news:
# the outbox moves past them without a message.
MAX_AGE_SECONDS = 86400.0


class MailKind(StrEnum):
    PROOF_READY = "PROOF_READY"  # PROOF_UPLOADED: to the customer, with a link
    CHANGES_REQUESTED = "CHANGES_REQUESTED"  # PROOF_CHANGES_REQUESTED: to Sales
    READY_FOR_PICKUP = "READY_FOR_PICKUP"  # DELIVERY_GATE_OPENED, not transported
    OUT_FOR_DELIVERY = "OUT_FOR_DELIVERY"  # the transported order's delivery task started
    DUE_LATER = "DUE_LATER"  # WORK_ORDER_CHANGED: the due date moved later


class MailCommand(StrEnum):
    """What a person may ask of an email."""

    RESEND = "RESEND"


def resendable(status: DeliveryStatus, attempts: int) -> bool:
    """Whether an email may be sent again now: once it went or died, or while it waits for
    the retry of a failed attempt (sent now, with a fresh count); not before its first
    attempt, which is on its way already."""
    return status is not DeliveryStatus.PENDING or attempts > 0


@dataclass(frozen=True)
class SmtpServer:
    """Where mail goes (PRESSROOM_SMTP_URL): smtp:// upgrades to TLS by STARTTLS (when the
    server offers it, unless there is a password to send: `starttls`); smtps:// speaks TLS
    from the start."""

    host: str
    port: int
    tls: bool
    username: str | None
    password: str | None


def smtp_server(url: str) -> SmtpServer:
    """smtp://user:password@host:port or smtps://...; the port defaults to 587 (smtp)
    or 465 (smtps). User and password are percent-decoded."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as error:
        raise ValueError(f"PRESSROOM_SMTP_URL is not a URL: {error}") from None
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
        raise ValueError(
            "PRESSROOM_SMTP_URL must look like smtp://user:password@host:587 (STARTTLS when "
            "the server offers it) or smtps://user:password@host:465 (TLS)"
        )
    tls = parts.scheme == "smtps"
    return SmtpServer(
        host=parts.hostname,
        port=port or (465 if tls else 587),
        tls=tls,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
    )


def starttls(server: SmtpServer) -> bool | None:
    """Whether to upgrade a plain connection (None: when the server offers it). A password
    never goes in clear: with one, a server that does not offer STARTTLS (or a machine in
    the middle that hides it) gets nothing."""
    if server.tls:
        return False
    return True if server.password is not None else None


def mail_from(value: str) -> Address:
    """PRESSROOM_MAIL_FROM: "Shop name <address>" or an address; the name signs messages."""
    name, address = parseaddr(value)
    if not address or "@" not in address:
        raise ValueError(
            f"{value!r} is not an email address (write shop@example.com or "
            '"Copper Press <shop@example.com>")'
        )
    user, domain = address.rsplit("@", 1)
    return Address(display_name=name, username=user, domain=domain)


def email_address(value: str) -> str:
    """PRESSROOM_SALES_EMAIL: a plain address."""
    name, address = parseaddr(value)
    if name or not address or "@" not in address or address != value.strip():
        raise ValueError(f"{value!r} is not an email address (sales@example.com)")
    return address


@dataclass(frozen=True)
class Policy:
    """The shop's mail settings (PRESSROOM_SMTP_URL, PRESSROOM_MAIL_*)."""

    server: SmtpServer
    sender: Address
    sales: str | None = None
    locale: str = "en-GB"
    time_zone: ZoneInfo = field(default_factory=lambda: ZoneInfo("UTC"))
    retries: tuple[float, ...] = field(default_factory=lambda: retry_schedule(DEFAULT_RETRIES))
    timeout_seconds: float = 30.0
    lease_seconds: float = 60.0
    poll_seconds: float = 5.0


def message_id(event_id: int, recipient: str, domain: str) -> str:
    """The same for every attempt of one event's message to one recipient."""
    who = hashlib.sha256(recipient.strip().lower().encode()).hexdigest()[:16]
    return f"<event-{event_id}.{who}@{domain}>"


@dataclass(frozen=True)
class About:
    """What a message is about, as read when it is first sent."""

    kind: MailKind
    order_number: str
    customer_name: str
    job_line: str | None
    # PROOF_READY: the customer's page; CHANGES_REQUESTED: what and who.
    link: str | None = None
    proof_version: int | None = None
    comment: str | None = None
    decided_by_name: str | None = None
    due_at: datetime | None = None
    previous_due_at: datetime | None = None


@dataclass(frozen=True)
class Written:
    subject: str
    paragraphs: list[str]
    # A call to action: (words, URL).
    action: tuple[str, str] | None = None
    # Text quoted as it was given (a customer's comment).
    quote: str | None = None


def _when(policy: Policy, moment: datetime | None, words: Words) -> str:
    if moment is None:
        return words("mail.no_date")
    locale = Locale.parse(policy.locale, sep="-")
    local = moment.astimezone(policy.time_zone)
    day = format_date(local.date(), "full", locale=locale)
    if (local.hour, local.minute) == (0, 0):
        return day
    return f"{day}, {format_time(local.time(), 'short', locale=locale)}"


def words(policy: Policy, about: About) -> Written:
    """What a message says, before it is laid out as text and HTML."""
    say = Words(policy.locale)
    order = {
        "number": about.order_number,
        "job": f" ({about.job_line})" if about.job_line else "",
    }
    hello = say("mail.hello", name=about.customer_name)
    match about.kind:
        case MailKind.PROOF_READY:
            assert about.link is not None
            return Written(
                say("mail.proof_ready.subject", **order),
                [hello, say("mail.proof_ready.body", version=about.proof_version, **order)],
                (say("mail.proof_ready.action"), about.link),
            )
        case MailKind.CHANGES_REQUESTED:
            return Written(
                say("mail.changes.subject", **order),
                [
                    say(
                        "mail.changes.body",
                        who=about.decided_by_name or say("mail.changes.someone"),
                        customer=about.customer_name,
                        version=about.proof_version,
                        **order,
                    )
                ],
                quote=about.comment,
            )
        case MailKind.READY_FOR_PICKUP:
            return Written(
                say("mail.pickup.subject", **order), [hello, say("mail.pickup.body", **order)]
            )
        case MailKind.OUT_FOR_DELIVERY:
            return Written(
                say("mail.delivery.subject", **order),
                [hello, say("mail.delivery.body", **order)],
            )
        case MailKind.DUE_LATER:
            return Written(
                say("mail.due_later.subject", **order),
                [
                    hello,
                    say(
                        "mail.due_later.body",
                        due=_when(policy, about.due_at, say),
                        previous=_when(policy, about.previous_due_at, say),
                        **order,
                    ),
                ],
            )


def _text(written: Written, signature: str) -> str:
    parts = list(written.paragraphs)
    if written.quote is not None:
        parts.append("\n".join(f"> {line}" for line in written.quote.splitlines()))
    if written.action is not None:
        parts.append(f"{written.action[0]}: {written.action[1]}")
    if signature:
        parts.append(signature)
    return "\n\n".join(parts) + "\n"


def _html(written: Written, signature: str, lang: str) -> str:
    body = [f"<p>{escape(p)}</p>" for p in written.paragraphs]
    if written.quote is not None:
        lines = "<br>".join(escape(line) for line in written.quote.splitlines())
        body.append(f"<blockquote>{lines}</blockquote>")
    if written.action is not None:
        label, url = written.action
        body.append(f'<p><a href="{escape(url)}">{escape(label)}</a></p>')
    if signature:
        body.append(f"<p>{escape(signature)}</p>")
    return (
        f'<!doctype html>\n<html lang="{escape(lang)}"><head><meta charset="utf-8">'
        f"<title>{escape(written.subject)}</title></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def compose(
    policy: Policy,
    about: About,
    *,
    event_id: int,
    recipient: str,
    now: datetime,
) -> EmailMessage:
    """The message, plain text with an HTML alternative."""
    written = words(policy, about)
    sender = policy.sender
    message = EmailMessage()
    message["From"] = sender
    message["To"] = recipient
    message["Subject"] = written.subject
    message["Date"] = format_datetime(now)
    message["Message-ID"] = message_id(event_id, recipient, sender.domain)
    # Not a reply target for auto-responders' loops (RFC 3834).
    message["Auto-Submitted"] = "auto-generated"
    signature = sender.display_name
    message.set_content(_text(written, signature))
    lang = Words(policy.locale).language
    message.add_alternative(_html(written, signature, lang), subtype="html")
    return message


def payload_time(payload: dict[str, Any], key: str) -> datetime | None:
    """A timestamp an event's payload carries (ISO 8601, as PostgreSQL writes it)."""
    value = payload.get(key)
    return datetime.fromisoformat(value) if isinstance(value, str) else None
