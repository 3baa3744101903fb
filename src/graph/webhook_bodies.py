"""What a webhook sends: an event as a subscriber of its kind sees it, serialized.

The payload has one definition, the event's GraphQL type: a work order's events (its
tasks' included) are `WorkOrderEvent`s, as `workOrderEvents` delivers them; ledger entries
are `LedgerEvent`s, as `ledgerEvents` does. Each is executed with a fixed selection below,
as an admin's API token would see it (webhooks belong to the shop, not to whoever made
them), and wrapped per Standard Webhooks with its `type`, `version` and `timestamp`.
"""

import asyncio
import json
from typing import Any

from graphql import DocumentNode, ExecutionResult, parse
from graphql import execute as execute_operation

from api.ids import encode_id
from api.viewer import Viewer
from db.events import StoredEvent, encode_position
from db.fanout import Delivered
from domain.enums import EventType, TokenKind
from graph.context import Context
from graph.schema import schema
from graph.services import SchemaServices
from graph.types.events import LedgerEvent, WorkOrderEvent

WORK_ORDER_EVENT = parse(
    """subscription WorkOrderWebhook($workOrderId: ID!) {
  workOrderEvents(workOrderId: $workOrderId) {
    cursor kind occurredAt
    workOrder {
      id orderNumber status version createdAt updatedAt dueAt priority isLate jobLine
      needsInstallation needsTransport needsRepair details
      hold { reason since }
      customer { id name }
      quote { amount currency }
      latestProof {
        id version fileName mediaType sizeBytes uploadedAt status
        decidedAt decidedThrough decidedByName comment
      }
    }
    task {
      id status availableAt startedAt completedAt version
      department { id code name kind }
      pickedUpBy { id name }
    }
  }
}"""
)

LEDGER_EVENT = parse(
    """subscription LedgerWebhook {
  ledgerEvents {
    cursor kind occurredAt
    entry {
      id kind memo idempotencyKey postedAt
      amount { amount currency } balanceAfter { amount currency }
      customer { id name } workOrder { id orderNumber } postedBy { id name }
    }
  }
}"""
)

DOCUMENTS: tuple[DocumentNode, ...] = (WORK_ORDER_EVENT, LEDGER_EVENT)


class Unrenderable(Exception):
    """The event could not be made into a body (a bug, or an event of no kind sent)."""


def _viewer(user_id: int) -> Viewer:
    return Viewer(
        token_id=0,
        token_kind=TokenKind.API,
        user_id=user_id,
        is_admin=True,
        member_department_ids=frozenset(),
        display_department_ids=frozenset(),
    )


async def render(
    services: SchemaServices, events: list[StoredEvent], created_by: int
) -> list[str | Exception]:
    """The body of each event for a webhook made by `created_by`, as JSON text (or why
    there is none). Made together, so that the rows they share are read once."""
    context = Context(services, _viewer(created_by))
    return await asyncio.gather(*(_body(context, event) for event in events))


async def _body(context: Context, event: StoredEvent) -> str | Unrenderable:
    delivered = Delivered(event)
    cursor = encode_position(event.position)
    variables: dict[str, Any] = {}
    if event.type == EventType.LEDGER_ENTRY_POSTED:
        root: Any = LedgerEvent.of(delivered, cursor)
        document, field = LEDGER_EVENT, "ledgerEvents"
    elif event.work_order_id is not None:
        root = WorkOrderEvent.of(delivered, cursor)
        document, field = WORK_ORDER_EVENT, "workOrderEvents"
        variables["workOrderId"] = encode_id("WorkOrder", event.work_order_id)
    else:
        return Unrenderable(f"{event.type} is about no work order and no ledger entry")
    result = execute_operation(
        schema._schema,
        document,
        root_value=root,
        context_value=context,
        variable_values=variables,
    )
    if not isinstance(result, ExecutionResult):
        result = await result
    if result.errors or not result.data:
        return Unrenderable("; ".join(e.message for e in result.errors or ()))
    body = {
        "type": event.type.value,
        "version": event.version,
        "timestamp": event.occurred_at.isoformat(),
        "data": result.data[field],
    }
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))
