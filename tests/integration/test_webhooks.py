"""Webhooks against a real receiver on loopback: every event of the webhook's kinds arrives,
once after deduplication by webhook-id, in commit order, signed so that the
`standardwebhooks` library verifies it; failures are retried with backoff, the last one
leaves the delivery dead and the webhook moves on; 410 stops the webhook, and so do days
of failing without a break (the retention then moves on); admins see and redeliver."""

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from api.ids import decode_text
from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop
from tests.support.subscriptions import START
from tests.support.webhooks import HOLD, Receiver, settled
from workers.retention import PruneLoop
from workers.webhooks import WebhookRelay

CREATE = """mutation($i: CreateWebhookInput!) { createWebhook(input: $i) {
  secret webhook { id url enabled eventKinds departments { code } }
  userErrors { code field message } } }"""
UPDATE = """mutation($i: UpdateWebhookInput!) { updateWebhook(input: $i) {
  webhook { id enabled disabledReason url description departments { code } eventKinds }
  userErrors { code field message } } }"""
ROTATE = """mutation($i: RotateWebhookSecretInput!) { rotateWebhookSecret(input: $i) {
  secret userErrors { code field } } }"""
DELETE = """mutation($i: DeleteWebhookInput!) { deleteWebhook(input: $i) {
  deletedWebhookId userErrors { code field } } }"""
REDELIVER = """mutation($i: RedeliverWebhookDeliveryInput!) { redeliverWebhookDelivery(input: $i) {
  delivery { id status attempts } userErrors { code field } } }"""
HOOKS = """{ webhooks { id enabled disabledReason failingSince
  backlog { pending lagSeconds } } }"""
DELIVERIES = """query($w: ID!, $s: WebhookDeliveryStatus) {
  webhookDeliveries(webhookId: $w, status: $s, first: 100) { edges { node {
    id status eventKind messageId attempts responseStatus error durationMs nextAttemptAt
    deliveredAt occurredAt } } } }"""
POST = """mutation($i: PostLedgerEntryInput!) { postLedgerEntry(input: $i) {
  userErrors { code } } }"""
FINISH = """mutation($i: FinishTaskInput!) { finishTask(input: $i) { userErrors { code } } }"""


async def create(api: Client, shop: Shop, url: str, kinds: list[str], **more: Any) -> Any:
    data = await api.as_(shop.tokens["ada"])(
        CREATE, {"i": {"url": url, "eventKinds": kinds, **more}}
    )
    return data["createWebhook"]


async def made(api: Client, shop: Shop, url: str, kinds: list[str], **more: Any) -> tuple[str, str]:
    payload = await create(api, shop, url, kinds, **more)
    assert payload["userErrors"] == []
    return payload["webhook"]["id"], payload["secret"]


async def logged(
    engine: AsyncEngine, kinds: list[str], departments: list[int] | None = None
) -> list[str]:
    """The webhook-ids the log's events of these kinds must arrive as, in commit order."""
    async with engine.connect() as conn:
        rows = await conn.execute(
            text(
                "SELECT id FROM events WHERE type = ANY(:kinds)"
                " AND (CAST(:deps AS bigint[]) IS NULL OR department_id IS NULL"
                " OR department_id = ANY(:deps)) ORDER BY xid, id"
            ),
            {"kinds": kinds, "deps": departments},
        )
        return [f"evt_{r.id}" for r in rows]


async def deliveries(api: Client, shop: Shop, webhook: str, status: str | None = None) -> list[Any]:
    data = await api.as_(shop.tokens["ada"])(DELIVERIES, {"w": webhook, "s": status})
    return [e["node"] for e in data["webhookDeliveries"]["edges"]]


async def work(api: Client, shop: Shop) -> None:
    """Three orders, a task started and finished, a payment: events of several kinds."""
    orders = [await shop.order(["print"]) for _ in range(3)]
    task = (await task_ids(shop.engine, orders[0]))["print"]
    pat = api.as_(shop.tokens["pat"])
    await pat(START, {"i": {"taskId": gid("DepartmentTask", task)}})
    await pat(FINISH, {"i": {"taskId": gid("DepartmentTask", task)}})
    payment = {
        "customerId": gid("Customer", shop.customer_id),
        "kind": "PAYMENT",
        "amount": "25.00",
        "idempotencyKey": "wire-1",
    }
    await api.as_(shop.tokens["abe"])(POST, {"i": payment})


KINDS = ["WORK_ORDER_CREATED", "TASK_CHANGED", "LEDGER_ENTRY_POSTED"]


async def test_a_receiver_that_fails_then_recovers_gets_each_event_once_in_order_signed(
    api: Client, shop: Shop, receiver: Receiver, relay: WebhookRelay
) -> None:
    receiver.plan = [500, 503, 500, HOLD]
    webhook, secret = await made(api, shop, receiver.url, KINDS)
    await work(api, shop)
    expected = await logged(shop.engine, KINDS)
    assert len(expected) == 6  # 3 orders, started and finished, a payment
    arrived = await receiver.wait_for(len(expected))
    assert [r.id for r in arrived] == expected
    for received in receiver.requests:
        verified = Webhook(secret).verify(received.body, received.headers)
        assert verified == received.json()
    bodies = [r.json() for r in arrived]
    assert [b["type"] for b in bodies] == [
        "WORK_ORDER_CREATED",
        "WORK_ORDER_CREATED",
        "WORK_ORDER_CREATED",
        "TASK_CHANGED",
        "TASK_CHANGED",
        "LEDGER_ENTRY_POSTED",
    ]
    assert {b["version"] for b in bodies} == {1}
    first, started, finished, paid = bodies[0], bodies[3], bodies[4], bodies[5]
    assert first["data"]["kind"] == "WORK_ORDER_CREATED"
    assert first["data"]["workOrder"]["customer"]["name"] == "ACME"
    assert first["data"]["workOrder"]["details"] == {"product": "Flyers"}
    assert started["data"]["task"]["status"] == "STARTED"
    assert started["data"]["task"]["pickedUpBy"]["name"] == "Pat"
    assert finished["data"]["task"]["status"] == "COMPLETED"
    assert paid["data"]["entry"]["amount"] == {"amount": "-25.00", "currency": "EUR"}
    # The first event took five attempts: three errors, one unanswered, then 200.
    assert [r.id for r in receiver.requests[:5]] == [expected[0]] * 5

    async def all_delivered() -> bool:
        found = await deliveries(api, shop, webhook)
        return len(found) == 6 and all(d["status"] == "DELIVERED" for d in found)

    await settled(relay, all_delivered)
    found = await deliveries(api, shop, webhook)
    oldest = found[-1]
    assert oldest["messageId"] == expected[0]
    assert (oldest["attempts"], oldest["responseStatus"], oldest["error"]) == (5, 200, None)
    assert oldest["nextAttemptAt"] is None and oldest["deliveredAt"] is not None
    assert [d["attempts"] for d in found[:-1]] == [1] * 5
    # A page at a time, newest first: the pages together are the whole list.
    page = """query($w: ID!, $after: String) { webhookDeliveries(webhookId: $w, first: 4,
      after: $after) { pageInfo { hasNextPage endCursor } edges { node { id } } } }"""
    ada = api.as_(shop.tokens["ada"])
    first_page = (await ada(page, {"w": webhook, "after": None}))["webhookDeliveries"]
    rest = await ada(page, {"w": webhook, "after": first_page["pageInfo"]["endCursor"]})
    ids = [e["node"]["id"] for e in first_page["edges"] + rest["webhookDeliveries"]["edges"]]
    assert first_page["pageInfo"]["hasNextPage"] is True
    assert ids == [d["id"] for d in found]


async def test_a_forged_or_rotated_away_signature_does_not_verify(
    api: Client, shop: Shop, receiver: Receiver
) -> None:
    webhook, secret = await made(api, shop, receiver.url, ["WORK_ORDER_CREATED"])
    await shop.order(["print"])
    [received] = await receiver.wait_for(1)
    rotated = await api.as_(shop.tokens["ada"])(ROTATE, {"i": {"webhookId": webhook}})
    new_secret = rotated["rotateWebhookSecret"]["secret"]
    assert new_secret.startswith("whsec_") and new_secret != secret
    for wrong in (new_secret, "whsec_" + "A" * 32):
        with pytest.raises(WebhookVerificationError):
            Webhook(wrong).verify(received.body, received.headers)
    await shop.order(["print"])
    later = (await receiver.wait_for(2))[1]
    Webhook(new_secret).verify(later.body, later.headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(later.body, later.headers)


async def test_after_the_last_retry_a_delivery_dies_the_webhook_moves_on_and_it_is_redelivered(
    api: Client, shop: Shop, receiver: Receiver, relay: WebhookRelay
) -> None:
    receiver.plan = [500] * 6  # every attempt of the first event
    webhook, secret = await made(api, shop, receiver.url, ["WORK_ORDER_CREATED"])
    await shop.order(["print"])
    await shop.order(["print"])
    first, second = await logged(shop.engine, ["WORK_ORDER_CREATED"])
    await receiver.wait_for(2)
    assert [r.id for r in receiver.requests] == [first] * 6 + [second]

    async def dead() -> bool:
        return [d["status"] for d in await deliveries(api, shop, webhook)] == ["DELIVERED", "DEAD"]

    await settled(relay, dead)
    [gone] = await deliveries(api, shop, webhook, "DEAD")
    assert (gone["messageId"], gone["attempts"], gone["responseStatus"]) == (first, 6, 500)
    assert gone["error"] == "The receiver answered 500 Internal Server Error"
    again = await api.as_(shop.tokens["ada"])(REDELIVER, {"i": {"deliveryId": gone["id"]}})
    assert again["redeliverWebhookDelivery"]["delivery"]["status"] == "PENDING"

    async def redelivered() -> bool:
        return len(receiver.requests) == 8

    await settled(relay, redelivered)
    resent = receiver.requests[-1]
    assert resent.id == first
    assert resent.body == receiver.requests[0].body  # the same body, signed again
    Webhook(secret).verify(resent.body, resent.headers)


async def test_410_gone_stops_the_webhook_and_says_why(
    api: Client, shop: Shop, receiver: Receiver, relay: WebhookRelay
) -> None:
    receiver.plan = [410]
    webhook, _ = await made(api, shop, receiver.url, ["WORK_ORDER_CREATED"])
    await shop.order(["print"])
    await receiver.wait_for(1)
    ada = api.as_(shop.tokens["ada"])

    async def stopped() -> bool:
        [hook] = (await ada(HOOKS))["webhooks"]
        return hook["enabled"] is False

    await settled(relay, stopped)
    [hook] = (await ada(HOOKS))["webhooks"]
    assert hook["disabledReason"] == "The receiver answered 410 Gone: it wants no more events."
    [dead] = await deliveries(api, shop, webhook)
    assert (dead["status"], dead["attempts"], dead["responseStatus"]) == ("DEAD", 1, 410)
    # Turned back on, it sends from where it stopped: an order made while it was off too.
    await shop.order(["print"])
    on = await ada(UPDATE, {"i": {"webhookId": webhook, "enabled": True}})
    assert on["updateWebhook"]["webhook"]["disabledReason"] is None
    await receiver.wait_for(2)
    assert [r.id for r in receiver.requests] == await logged(shop.engine, ["WORK_ORDER_CREATED"])


async def test_days_of_failing_stop_the_webhook_and_the_retention_moves_on(
    api: Client, shop: Shop, receiver: Receiver, relay: WebhookRelay, running_app: Any
) -> None:
    receiver.plan = [500] * 100
    webhook, _ = await made(api, shop, receiver.url, ["WORK_ORDER_CREATED"])
    long_ago = datetime.now(UTC) - timedelta(days=100)
    await shop.order(["print"], at=long_ago)
    ada = api.as_(shop.tokens["ada"])

    async def hook() -> Any:
        [found] = (await ada(HOOKS))["webhooks"]
        return found

    async def failing() -> bool:
        return (await hook())["failingSince"] is not None

    await settled(relay, failing)
    # Three days pass, on the database's clock: every attempt meanwhile failed.
    async with shop.engine.begin() as conn:
        await conn.execute(text("UPDATE webhooks SET failing_since = now() - interval '3 days'"))
    await shop.order(["print"], at=long_ago)

    async def stopped() -> bool:
        return (await hook())["enabled"] is False

    await settled(relay, stopped)
    found = await hook()
    assert found["disabledReason"].startswith("Every attempt failed for 3 days (since ")
    assert "so that the event log's retention moves on" in found["disabledReason"]
    async with shop.engine.connect() as conn:
        stops = text("SELECT payload FROM events WHERE type = 'WEBHOOK_DISABLED'")
        said = (await conn.execute(stops)).all()
    assert [p.payload["webhookId"] for p in said] == [decode_text(webhook, "Webhook")]
    assert said[0].payload["reason"] == found["disabledReason"]
    # Its pending delivery no longer holds the log: the old orders' events go.
    pruner: PruneLoop = running_app[1].state.pruner
    await pruner.idle.wait()
    assert await pruner.prune_all()
    pending = await deliveries(api, shop, webhook, "PENDING")
    assert pending == []
    # Turned on again, it counts its days of failing anew.
    on = await ada(UPDATE, {"i": {"webhookId": webhook, "enabled": True}})
    assert on["updateWebhook"]["webhook"]["enabled"] is True
    assert (await hook())["failingSince"] is None


async def test_only_its_kinds_and_departments_are_sent(
    api: Client, shop: Shop, receiver: Receiver
) -> None:
    kinds = ["TASK_CHANGED", "WORK_ORDER_CREATED"]
    await made(api, shop, receiver.url, kinds, departmentCodes=["finishing"])
    order = await shop.order(["print", "finishing"])
    tasks = await task_ids(shop.engine, order)
    await api.as_(shop.tokens["pat"])(
        START, {"i": {"taskId": gid("DepartmentTask", tasks["print"])}}
    )
    await api.as_(shop.tokens["fin"])(
        START, {"i": {"taskId": gid("DepartmentTask", tasks["finishing"])}}
    )
    expected = await logged(shop.engine, kinds, [shop.departments["finishing"]])
    arrived = await receiver.wait_for(len(expected))
    assert [r.id for r in arrived] == expected
    assert [r.json()["type"] for r in arrived] == ["WORK_ORDER_CREATED", "TASK_CHANGED"]
    assert arrived[1].json()["data"]["task"]["department"]["code"] == "finishing"


@pytest.mark.parametrize(
    ("given", "field", "message"),
    [
        (
            {"url": "ftp://example.com/x"},
            "url",
            "Give a web address such as https://example.com/hooks.",
        ),
        (
            {"url": "https://user:pw@example.com/"},
            "url",
            "Take the user name and password out of the web address.",
        ),
        ({"eventKinds": []}, "eventKinds", "Choose at least one kind of event to send."),
        (
            {"eventKinds": ["TOKEN_REVOKED"]},
            "eventKinds",
            "TOKEN_REVOKED cannot be sent to a webhook: they are about sign-ins, not the "
            "shop's work.",
        ),
        ({"departmentCodes": ["nope"]}, "departmentCodes", "Unknown department code(s): nope."),
        (
            {"description": "x" * 501},
            "description",
            "Shorten the description to at most 500 characters.",
        ),
    ],
)
async def test_a_bad_webhook_is_refused_in_words_and_nothing_is_made(
    api: Client, shop: Shop, given: dict[str, Any], field: str, message: str
) -> None:
    fields = {"url": "http://127.0.0.1:9/hooks", "eventKinds": ["WORK_ORDER_CREATED"]} | given
    url, kinds = fields.pop("url"), fields.pop("eventKinds")
    payload = await create(api, shop, url, kinds, **fields)
    assert payload["webhook"] is None and payload["secret"] is None
    assert [(e["field"], e["message"]) for e in payload["userErrors"]] == [(field, message)]
    assert (await api.as_(shop.tokens["ada"])(HOOKS))["webhooks"] == []


async def test_admins_change_and_delete_webhooks(
    api: Client, shop: Shop, receiver: Receiver
) -> None:
    ada = api.as_(shop.tokens["ada"])
    webhook, _ = await made(api, shop, receiver.url, ["WORK_ORDER_CREATED"], description="ERP")
    changed = await ada(
        UPDATE,
        {
            "i": {
                "webhookId": webhook,
                "departmentCodes": ["print"],
                "description": "",
                "eventKinds": ["TASK_CHANGED"],
            }
        },
    )
    hook = changed["updateWebhook"]["webhook"]
    assert (hook["description"], hook["departments"], hook["eventKinds"]) == (
        None,
        [{"code": "print"}],
        ["TASK_CHANGED"],
    )
    everyone = await ada(UPDATE, {"i": {"webhookId": webhook, "departmentCodes": None}})
    assert everyone["updateWebhook"]["webhook"]["departments"] is None
    off = await ada(UPDATE, {"i": {"webhookId": webhook, "enabled": False}})
    assert off["updateWebhook"]["webhook"]["disabledReason"] == "Turned off by an admin."
    deleted = await ada(DELETE, {"i": {"webhookId": webhook}})
    assert deleted["deleteWebhook"]["deletedWebhookId"] == webhook
    again = await ada(DELETE, {"i": {"webhookId": webhook}})
    assert [e["code"] for e in again["deleteWebhook"]["userErrors"]] == ["NOT_FOUND"]
    assert (await ada(HOOKS))["webhooks"] == []


async def test_only_admins_manage_webhooks(api: Client, shop: Shop, receiver: Receiver) -> None:
    for key in ("sam", "abe", "pat"):
        refused = await api.as_(shop.tokens[key]).raw(
            CREATE, {"i": {"url": receiver.url, "eventKinds": ["WORK_ORDER_CREATED"]}}
        )
        assert [e["extensions"]["code"] for e in refused["errors"]] == ["FORBIDDEN"]
        listed = await api.as_(shop.tokens[key]).raw(HOOKS)
        assert [e["extensions"]["code"] for e in listed["errors"]] == ["FORBIDDEN"]
