"""The payments door: a provider's notification, signed per Standard Webhooks, becomes one
PAYMENT ledger entry however often it is redelivered; a bad signature, a stale timestamp,
an unknown customer or order, a wrong currency and the like are refused in words with a
4xx, write nothing to the shop's data, and show to admins as the inbox's requests."""

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from standardwebhooks.webhooks import Webhook

from tests.support import Client, Shop, gid, table_snapshot

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
    ("nothing to pay", {"amount": "0"}, 422, "amount", "amount must be more than zero."),
    ("too many decimals", {"amount": "1.005"}, 422, "amount",
     "EUR amounts have at most 2 decimal places."),
    ("no time zone", {"paidAt": "2026-12-01T10:30:00"}, 422, "paidAt",
     "paidAt must be a moment with its time zone (ISO 8601)."),
    ("no reference", {"reference": None}, 422, "reference",
     "reference must be a text (the payment's reference)."),
    ("nobody named", {"customerId": None}, 422, "customerId",
     "Name the customer (customerId) or the work order (workOrderId)."),
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
    nowhere = await sender.http.post(sender.url.replace("/bank", "/nope"), json=paid(shop))
    assert (nowhere.status_code, nowhere.json()["errors"][0]["message"]) == (
        404,
        "There is no payment inbox named 'nope'.",
    )
    after = await table_snapshot(shop.engine)
    assert {t for t in before if before[t] != after[t]} == {"payment_inbox_requests"}
    inbox = (await api.as_(shop.tokens["ada"])(INBOXES))["paymentInboxes"][0]
    assert [r["status"] for r in inbox["requests"]] == [401, 400, 401, 401]


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
