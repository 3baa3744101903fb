"""The words the shop says to its customers (domain/customer_words.py): every language says
everything English says, with the same placeholders; a locale picks its language, English
when there is none; each email reads in the shop's language."""

from datetime import UTC, datetime
from string import Formatter

import pytest

from domain import mail
from domain.customer_view import Stage
from domain.customer_words import CATALOGUES, ENGLISH, Words, language, proof_key, stage_key
from domain.enums import ProofStatus
from domain.mail import About, MailKind


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in Formatter().parse(text) if name is not None}


@pytest.mark.parametrize("lang", sorted(CATALOGUES))
def test_every_language_has_every_key_with_its_placeholders(lang: str) -> None:
    catalogue = CATALOGUES[lang]
    assert set(catalogue) == set(ENGLISH), "missing or extra keys"
    for key, text in ENGLISH.items():
        assert placeholders(catalogue[key]) == placeholders(text), key
        assert catalogue[key].strip(), key


def test_every_stage_and_proof_state_has_words() -> None:
    assert all(stage_key(s) in ENGLISH for s in Stage)
    assert all(proof_key(s) in ENGLISH for s in ProofStatus)
    assert {"en", "de", "fr", "es", "nl"} <= set(CATALOGUES)


@pytest.mark.parametrize(
    ("locale", "lang"),
    [("en-GB", "en"), ("de-DE", "de"), ("de_AT", "de"), ("fr-CA", "fr"), ("es", "es"),
     ("nl-BE", "nl"), ("NL-nl", "nl"), ("ja-JP", "en"), ("", "en")],
)  # fmt: skip
def test_a_locale_picks_its_language_or_english(locale: str, lang: str) -> None:
    assert language(locale) == lang
    assert Words(locale)("page.order", number="WO-1") == CATALOGUES[lang]["page.order"].format(
        number="WO-1"
    )


def policy(locale: str) -> mail.Policy:
    return mail.Policy(
        server=mail.smtp_server("smtp://mail.example"),
        sender=mail.mail_from("Kupferpresse <press@copper.example>"),
        locale=locale,
    )


def about(kind: MailKind) -> About:
    return About(
        kind,
        "WO-000001",
        "ACME",
        "500 x Flyer A5",
        link="https://shop.example/c/secret",
        proof_version=2,
        comment="Bitte das Logo größer",
        decided_by_name="Jane",
        due_at=datetime(2031, 3, 16, tzinfo=UTC),
        previous_due_at=datetime(2031, 3, 14, tzinfo=UTC),
    )


GERMAN_MAIL = [
    (MailKind.PROOF_READY, "Ihr Korrekturabzug für Auftrag WO-000001 wartet auf Ihre Freigabe",
     "Version 2 des Korrekturabzugs für Ihren Auftrag WO-000001 (500 x Flyer A5) ist fertig",
     "Korrekturabzug ansehen"),
    (MailKind.CHANGES_REQUESTED, "Änderungswünsche zum Korrekturabzug von Auftrag WO-000001",
     "Jane von ACME wünscht Änderungen an Version 2",
     "Die Aufgabe liegt wieder bei der Gestaltung."),
    (MailKind.READY_FOR_PICKUP, "Ihr Auftrag WO-000001 ist abholbereit",
     "Ihr Auftrag WO-000001 (500 x Flyer A5) ist fertig: Sie können ihn abholen.",
     "Guten Tag ACME,"),
    (MailKind.OUT_FOR_DELIVERY, "Ihr Auftrag WO-000001 ist unterwegs",
     "Ihr Auftrag WO-000001 (500 x Flyer A5) ist auf dem Weg zu Ihnen.", "Guten Tag ACME,"),
    (MailKind.DUE_LATER, "Auftrag WO-000001 wird später fertig als geplant",
     "Neuer Termin ist Sonntag, 16. März 2031 (bisher Freitag, 14. März 2031).",
     "Es tut uns leid"),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "subject", "said", "also"), GERMAN_MAIL)
def test_each_email_reads_in_german_in_a_german_shop(
    kind: MailKind, subject: str, said: str, also: str
) -> None:
    message = mail.compose(
        policy("de-DE"),
        about(kind),
        event_id=7,
        recipient="kunde@example.com",
        now=datetime(2031, 3, 1, tzinfo=UTC),
    )
    assert message["Subject"] == subject
    text = message.get_body(("plain",))
    html = message.get_body(("html",))
    assert text is not None and html is not None
    plain, marked = text.get_content(), html.get_content()
    assert said in plain and also in plain
    assert '<html lang="de">' in marked and said in marked


def test_an_email_in_a_shop_without_a_catalogue_reads_english() -> None:
    message = mail.compose(
        policy("ja-JP"),
        about(MailKind.READY_FOR_PICKUP),
        event_id=7,
        recipient="customer@example.com",
        now=datetime(2031, 3, 1, tzinfo=UTC),
    )
    assert message["Subject"] == "Your order WO-000001 is ready for pickup"
    html = message.get_body(("html",))
    assert html is not None and '<html lang="en">' in html.get_content()
