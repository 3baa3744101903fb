"""The shop a bench works in: production departments, an admin, workers with session
tokens, wall displays with display tokens, and pools of fresh tasks, each on an order of
its own, made as the server's writers make them."""

import asyncio
from dataclasses import dataclass, field
from typing import Any

from db import customers, orders, people, reads
from db.engine import create_engine, unit_of_work
from domain.enums import DepartmentKind, TokenKind

TOKEN_TTL_SECONDS = 24 * 3600


@dataclass
class Shop:
    """Production departments (gating delivery only when seeded so), workers in all of them,
    display tokens."""

    department_ids: list[int] = field(default_factory=list)
    department_codes: list[str] = field(default_factory=list)
    delivery_id: int = 0
    admin_id: int = 0
    customer_id: int = 0
    worker_ids: list[int] = field(default_factory=list)
    worker_tokens: list[str] = field(default_factory=list)
    # (token, department code) for each wall display subscriber.
    displays: list[tuple[str, str]] = field(default_factory=list)


async def seed_shop(
    url: str, *, departments: int, workers: int, displays: int, gates_delivery: bool = False
) -> Shop:
    shop = Shop()
    engine = create_engine(url, pool_size=2, max_overflow=0)
    try:
        async with unit_of_work(engine) as conn:
            for i in range(departments):
                code = f"p{i:02d}"
                row = await people.create_department(
                    conn, code, f"Production {i}", DepartmentKind.PRODUCTION, gates_delivery
                )
                shop.department_ids.append(row.id)
                shop.department_codes.append(code)
            delivery = await people.create_department(
                conn, "delivery", "Delivery", DepartmentKind.DELIVERY, False
            )
            shop.delivery_id = delivery.id
            boss = await people.create_user(
                conn,
                email="admin@bench.test",
                name="Bench Admin",
                password=None,
                is_admin=True,
                department_ids=[],
            )
            shop.admin_id = boss.user.id
            shop.customer_id = (
                await customers.create_customer(conn, "Bench", boss.user.id)
            ).customer.id
            for i in range(workers):
                user = await people.create_user(
                    conn,
                    email=f"w{i:02d}@bench.test",
                    name=f"Worker {i}",
                    password=None,
                    is_admin=False,
                    department_ids=shop.department_ids,
                )
                issued = await people.issue_token(
                    conn,
                    kind=TokenKind.SESSION,
                    name="bench",
                    user_id=user.user.id,
                    ttl_seconds=TOKEN_TTL_SECONDS,
                )
                shop.worker_ids.append(user.user.id)
                shop.worker_tokens.append(issued.token)
            for i in range(displays):
                index = i % departments
                issued = await people.issue_token(
                    conn,
                    kind=TokenKind.DISPLAY,
                    name=f"display {i}",
                    user_id=boss.user.id,
                    ttl_seconds=None,
                    department_ids=[shop.department_ids[index]],
                )
                shop.displays.append((issued.token, shop.department_codes[index]))
    finally:
        await engine.dispose()
    return shop


class TaskPool:
    """Fresh PENDING production tasks, each on a work order of its own (plus its delivery
    task, whose gate is open because no production department gates delivery), so that
    concurrent clients never wait on each other's work order lock. Departments round-robin.
    Made as Sales makes them (db.orders.create_work_order), in one transaction per batch.
    """

    def __init__(self, url: str, shop: Shop, prefix: str = "B") -> None:
        self.url = url
        self.shop = shop
        # Order numbers are unique: pools of one database need prefixes of their own.
        self.prefix = prefix
        self.batches = 0

    async def take(self, count: int) -> list[int]:
        """`count` new tasks, in a list meant to be popped from the end by many clients."""
        self.batches += 1
        engine = create_engine(self.url, pool_size=POOL_WRITERS, max_overflow=0)
        try:
            chunks = [range(i, min(i + POOL_CHUNK, count)) for i in range(0, count, POOL_CHUNK)]
            writers = asyncio.Semaphore(POOL_WRITERS)

            async def make(numbers: range) -> list[int]:
                async with writers:
                    return await self._make(engine, numbers)

            made = await asyncio.gather(*(make(chunk) for chunk in chunks))
        finally:
            await engine.dispose()
        ids = [task for chunk in made for task in chunk]
        ids.reverse()
        return ids

    async def _make(self, engine: Any, numbers: range) -> list[int]:
        """Orders numbered `numbers` of this batch, in one transaction: their production
        tasks' ids."""
        codes = self.shop.department_codes
        async with unit_of_work(engine) as conn:
            order_ids = []
            for i in numbers:
                new = orders.NewWorkOrder(
                    customer_id=self.shop.customer_id,
                    order_number=f"{self.prefix}{self.batches:03d}-{i}",
                    details={"product": "Flyers A5"},
                    department_codes=[codes[i % len(codes)]],
                    needs_installation=False,
                    needs_transport=False,
                    needs_repair=False,
                    quote=None,
                    created_by=self.shop.admin_id,
                )
                order_ids.append((await orders.create_work_order(conn, new)).order.id)
            tasks = await reads.tasks_of_work_orders(conn, order_ids)
        return [t.id for t in tasks if t.department_kind != DepartmentKind.DELIVERY]


# A pool's orders are made in transactions of this many, this many at once.
POOL_CHUNK = 250
POOL_WRITERS = 4
