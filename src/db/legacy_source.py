"""Reading the old system's tables (schema `legacy` of the source database)."""

from collections import defaultdict
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from db.queries import Q
from domain.legacy import LegacyItem, LegacyOrder, LegacyPayment, LegacyStep, LegacyUser


async def users(conn: AsyncConnection) -> list[LegacyUser]:
    return [
        LegacyUser(r.id, r.email, r.name, r.department, r.is_admin, tuple(r.roles))
        for r in await conn.execute(Q["legacy_users"])
    ]


async def order_numbers(conn: AsyncConnection) -> dict[int, str | None]:
    """Every legacy order's number (duplicates are only visible across all of them)."""
    return {r.id: r.order_no for r in await conn.execute(Q["legacy_order_numbers"])}


async def orders(conn: AsyncConnection, after_id: int, limit: int) -> list[LegacyOrder]:
    """A page of orders in id order, each with its steps and line items (three statements)."""
    rows = list(await conn.execute(Q["legacy_orders_page"], {"after_id": after_id, "limit": limit}))
    if not rows:
        return []
    ids = [r.id for r in rows]
    steps: dict[int, list[LegacyStep]] = defaultdict(list)
    for s in await conn.execute(Q["legacy_steps_of"], {"ids": ids}):
        steps[s.order_id].append(
            LegacyStep(s.id, s.step, s.status, s.operator_id, s.started_at, s.finished_at)
        )
    items: dict[int, list[LegacyItem]] = defaultdict(list)
    for i in await conn.execute(Q["legacy_items_of"], {"ids": ids}):
        items[i.order_id].append(LegacyItem(i.description, i.qty, i.unit_price_cents))
    return [_order(r, tuple(steps.get(r.id, ())), tuple(items.get(r.id, ()))) for r in rows]


def _order(row: Any, steps: tuple[LegacyStep, ...], items: tuple[LegacyItem, ...]) -> LegacyOrder:
    return LegacyOrder(
        id=row.id,
        order_no=row.order_no,
        customer_name=row.customer_name,
        status=row.status,
        created_at=row.created_at,
        notes=row.notes,
        install=row.install,
        transport=row.transport,
        repair=row.repair,
        steps=steps,
        items=items,
    )


async def payments(conn: AsyncConnection) -> list[LegacyPayment]:
    return [
        LegacyPayment(r.id, r.order_id, r.amount_cents, r.paid_at)
        for r in await conn.execute(Q["legacy_payments"])
    ]
