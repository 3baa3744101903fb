"""`POST /hooks/payments/{name}`: a payment provider's notifications, signed per Standard
Webhooks with the inbox's secret, become PAYMENT ledger entries (domain/payments.py).

Answers: 200 `{"entryId", "changed"}` (changed false: this webhook-id was posted before,
with the same content); 404 for an unknown inbox, customer or order; 401 when the
signature does not verify or the timestamp is more than five minutes off; 400 for a body
that is not JSON; 422 for content that does not do (naming the field); 409 for a
webhook-id already posted with other content. A refusal writes nothing to the ledger.
Every request to an inbox is kept with its answer, for admins to see.
"""

import json
from typing import Any

from standardwebhooks.webhooks import Webhook, WebhookVerificationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from db import ledger, payment_inboxes, reads
from db.engine import reading, unit_of_work
from db.ledger import NewEntry
from db.rows import PaymentInboxRow
from domain import ledger as rules
from domain import payments
from domain.enums import LedgerEntryKind
from domain.errors import DomainError, ErrorCode
from domain.ledger import EntryContent
from graph.ids import decode_text, encode_id
from graph.services import Services

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

    def response(self) -> Response:
        body = {"message": self.message, "extensions": {"code": self.code, "field": self.field}}
        return JSONResponse({"errors": [body]}, status_code=self.status)


def _verified(inbox: PaymentInboxRow, body: bytes, headers: dict[str, str]) -> Any:
    try:
        Webhook(inbox.secret).verify(body, headers, json_parse=False)
    except (WebhookVerificationError, ValueError) as error:
        # ValueError: a signature header that is not one (no comma, not base64).
        why = error if isinstance(error, WebhookVerificationError) else "Invalid signature"
        raise Refused(401, f"The notification is refused: {why}.", "UNAUTHENTICATED") from None
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise Refused(400, "The body is not JSON.", "BAD_REQUEST") from None


async def _post(
    services: Services, inbox: PaymentInboxRow, message_id: str, body: Any
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
        await payment_inboxes.record(conn, inbox.id, message_id, 200, None, posted.entry.id)
    return posted.entry.id, posted.changed


def routes(services: Services) -> list[Route]:
    async def receive(request: Request) -> Response:
        name = request.path_params["name"]
        async with reading(services.engine) as conn:
            inbox = await payment_inboxes.by_name(conn, name)
        if inbox is None:
            return Refused(
                404, f"There is no payment inbox named {name!r}.", "NOT_FOUND"
            ).response()
        # Kept with the request's record: as much of it as anyone needs to recognise it.
        message_id = (request.headers.get("webhook-id") or "")[:MAX_MESSAGE_ID] or None
        try:
            body = _verified(inbox, await request.body(), dict(request.headers))
            assert message_id is not None  # verify() refuses a request without one
            entry_id, changed = await _post(services, inbox, message_id, body)
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
                conn, inbox.id, message_id, refused.status, refused.message, None
            )
        return refused.response()

    return [Route(PATH, receive, methods=["POST"])]
