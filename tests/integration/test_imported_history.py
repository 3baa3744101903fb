"""Orders completed or cancelled in the old system are immutable history once imported:
no task move, quote change or cancellation touches them (WORK_ORDER_CLOSED, saying it is
imported history, nothing written). Orders imported live are Pressroom's like any other."""

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import text

from pressroom.legacy_import import import_legacy
from samples.legacy_data import build_legacy
from tests.support.client import Client, gid
from tests.support.database import scratch_database, table_snapshot
from tests.support.shop import Shop


@dataclass
class Imported:
    shop: Shop
    orders: dict[str, int]  # status in Pressroom -> one imported order's id
    tasks: dict[str, int]  # status in Pressroom -> a task of that order


@pytest.fixture(scope="module")
async def legacy_source(server_url: str) -> AsyncIterator[str]:
    """A legacy database, built once: the import only reads it."""
    async with scratch_database(server_url, "pressroom_history") as source:
        await build_legacy(source, orders=80)
        yield source


@pytest.fixture
async def imported(legacy_source: str, shop: Shop, database_url: str) -> AsyncIterator[Imported]:
    await import_legacy(legacy_source, database_url)
    orders: dict[str, int] = {}
    tasks: dict[str, int] = {}
    async with shop.engine.connect() as conn:
        for status in ("COMPLETED", "CANCELLED", "ACTIVE"):
            row = (
                await conn.execute(
                    text(
                        "SELECT w.id, min(t.id) AS task FROM work_orders w "
                        "JOIN department_tasks t ON t.work_order_id = w.id "
                        "WHERE w.legacy_id IS NOT NULL AND w.status = :s "
                        "GROUP BY w.id ORDER BY w.id LIMIT 1"
                    ),
                    {"s": status},
                )
            ).one()
            orders[status], tasks[status] = row.id, row.task
    yield Imported(shop, orders, tasks)


MOVES: dict[str, tuple[str, str, Any]] = {
    "reopenTask": ("task", "ReopenTaskInput", lambda t, o: {"taskId": t, "reason": "Again."}),
    "completeTask": ("task", "CompleteTaskInput", lambda t, o: {"taskId": t, "reason": "Done."}),
    "releaseTask": ("task", "ReleaseTaskInput", lambda t, o: {"taskId": t, "reason": "Free."}),
    "updateWorkOrderQuote": (
        "workOrder",
        "UpdateWorkOrderQuoteInput",
        lambda t, o: {"workOrderId": o, "quote": {"amount": "10.00", "currency": "EUR"}},
    ),
    "cancelWorkOrder": (
        "workOrder",
        "CancelWorkOrderInput",
        lambda t, o: {"workOrderId": o, "reason": "Changed our mind."},
    ),
}


@pytest.mark.parametrize("status", ["COMPLETED", "CANCELLED"])
@pytest.mark.parametrize("mutation", list(MOVES))
async def test_an_imported_closed_order_is_history_nothing_changes(
    api: Client, imported: Imported, mutation: str, status: str
) -> None:
    field, input_type, inputs = MOVES[mutation]
    task = gid("DepartmentTask", imported.tasks[status])
    order = gid("WorkOrder", imported.orders[status])
    query = (
        f"mutation($i: {input_type}!) {{ {mutation}(input: $i) {{ {field} {{ id }} "
        "userErrors { code field message } } }"
    )
    before = await table_snapshot(imported.shop.engine)
    body = await api.as_(imported.shop.tokens["ada"])(query, {"i": inputs(task, order)})
    [error] = body[mutation]["userErrors"]
    assert error["code"] == "WORK_ORDER_CLOSED"
    assert f"imported history ({status.lower()} in the old system)" in error["message"]
    assert await table_snapshot(imported.shop.engine) == before


async def test_an_order_imported_live_is_pressrooms_to_change(
    api: Client, imported: Imported
) -> None:
    order = gid("WorkOrder", imported.orders["ACTIVE"])
    quote = """mutation($i: UpdateWorkOrderQuoteInput!) { updateWorkOrderQuote(input: $i) {
      workOrder { quote { amount } } userErrors { code } } }"""
    body = await api.as_(imported.shop.tokens["ada"])(
        quote, {"i": {"workOrderId": order, "quote": {"amount": "12.50", "currency": "EUR"}}}
    )
    assert body["updateWorkOrderQuote"] == {
        "workOrder": {"quote": {"amount": "12.50"}},
        "userErrors": [],
    }
