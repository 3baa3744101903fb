"""Reading the old system's tables (schema `legacy` of the source database)."""

from collections import defaultdict

from sqlalchemy.ext.asyncio import AsyncConnection

from db.queries import Q, fetch_native
from domain.legacy_records import LegacyItem, LegacyOrder, LegacyPayment, LegacyStep, LegacyUser


async def users(conn: AsyncConnection) -> list[LegacyUser]:
    return [
        LegacyUser(r.id, r.email, r.name, r.department, r.is_admin, tuple(r.roles))
        for r in await conn.execute(Q["legacy_users"])
    ]


async def order_numbers(conn: AsyncConnection) -> dict[int, str | None]:
    """Every legacy order's number (duplicates are only visible across all of them)."""
    return {r.id: r.order_no for r in await conn.execute(Q["legacy_order_numbers"])}


async def orders(conn: AsyncConnection, after_id: int, limit: int) -> list[LegacyOrder]:
    """A page of orders in id order, each with its steps and line items (three statements).

    Read as asyncpg records, whose columns are the dataclasses' fields, in their order."""
    rows = await fetch_native(conn, "legacy_orders_page", after_id=after_id, limit=limit)
    if not rows:
        return []
    ids = [r["id"] for r in rows]
    steps: dict[int, list[LegacyStep]] = defaultdict(list)
    for s in await fetch_native(conn, "legacy_steps_of", ids=ids):
        steps[s[0]].append(LegacyStep(*s[1:]))
    items: dict[int, list[LegacyItem]] = defaultdict(list)
    for i in await fetch_native(conn, "legacy_items_of", ids=ids):
        items[i[0]].append(LegacyItem(*i[2:]))
    return [
        LegacyOrder(**r, steps=tuple(steps.get(r[0], ())), items=tuple(items.get(r[0], ())))
        for r in rows
    ]


async def payments(conn: AsyncConnection) -> list[LegacyPayment]:
    return [
        LegacyPayment(r.id, r.order_id, r.amount_cents, r.paid_at)
        for r in await conn.execute(Q["legacy_payments"])
    ]
