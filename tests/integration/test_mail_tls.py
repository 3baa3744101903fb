"""The outbox's TLS and sign-in, against real SMTP servers on loopback (aiosmtpd) with
certificates of a test authority (trustme): STARTTLS before signing in with the URL's user,
SMTPS speaking TLS from the start and sending nothing until the certificate is trusted, and
a password never sent to a server that offers no STARTTLS."""

import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trustme
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

from tests.support.client import Client
from tests.support.mail import CUSTOMER, admin_messages, policy, proof_event, smtp_server
from tests.support.shop import Shop
from workers.mail import MailOutbox


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


async def mail_a_proof(shop: Shop, outbox: MailOutbox, port: int, url: str) -> None:
    """A proof uploaded for the customer, and one round of the outbox through `url`."""
    outbox.policy = policy(port, url=url)
    order = await shop.order(["print"])
    await proof_event(shop, order, "PROOF_UPLOADED")
    await outbox.round()


async def test_smtp_upgrades_by_starttls_and_signs_in_with_the_urls_user(
    shop: Shop, outbox: MailOutbox, ca: tuple[trustme.CA, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server offers STARTTLS and takes mail only over it, from a signed-in sender."""
    monkeypatch.setenv("SSL_CERT_FILE", str(ca[1]))
    with smtp_server(
        tls_context=served_tls(ca[0]),
        require_starttls=True,
        auth_required=True,
        authenticator=signs_in_press,
    ) as (server, port):
        await mail_a_proof(shop, outbox, port, "smtp://press:s%40cret%3A1@127.0.0.1")
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
    with smtp_server(ssl_context=served_tls(ca[0])) as (server, port):
        await mail_a_proof(shop, outbox, port, "smtps://127.0.0.1")
        [waiting] = await admin_messages(api, shop)
        assert (
            waiting["status"] == "PENDING"
            and "certificate could not be verified" in waiting["error"]
        )
        assert server.arrived == []
        monkeypatch.setenv("SSL_CERT_FILE", str(ca[1]))
        await outbox.round()
    # The server speaks nothing but TLS: what it took came over it.
    assert [m["To"] for m in server.arrived] == [CUSTOMER]


async def test_a_password_is_never_sent_to_a_server_that_offers_no_starttls(
    api: Client, shop: Shop, outbox: MailOutbox
) -> None:
    """A server (or a machine in the middle) that would take the password in clear."""
    with smtp_server(auth_require_tls=False, authenticator=signs_in_press) as (server, port):
        await mail_a_proof(shop, outbox, port, "smtp://press:s%40cret%3A1@127.0.0.1")
    [waiting] = await admin_messages(api, shop)
    assert waiting["status"] == "PENDING" and "STARTTLS" in waiting["error"]
    assert server.arrived == [] and server.logins == []
