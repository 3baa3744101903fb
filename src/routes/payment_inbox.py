"""`POST /hooks/payments/{name}`: a payment provider's notifications, signed per Standard
Webhooks with the inbox's secret, become PAYMENT ledger entries (domain/payments.py).

Answers: 200 `{"entryId", "changed"}` (changed false: this webhook-id was posted before,
with the same content); 401 when the signature does not verify or the timestamp is more
than five minutes off, and the same for a name no inbox (or a turned-off one) has, so
that no one learns which names exist; 429 past the address's limits (routes/inbox_policy.py);
404 for an unknown customer or order; 400 for a body that is not JSON; 422 for content
that does not do (naming the field); 409 for a webhook-id already posted with other
content. A refusal writes nothing to the ledger. A request that proved the secret is
kept with its answer, for admins to see; one that did not is only counted.
"""

import json
from typing import Any

from standardwebhooks.webhooks import Webhook, WebhookVerificationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from api.ids import decode_text, encode_id
from api.services import Services
from db import ledger, payment_inboxes, reads
from db.engine import reading, unit_of_work
from db.ledger import NewEntry
from db.rows import PaymentInboxRow
from domain import ledger as rules
from domain import payments
from domain import webhooks as signing
from domain.enums import LedgerEntryKind
from domain.errors import DomainError, ErrorCode
from domain.ledger import EntryContent
from routes.inbox_policy import InboxPolicy

PATH = "/hooks/payments/{name}"
STATUS = {ErrorCode.NOT_FOUND: 404, ErrorCode.DUPLICATE: 409}
MAX_MESSAGE_ID = 200


class Refused(Exception):
    def __init__(self, status: int, message: str, code: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.code, self.field = status, message, code, field

    @classmethod
    def of(cls, error: DomainError) -> "Refused":
        return cls(STATUS.get(error.code, 422), error.message, error.code.value, error.field)

    def response(self, headers: dict[str, str] | None = None) -> Response:
        body = {"message": self.message, "extensions": {"code": self.code, "field": self.field}}
        return JSONResponse({"errors": [body]}, status_code=self.status, headers=headers)


# What a name no inbox answers to is checked against: nobody holds it, so every request
# to such a name is refused exactly as a wrong signature on a real inbox is.
NOBODYS_SECRET = signing.new_secret()


def _signed(secrets: list[str], body: bytes, headers: dict[str, str]) -> None:
    """Refused unless the signature verifies with one of `secrets` (an inbox's, and the
    one before a rotation while it is still good)."""
    failure: Exception | None = None
    for secret in secrets:
        try:
            Webhook(secret).verify(body, headers, json_parse=False)
            return
        except (WebhookVerificationError, ValueError) as error:
            failure = error
    # ValueError: a signature header that is not one (no comma, not base64).
    why = failure if isinstance(failure, WebhookVerificationError) else "Invalid signature"
    raise Refused(401, f"The notification is refused: {why}.", "UNAUTHENTICATED")


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise Refused(400, "The body is not JSON.", "BAD_REQUEST") from None


def _count(services: Services, refusal: str) -> None:
    services.metrics.inbox_refusals.labels(refusal).inc()


async def _post(
    services: Services, keep_days: int, inbox: PaymentInboxRow, message_id: str, body: Any
) -> tuple[int, bool]:
    """The entry the notice becomes (its id), and whether it is new; in one transaction
    with the request's record."""
    notice = payments.notice(body, inbox.currency)
    customer_id = decode_text(notice.customer_id, "Customer") if notice.customer_id else None
    order_id = decode_text(notice.work_order_id, "WorkOrder") if notice.work_order_id else None
    async with unit_of_work(services.engine) as conn:
        if notice.work_order_id is not None:
            orders = await reads.work_orders(conn, [order_id or 0])
            if not orders:
                raise DomainError(ErrorCode.NOT_FOUND, "No such work order.", "workOrderId")
            if notice.customer_id is None:
                customer_id = orders[0].customer_id
        if customer_id is None:
            raise DomainError(ErrorCode.NOT_FOUND, "No such customer.", "customerId")
        content = EntryContent(
            customer_id=customer_id,
            work_order_id=order_id,
            kind=LedgerEntryKind.PAYMENT,
            amount=rules.signed(LedgerEntryKind.PAYMENT, notice.amount),
            memo=payments.memo(inbox.name, notice),
        )
        key = payments.idempotency_key(inbox.name, message_id)
        posted = await ledger.post_entry(conn, NewEntry(content, key, inbox.created_by))
        await payment_inboxes.record(
            conn,
            inbox.id,
            message_id,
            200,
            None,
            posted.entry.id,
            keep_days=keep_days,
        )
    return posted.entry.id, posted.changed


def routes(services: Services, policy: InboxPolicy) -> list[Route]:

    async def receive(request: Request) -> Response:
        address = request.client.host if request.client else ""
        refusal = await policy.addresses.admit(address)
        if refusal is not None:
            _count(services, "rate_limited")
            return Refused(
                429,
                f"Too many requests; try again in {refusal.retry_after} seconds.",
                "RATE_LIMITED",
            ).response({"retry-after": str(refusal.retry_after)})
        async with reading(services.engine) as conn:
            inbox = await payment_inboxes.door(conn, request.path_params["name"])
        secrets = [NOBODYS_SECRET] if inbox is None else [inbox.secret]
        if inbox is not None and inbox.previous_secret is not None:
            secrets.append(inbox.previous_secret)
        body = await request.body()
        try:
            _signed(secrets, body, dict(request.headers))
        except Refused as unverified:
            # Anyone could have sent it: counted against its address, not kept.
            await policy.addresses.failed(address)
            _count(services, "unverified")
            return unverified.response()
        assert inbox is not None  # nobody holds NOBODYS_SECRET
        # Kept with the request's record: as much of it as anyone needs to recognise it.
        message_id = request.headers["webhook-id"][:MAX_MESSAGE_ID]
        try:
            entry_id, changed = await _post(
                services, policy.keep_days, inbox, message_id, _json(body)
            )
        except DomainError as error:
            refused = Refused.of(error)
        except Refused as error:
            refused = error
        else:
            if services.feed is not None:
                services.feed.poke()
            answer = {"entryId": encode_id("LedgerEntry", entry_id), "changed": changed}
            return JSONResponse(answer)
        async with unit_of_work(services.engine) as conn:
            await payment_inboxes.record(
                conn,
                inbox.id,
                message_id,
                refused.status,
                refused.message,
                None,
                keep_days=policy.keep_days,
            )
        return refused.response()

    return [Route(PATH, receive, methods=["POST"])]
