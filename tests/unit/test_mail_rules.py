"""Mail's rules in the domain: the SMTP URL and sender read from settings, the Message-ID,
and what a message says (its HTML escaped)."""

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from domain import mail
from domain.mail import About, MailKind
from pressroom import policies
from pressroom.settings import Settings


@pytest.mark.parametrize(
    ("url", "host", "port", "tls", "user", "password"),
    [
        ("smtp://mail.example:2525", "mail.example", 2525, False, None, None),
        ("smtp://mail.example", "mail.example", 587, False, None, None),
        (
            "smtps://a%40b.example:p%3Ass@mail.example",
            "mail.example",
            465,
            True,
            "a@b.example",
            "p:ss",
        ),
    ],
)
def test_an_smtp_url_names_the_server_its_tls_and_who_signs_in(
    url: str, host: str, port: int, tls: bool, user: str | None, password: str | None
) -> None:
    assert mail.smtp_server(url) == mail.SmtpServer(host, port, tls, user, password)


@pytest.mark.parametrize(
    "url", ["http://mail.example", "smtp://", "mail.example:25", "smtp://mail.example:99999"]
)
def test_an_smtp_url_that_is_not_one_is_refused(url: str) -> None:
    with pytest.raises(ValueError, match="PRESSROOM_SMTP_URL"):
        mail.smtp_server(url)


def test_the_sender_may_carry_the_shops_name() -> None:
    named = mail.mail_from("Copper Press <press@copper.example>")
    assert (named.display_name, named.addr_spec) == ("Copper Press", "press@copper.example")
    assert mail.mail_from("press@copper.example").display_name == ""
    with pytest.raises(ValueError, match="not an email address"):
        mail.mail_from("Copper Press")


def test_mail_is_off_without_a_server_and_whole_with_one() -> None:
    assert policies.mail(Settings(smtp_url=None)) is None
    with pytest.raises(ValidationError, match="needs PRESSROOM_MAIL_FROM"):
        Settings(smtp_url="smtp://mail.example")
    with pytest.raises(ValidationError, match="not an email address"):
        Settings(sales_email="Sales <sales@example.com>")
    with pytest.raises(ValidationError, match="is not a delay"):
        Settings(mail_retries="soon")
    policy = policies.mail(
        Settings(smtp_url="smtps://mail.example", mail_from="press@copper.example", locale="de-DE")
    )
    assert policy is not None and policy.server.tls and policy.locale == "de-DE"


def test_a_message_id_is_one_per_event_and_recipient_whatever_the_case() -> None:
    one = mail.message_id(7, "Ann@Example.com", "copper.example")
    assert one == mail.message_id(7, "ann@example.com", "copper.example")
    assert one != mail.message_id(8, "ann@example.com", "copper.example")
    assert one != mail.message_id(7, "bob@example.com", "copper.example")
    assert one.startswith("<event-7.") and one.endswith("@copper.example>")


def test_dates_are_written_in_the_shops_locale_and_zone() -> None:
    policy = mail.Policy(
        server=mail.smtp_server("smtp://mail.example"),
        sender=mail.mail_from("press@copper.example"),
        locale="de-DE",
    )
    about = About(
        MailKind.DUE_LATER,
        "WO-000001",
        "ACME",
        None,
        due_at=datetime(2031, 3, 16, tzinfo=UTC),
        previous_due_at=datetime(2031, 3, 14, 15, 30, tzinfo=UTC),
    )
    [_, said] = mail.words(policy, about).paragraphs
    assert "Sonntag, 16. März 2031" in said
    assert "Freitag, 14. März 2031, 15:30" in said


@pytest.mark.parametrize(
    ("url", "upgrade"),
    [("smtps://u:p@mail.example", False), ("smtp://u:p@mail.example", True),
     ("smtp://mail.example", None)],
)  # fmt: skip
def test_a_password_goes_only_over_tls(url: str, upgrade: bool | None) -> None:
    assert mail.starttls(mail.smtp_server(url)) is upgrade
