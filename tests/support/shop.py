"""A small shop in an empty database: its departments, its people (each with a session
token), a customer, and work orders made and completed through src/db."""

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from db import clock, customers, migrate, people
from db.credentials import hash_password
from db.engine import create_engine, unit_of_work
from db.orders import NewWorkOrder, create_work_order
from db.tasks import Actor, transition_task
from domain.enums import DepartmentKind, TaskAction, TokenKind, WorkOrderPriority
from tests.support.database import scratch_database, task_ids

# What `Shop.password_for` gives a person: making tokens asks for it again.
PASSWORD = "correct-horse-battery"
_PASSWORD_HASH: list[str] = []


@dataclass
class Shop:
    """Departments, people (each with a session token), a customer. Ids are raw pks."""

    engine: AsyncEngine
    departments: dict[str, int] = field(default_factory=dict)
    users: dict[str, int] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    token_ids: dict[str, int] = field(default_factory=dict)
    customer_id: int = 0

    async def add_user(self, key: str, codes: list[str], *, is_admin: bool = False) -> str:
        async with unit_of_work(self.engine) as conn:
            return await self.user_in(conn, key, codes, is_admin=is_admin)

    async def user_in(
        self, conn: AsyncConnection, key: str, codes: list[str], *, is_admin: bool = False
    ) -> str:
        """add_user within `conn`'s unit of work."""
        user_id = await self.person(conn, key, codes, is_admin=is_admin)
        issued = await people.issue_token(
            conn, kind=TokenKind.SESSION, name="test", user_id=user_id, ttl_seconds=3600
        )
        self.tokens[key] = issued.token
        self.token_ids[key] = issued.row.id
        return issued.token

    async def person(
        self,
        conn: AsyncConnection,
        key: str,
        codes: list[str],
        *,
        is_admin: bool = False,
        password: str | None = None,
    ) -> int:
        """`key`@shop.test in the departments of `codes`, without a session: their id."""
        user = await people.create_user(
            conn,
            email=f"{key}@shop.test",
            name=key.title(),
            password=password,
            is_admin=is_admin,
            department_ids=[self.departments[c] for c in codes],
        )
        self.users[key] = user.user.id
        return user.user.id

    async def display(self, codes: list[str]) -> str:
        """A wall display token for the queues of `codes`, made by ada: its secret."""
        async with unit_of_work(self.engine) as conn:
            issued = await people.issue_token(
                conn,
                kind=TokenKind.DISPLAY,
                name=f"{codes[0]} wall",
                user_id=self.users["ada"],
                ttl_seconds=None,
                department_ids=[self.departments[c] for c in codes],
            )
        return issued.token

    async def password_for(self, key: str) -> str:
        """Gives `key` the password PASSWORD (people are made without one), their sessions
        left alone; returns it."""
        if not _PASSWORD_HASH:
            _PASSWORD_HASH.append(await hash_password(PASSWORD))
        async with unit_of_work(self.engine) as conn:
            await conn.execute(
                text("UPDATE users SET password_hash = :h WHERE id = :id"),
                {"h": _PASSWORD_HASH[0], "id": self.users[key]},
            )
        return PASSWORD

    async def order(self, codes: list[str], **extra: Any) -> int:
        """A work order for production `codes` (plus delivery; none: one that only
        delivers), of Flyers unless `details` say otherwise, for the shop's customer (ACME)
        unless `customer_id` names another, created `at` a moment past when given; returns
        its pk."""
        async with unit_of_work(self.engine) as conn:
            if "at" in extra:
                await clock.stamp_as_of(conn, extra["at"])
            row = await create_work_order(
                conn,
                NewWorkOrder(
                    customer_id=extra.get("customer_id", self.customer_id),
                    order_number=extra.get("order_number"),
                    details=extra.get("details", {"product": "Flyers"}),
                    department_codes=codes,
                    needs_installation=False,
                    needs_transport=False,
                    needs_repair=False,
                    quote=extra.get("quote"),
                    created_by=self.users["sam"],
                    due_at=extra.get("due_at"),
                    priority=extra.get("priority", WorkOrderPriority.NORMAL),
                    delivery_only=not codes,
                    proof_required=extra.get("proof_required", False),
                ),
            )
        return int(row.order.id)

    async def complete(self, order: int, codes: list[str] | None = None) -> dict[str, int]:
        """Completes the tasks of `codes` (none given: every task, delivery last, so the
        order is COMPLETED) by ada's override; returns the order's task ids by code."""
        tasks = await task_ids(self.engine, order)
        chosen = codes or sorted(tasks, key=lambda code: code == "delivery")
        async with unit_of_work(self.engine) as conn:
            for code in chosen:
                await transition_task(
                    conn,
                    tasks[code],
                    TaskAction.OVERRIDE_COMPLETE,
                    Actor(self.users["ada"], is_admin=True),
                    reason="Done.",
                )
        return tasks


DEPARTMENTS = [
    ("sales", DepartmentKind.SALES, False),
    ("accounts", DepartmentKind.ACCOUNTS, False),
    ("design", DepartmentKind.PRODUCTION, False),
    ("print", DepartmentKind.PRODUCTION, True),
    ("finishing", DepartmentKind.PRODUCTION, True),
    ("delivery", DepartmentKind.DELIVERY, False),
]


@pytest.fixture
async def shop(clean_db: AsyncEngine) -> Shop:
    return await open_shop(clean_db)


@pytest.fixture
async def lone_shop(server_url: str) -> AsyncIterator[tuple[str, Shop]]:
    """A shop in a database of its own, migrated, that no session server serves (nor
    fires timers in): its URL and the shop."""
    async with scratch_database(server_url, "pressroom_lone") as url:
        await asyncio.to_thread(migrate.upgrade_sync, url)
        engine = create_engine(url, pool_size=3, max_overflow=0)
        try:
            yield url, await open_shop(engine)
        finally:
            await engine.dispose()


async def open_shop(engine: AsyncEngine) -> Shop:
    """sam (sales), abe (accounts), dee (design), pat & pia (print), fin (finishing),
    dan & dot (delivery), ada (admin, no department), in an empty database."""
    s = Shop(engine)
    # One unit of work: the shop is made before each of some 2,500 tests.
    async with unit_of_work(engine) as conn:
        for code, kind, gates in DEPARTMENTS:
            row = await people.create_department(conn, code, code.title(), kind, gates)
            s.departments[code] = row.id
        for key, codes in [
            ("sam", ["sales"]),
            ("abe", ["accounts"]),
            ("dee", ["design"]),
            ("pat", ["print"]),
            ("pia", ["print"]),
            ("fin", ["finishing"]),
            ("dan", ["delivery"]),
            ("dot", ["delivery"]),
        ]:
            await s.user_in(conn, key, codes)
        await s.user_in(conn, "ada", [], is_admin=True)
        s.customer_id = (await customers.create_customer(conn, "ACME", s.users["sam"])).customer.id
    return s
