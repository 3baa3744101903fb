"""Work orders corrected through the API, for the tests of corrections and of the job's
fields: `update` sends updateWorkOrder as a person of the shop, at the order's version;
`reschedule` moves an order's due time as Sales."""

from typing import Any

from sqlalchemy import text

from tests.support.client import Client, gid
from tests.support.shop import Shop

UPDATE = """mutation Update($i: UpdateWorkOrderInput!) { updateWorkOrder(input: $i) {
  changed workOrder { version details needsTransport customer { name }
    history { action fromState toState actor { name } } }
  userErrors { code field message } } }"""
RESCHEDULE = """mutation($i: RescheduleWorkOrderInput!) { rescheduleWorkOrder(input: $i) {
  userErrors { code message } } }"""


async def version_of(shop: Shop, order: int) -> int:
    async with shop.engine.connect() as conn:
        found = await conn.scalar(
            text("SELECT version FROM work_orders WHERE id = :o"), {"o": order}
        )
    return int(found)


async def update(api: Client, shop: Shop, order: int, who: str = "sam", **fields: Any) -> Any:
    variables = {"workOrderId": gid("WorkOrder", order), **fields}
    variables.setdefault("expectedVersion", await version_of(shop, order))
    return (await api.as_(shop.tokens[who])(UPDATE, {"i": variables}))["updateWorkOrder"]


async def reschedule(api: Client, shop: Shop, order: int, due_at: str) -> None:
    """Sales moves `order`'s due time (at normal priority), and the server takes it."""
    asked = {"workOrderId": gid("WorkOrder", order), "dueAt": due_at, "priority": "NORMAL"}
    moved = await api.as_(shop.tokens["sam"])(RESCHEDULE, {"i": asked})
    assert moved["rescheduleWorkOrder"]["userErrors"] == []
