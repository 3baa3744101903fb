"""The payments door: a provider's notification, signed per Standard Webhooks, becomes one
PAYMENT ledger entry however often it is redelivered; a bad signature, a stale timestamp,
an unknown customer or order, a wrong currency and the like are refused in words with a
4xx and write nothing to the shop's data; those that proved the secret show to admins as
the inbox's requests. The door holds against anyone without the secret: limits per
address, the same answer whether a name exists, nothing kept of what they send, a
namespace of keys no person's can enter; and an admin rotates, turns off and deletes."""

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from standardwebhooks.webhooks import Webhook

from tests.support.client import Client, gid
from tests.support.database import table_snapshot
from tests.support.servers import app_from, metric
from tests.support.shop import Shop

CREATE = """mutation($i: CreatePaymentInboxInput!) { createPaymentInbox(input: $i) {
  secret inbox { id name currency url } userErrors { code field message } } }"""
INBOXES = """{ paymentInboxes { name requests { status error messageId entry { id } } } }"""
LEDGER = """query($c: ID!) { customer: node(id: $c) { ... on Customer {
  balance { amount currency }
  ledger(first: 10) { edges { node { id kind idempotencyKey memo amount { amount }
    workOrder { id } } } } } } }"""


class Sender:
    """A payment provider: signs and posts notifications to one inbox."""

    def __init__(self, http: httpx.AsyncClient, url: str, secret: str) -> None:
        self.http, self.url, self.secret = http, url, secret

    async def send(
        self, body: Any, msg_id: str, *, secret: str | None = None, at: datetime | None = None
    ) -> httpx.Response:
        text = body if isinstance(body, str) else json.dumps(body)
        moment = at or datetime.now(UTC)
        headers = {
            "content-type": "application/json",
            "webhook-id": msg_id,
            "webhook-timestamp": str(int(moment.timestamp())),
            "webhook-signature": Webhook(secret or self.secret).sign(msg_id, moment, text),
        }
        return await self.http.post(self.url, content=text.encode(), headers=headers)


@pytest.fixture
async def sender(api: Client, shop: Shop, http: httpx.AsyncClient) -> Sender:
    data = await api.as_(shop.tokens["ada"])(CREATE, {"i": {"name": "bank", "currency": "EUR"}})
    made = data["createPaymentInbox"]
    assert made["userErrors"] == []
    assert made["inbox"]["url"].endswith("/hooks/payments/bank")
    return Sender(http, made["inbox"]["url"], made["secret"])


def paid(shop: Shop, **more: Any) -> dict[str, Any]:
    return {
        "customerId": gid("Customer", shop.customer_id),
        "amount": "120.50",
        "currency": "EUR",
        "paidAt": "2026-12-01T10:30:00+01:00",
        "reference": "SEPA 4471",
    } | more


async def ledger(api: Client, shop: Shop) -> Any:
    data = await api.as_(shop.tokens["abe"])(LEDGER, {"c": gid("Customer", shop.customer_id)})
    return data["customer"]


async def test_a_notification_posts_one_payment_however_often_it_comes(
    api: Client, shop: Shop, sender: Sender
) -> None:
    first = await sender.send(paid(shop), "msg_1")
    assert first.status_code == 200
    answer = first.json()
    assert answer["changed"] is True
    again = await sender.send(paid(shop), "msg_1")
    assert (again.status_code, again.json()) == (200, {**answer, "changed": False})
    found = await ledger(api, shop)
    assert found["balance"] == [{"amount": "-120.50", "currency": "EUR"}]
    [entry] = [e["node"] for e in found["ledger"]["edges"]]
    assert entry["id"] == answer["entryId"]
    assert (entry["kind"], entry["idempotencyKey"]) == ("PAYMENT", "inbox:bank:msg_1")
    assert entry["memo"] == "SEPA 4471, paid 2026-12-01T10:30+01:00 (via bank)"


async def test_a_notification_for_a_work_order_is_posted_against_it(
    api: Client, shop: Shop, sender: Sender
) -> None:
    order = await shop.order(["print"])
    body = paid(shop, workOrderId=gid("WorkOrder", order)) | {"customerId": None}
    response = await sender.send(body, "msg_order")
    assert response.status_code == 200, response.text
    [entry] = [e["node"] for e in (await ledger(api, shop))["ledger"]["edges"]]
    assert entry["workOrder"] == {"id": gid("WorkOrder", order)}


REFUSALS: list[tuple[str, dict[str, Any], int, str | None, str]] = [
    ("no such customer", {"customerId": gid("Customer", 999_999)}, 404, "customerId",
     "No such customer."),
    ("no such order", {"workOrderId": gid("WorkOrder", 999_999)}, 404, "workOrderId",
     "No such work order."),
    ("another currency", {"currency": "USD"}, 422, "currency",
     "This inbox takes payments in EUR, not 'USD'."),
    ("nothing to pay", {"amount": "0"}, 422, "amount", "The amount must be more than zero."),
    ("too many decimals", {"amount": "1.005"}, 422, "amount",
     "EUR amounts have at most 2 decimal places."),
    ("no time zone", {"paidAt": "2026-12-01T10:30:00"}, 422, "paidAt",
     "Give the moment it was paid with its time zone (ISO 8601)."),
    ("no reference", {"reference": None}, 422, "reference",
     "The reference must be a text (the payment's reference)."),
    ("nobody named", {"customerId": None}, 422, "customerId",
     "Name the customer or the work order the payment is for."),
]  # fmt: skip


@pytest.mark.parametrize(("case", "change", "status", "field", "message"), REFUSALS)
async def test_content_that_does_not_do_is_refused_in_words_and_writes_nothing(
    api: Client,
    shop: Shop,
    sender: Sender,
    case: str,
    change: dict[str, Any],
    status: int,
    field: str | None,
    message: str,
) -> None:
    before = await table_snapshot(shop.engine)
    response = await sender.send(paid(shop, **change), f"msg_{case}")
    assert response.status_code == status
    [error] = response.json()["errors"]
    assert (error["extensions"]["field"], error["message"]) == (field, message)
    after = await table_snapshot(shop.engine)
    changed = {t for t in before if before[t] != after[t]}
    assert changed == {"payment_inbox_requests"}, "only the request's record is written"
    inbox = (await api.as_(shop.tokens["ada"])(INBOXES))["paymentInboxes"][0]
    assert inbox["requests"][0] == {
        "status": status,
        "error": message,
        "messageId": f"msg_{case}",
        "entry": None,
    }


async def test_a_forged_a_stale_or_a_garbled_notification_is_refused(
    api: Client, shop: Shop, sender: Sender
) -> None:
    before = await table_snapshot(shop.engine)
    forged = await sender.send(paid(shop), "msg_f", secret="whsec_" + "QUFB" * 8)
    assert forged.status_code == 401
    assert forged.json()["errors"][0]["message"] == (
        "The notification is refused: No matching signature found."
    )
    stale = await sender.send(paid(shop), "msg_s", at=datetime.now(UTC) - timedelta(minutes=6))
    assert stale.status_code == 401
    assert stale.json()["errors"][0]["message"] == (
        "The notification is refused: Message timestamp too old."
    )
    garbled = await sender.send("{not json", "msg_g")
    assert (garbled.status_code, garbled.json()["errors"][0]["message"]) == (
        400,
        "The body is not JSON.",
    )
    unsigned = await sender.http.post(sender.url, json=paid(shop))
    assert unsigned.status_code == 401
    after = await table_snapshot(shop.engine)
    assert {t for t in before if before[t] != after[t]} == {"payment_inbox_requests"}
    # Only the request that proved the secret is kept: the others anyone could have sent.
    inbox = (await api.as_(shop.tokens["ada"])(INBOXES))["paymentInboxes"][0]
    assert [r["status"] for r in inbox["requests"]] == [400]


async def test_twenty_identical_notifications_at_once_post_one_payment(
    api: Client, shop: Shop, sender: Sender
) -> None:
    answers = await asyncio.gather(*(sender.send(paid(shop), "msg_race") for _ in range(20)))
    assert [a.status_code for a in answers] == [200] * 20
    assert sum(a.json()["changed"] for a in answers) == 1
    assert len({a.json()["entryId"] for a in answers}) == 1
    assert len((await ledger(api, shop))["ledger"]["edges"]) == 1


async def test_a_signature_header_that_is_not_one_is_refused_as_unsigned(
    shop: Shop, sender: Sender
) -> None:
    body = json.dumps(paid(shop))
    headers = {
        "webhook-id": "msg_bad",
        "webhook-timestamp": str(int(datetime.now(UTC).timestamp())),
        "webhook-signature": "not-a-signature",
    }
    answer = await sender.http.post(sender.url, content=body.encode(), headers=headers)
    assert answer.status_code == 401
    assert answer.json()["errors"][0]["message"] == (
        "The notification is refused: Invalid signature."
    )


async def test_a_webhook_id_posted_with_other_content_is_a_duplicate(
    api: Client, shop: Shop, sender: Sender
) -> None:
    assert (await sender.send(paid(shop), "msg_d")).status_code == 200
    other = await sender.send(paid(shop, amount="99.00"), "msg_d")
    assert other.status_code == 409
    assert other.json()["errors"][0]["extensions"]["code"] == "DUPLICATE"
    assert len((await ledger(api, shop))["ledger"]["edges"]) == 1


async def test_only_admins_make_inboxes_and_names_are_unique(
    api: Client, shop: Shop, sender: Sender
) -> None:
    for key in ("abe", "sam"):
        refused = await api.as_(shop.tokens[key]).raw(
            CREATE, {"i": {"name": "other", "currency": "EUR"}}
        )
        assert [e["extensions"]["code"] for e in refused["errors"]] == ["FORBIDDEN"]
    twice = await api.as_(shop.tokens["ada"])(CREATE, {"i": {"name": "bank", "currency": "EUR"}})
    assert [(e["code"], e["field"]) for e in twice["createPaymentInbox"]["userErrors"]] == [
        ("DUPLICATE", "name")
    ]
    odd = await api.as_(shop.tokens["ada"])(CREATE, {"i": {"name": "b2", "currency": "ABC"}})
    assert [e["field"] for e in odd["createPaymentInbox"]["userErrors"]] == ["currency"]


ROTATE = """mutation($i: RotatePaymentInboxSecretInput!) { rotatePaymentInboxSecret(input: $i) {
  secret inbox { previousSecretValidUntil } userErrors { code field message } } }"""
UPDATE = """mutation($i: UpdatePaymentInboxInput!) { updatePaymentInbox(input: $i) {
  inbox { enabled } userErrors { code field } } }"""
DELETE = """mutation($i: DeletePaymentInboxInput!) { deletePaymentInbox(input: $i) {
  deletedInboxId userErrors { code field } } }"""
POST_ENTRY = """mutation($i: PostLedgerEntryInput!) { postLedgerEntry(input: $i) {
  changed entry { id } userErrors { code field message } } }"""
INBOX_ID = """{ paymentInboxes { id name enabled } }"""


async def inbox_id(api: Client, shop: Shop) -> str:
    [inbox] = (await api.as_(shop.tokens["ada"])(INBOX_ID))["paymentInboxes"]
    return str(inbox["id"])


def unproven(sender: Sender, shop: Shop) -> list[dict[str, str]]:
    """Headers of requests that do not prove a secret, one of each way to fail."""
    body = json.dumps(paid(shop))
    now = datetime.now(UTC)
    stale = now - timedelta(minutes=6)
    forged = Webhook("whsec_" + "QUFB" * 8)
    return [
        {},
        {"webhook-id": "m", "webhook-timestamp": str(int(now.timestamp())),
         "webhook-signature": forged.sign("m", now, body)},
        {"webhook-id": "m", "webhook-timestamp": str(int(stale.timestamp())),
         "webhook-signature": Webhook(sender.secret).sign("m", stale, body)},
        {"webhook-id": "m", "webhook-timestamp": str(int(now.timestamp())),
         "webhook-signature": "not-a-signature"},
    ]  # fmt: skip


async def test_a_name_no_inbox_has_answers_as_a_wrong_signature_does(
    api: Client, shop: Shop, sender: Sender
) -> None:
    """Nobody without the secret learns which names exist: an unknown name, a turned-off
    inbox and a real one answer alike to every request that does not prove the secret."""
    body = json.dumps(paid(shop)).encode()
    await api.as_(shop.tokens["ada"])(
        CREATE, {"i": {"name": "closed", "currency": "EUR"}}
    )  # fmt: skip
    [closed] = [i["id"] for i in (await api.as_(shop.tokens["ada"])(INBOX_ID))["paymentInboxes"]
                if i["name"] == "closed"]  # fmt: skip
    await api.as_(shop.tokens["ada"])(UPDATE, {"i": {"inboxId": closed, "enabled": False}})
    for headers in unproven(sender, shop):
        answers = []
        for name in ("bank", "nope", "closed"):
            url = sender.url.replace("/bank", f"/{name}")
            answer = await sender.http.post(url, content=body, headers=headers)
            answers.append((answer.status_code, answer.json()))
        assert answers[0][0] == 401
        assert answers[1:] == [answers[0]] * 2, headers


async def test_requests_that_prove_no_secret_are_counted_not_kept(
    server: str, shop: Shop, sender: Sender
) -> None:
    metrics = server.removesuffix("/graphql") + "/metrics"

    async def refused() -> float:
        exposition = (await sender.http.get(metrics)).text
        return (
            metric(exposition, "pressroom_payment_inbox_refusals_total", refusal="unverified")
            or 0.0
        )

    counted = await refused()
    before = await table_snapshot(shop.engine)
    for _ in range(20):
        for headers in unproven(sender, shop):
            answer = await sender.http.post(sender.url, json=paid(shop), headers=headers)
            assert answer.status_code == 401
    assert await table_snapshot(shop.engine) == before, "nothing written"
    assert await refused() == counted + 80


async def test_an_address_that_fails_to_prove_a_secret_waits_whatever_it_sends(
    database_url: str, shop: Shop, sender: Sender
) -> None:
    path = "/hooks/payments/bank"
    async with (
        app_from(database_url, "203.0.113.7", inbox_failures_per_address="3/minute") as flood,
        app_from(database_url, "198.51.100.1", inbox_failures_per_address="3/minute") as bank,
    ):
        flooder = Sender(flood, path, sender.secret)
        # Unknown names count too: no name to guess is free.
        answers = [(await flood.post(path.replace("bank", f"guess{n}"), json={})).status_code
                   for n in range(3)]  # fmt: skip
        refused = await flood.post(path, json=paid(shop))
        # Past its limit an address is refused even with the secret, unread.
        signed = await flooder.send(paid(shop), "msg_flood")
        # The provider, at its own address, is not held up by the flood.
        provider = await Sender(bank, path, sender.secret).send(paid(shop), "msg_provider")
    assert answers == [401] * 3
    assert (refused.status_code, signed.status_code) == (429, 429)
    assert 1 <= int(refused.headers["retry-after"]) <= 61
    assert refused.json()["errors"][0]["extensions"]["code"] == "RATE_LIMITED"
    assert provider.status_code == 200


async def test_an_address_has_a_ceiling_on_all_it_sends(
    database_url: str, shop: Shop, sender: Sender
) -> None:
    async with app_from(database_url, "203.0.113.9", inbox_requests_per_address="5/minute") as http:
        provider = Sender(http, "/hooks/payments/bank", sender.secret)
        answers = [(await provider.send(paid(shop), f"msg_{n}")).status_code for n in range(6)]
    assert answers == [200] * 5 + [429]


async def test_an_inbox_keeps_its_requests_for_the_retention(
    database_url: str, shop: Shop, sender: Sender
) -> None:
    async with app_from(database_url, "198.51.100.2", inbox_request_retention_days=2) as http:
        provider = Sender(http, "/hooks/payments/bank", sender.secret)
        for n in range(3):
            assert (await provider.send(paid(shop), f"msg_old_{n}")).status_code == 200
        async with shop.engine.begin() as conn:
            await conn.execute(text(
                "UPDATE payment_inbox_requests SET received_at = now() - interval '3 days'"
            ))  # fmt: skip
        assert (await provider.send(paid(shop), "msg_new")).status_code == 200
    async with shop.engine.connect() as conn:
        kept = (await conn.execute(text("SELECT message_id FROM payment_inbox_requests"))).all()
    assert [row.message_id for row in kept] == ["msg_new"]


async def test_a_persons_key_cannot_take_a_notifications_key(
    api: Client, shop: Shop, sender: Sender
) -> None:
    """An Accounts member posting under the key the provider's msg_100 will take would make
    that payment a DUPLICATE forever: such keys are refused, and the payment posts."""
    for key in ("inbox:bank:msg_100", "quote-charge:1:1"):
        squat = {"customerId": gid("Customer", shop.customer_id), "kind": "PAYMENT",
                 "amount": "1.00", "idempotencyKey": key}  # fmt: skip
        answer = (await api.as_(shop.tokens["abe"])(POST_ENTRY, {"i": squat}))["postLedgerEntry"]
        assert answer["entry"] is None
        [error] = answer["userErrors"]
        assert (error["code"], error["field"]) == ("INVALID_INPUT", "idempotencyKey")
        assert error["message"] == (
            f"An idempotency key may not begin with '{key[: key.index(':') + 1]}': such keys "
            "are the server's own."
        )
    posted = await sender.send(paid(shop), "msg_100")
    assert (posted.status_code, posted.json()["changed"]) == (200, True)


async def test_a_rotated_secret_overlaps_with_the_new_one_then_stops(
    api: Client, shop: Shop, sender: Sender
) -> None:
    ada = api.as_(shop.tokens["ada"])
    inbox = await inbox_id(api, shop)
    old = sender.secret
    rotated = (await ada(ROTATE, {"i": {"inboxId": inbox}}))["rotatePaymentInboxSecret"]
    new = rotated["secret"]
    assert new.startswith("whsec_") and new != old
    until = datetime.fromisoformat(rotated["inbox"]["previousSecretValidUntil"])
    assert timedelta(hours=23) < until - datetime.now(UTC) <= timedelta(hours=24)
    assert (await sender.send(paid(shop), "msg_old", secret=old)).status_code == 200
    assert (await sender.send(paid(shop), "msg_new", secret=new)).status_code == 200
    # The overlap over: only the new one.
    async with shop.engine.begin() as conn:
        await conn.execute(
            text("UPDATE payment_inboxes SET previous_secret_until = now() - interval '1 second'")
        )
    assert (await sender.send(paid(shop), "msg_late", secret=old)).status_code == 401
    # Rotated with no overlap, the secret before stops at once.
    again = await ada(ROTATE, {"i": {"inboxId": inbox, "overlapHours": 0}})
    newest = again["rotatePaymentInboxSecret"]["secret"]
    assert again["rotatePaymentInboxSecret"]["inbox"]["previousSecretValidUntil"] is None
    assert (await sender.send(paid(shop), "msg_n1", secret=new)).status_code == 401
    assert (await sender.send(paid(shop), "msg_n2", secret=newest)).status_code == 200
    odd = await ada(ROTATE, {"i": {"inboxId": inbox, "overlapHours": 10_000}})
    [error] = odd["rotatePaymentInboxSecret"]["userErrors"]
    assert (error["code"], error["field"]) == ("INVALID_INPUT", "overlapHours")


async def test_an_inbox_is_turned_off_on_again_and_deleted(
    api: Client, shop: Shop, sender: Sender
) -> None:
    ada = api.as_(shop.tokens["ada"])
    inbox = await inbox_id(api, shop)
    assert (await sender.send(paid(shop), "msg_1")).status_code == 200
    off = await ada(UPDATE, {"i": {"inboxId": inbox, "enabled": False}})
    assert off["updatePaymentInbox"]["inbox"] == {"enabled": False}
    assert (await sender.send(paid(shop), "msg_2")).status_code == 401
    await ada(UPDATE, {"i": {"inboxId": inbox, "enabled": True}})
    assert (await sender.send(paid(shop), "msg_2")).status_code == 200
    gone = await ada(DELETE, {"i": {"inboxId": inbox}})
    assert gone["deletePaymentInbox"] == {"deletedInboxId": inbox, "userErrors": []}
    assert (await ada(INBOX_ID))["paymentInboxes"] == []
    assert (await sender.send(paid(shop), "msg_3")).status_code == 401
    # What it posted stays in the ledger.
    assert len((await ledger(api, shop))["ledger"]["edges"]) == 2
    again = await ada(DELETE, {"i": {"inboxId": inbox}})
    assert again["deletePaymentInbox"]["userErrors"] == [{"code": "NOT_FOUND", "field": "inboxId"}]


async def test_only_admins_rotate_turn_off_and_delete_inboxes(
    api: Client, shop: Shop, sender: Sender
) -> None:
    inbox = await inbox_id(api, shop)
    for query, i in ((ROTATE, {"inboxId": inbox}), (UPDATE, {"inboxId": inbox, "enabled": False}),
                     (DELETE, {"inboxId": inbox})):  # fmt: skip
        for key in ("abe", "sam"):
            refused = await api.as_(shop.tokens[key]).raw(query, {"i": i})
            assert [e["extensions"]["code"] for e in refused["errors"]] == ["FORBIDDEN"]
    assert (await sender.send(paid(shop), "msg_1")).status_code == 200
