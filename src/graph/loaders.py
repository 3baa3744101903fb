"""Dataloaders: every relation on a page resolves in one statement per relation."""

from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

from sqlalchemy import Row
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry.dataloader import DataLoader

from db import reads

Reader = Callable[[], AbstractAsyncContextManager[AsyncConnection]]
Fetch = Callable[[AsyncConnection, Sequence[int]], Awaitable[list[Row[Any]]]]


def _by_id(read: Reader, fetch: Fetch) -> DataLoader[int, Row[Any] | None]:
    async def load(ids: list[int]) -> list[Row[Any] | None]:
        async with read() as conn:
            rows = {r.id: r for r in await fetch(conn, ids)}
        return [rows.get(i) for i in ids]

    return DataLoader(load_fn=load)


def _grouped(read: Reader, fetch: Fetch, key: str) -> DataLoader[int, list[Row[Any]]]:
    async def load(ids: list[int]) -> list[list[Row[Any]]]:
        groups: dict[int, list[Row[Any]]] = defaultdict(list)
        async with read() as conn:
            for row in await fetch(conn, ids):
                groups[getattr(row, key)].append(row)
        return [groups.get(i, []) for i in ids]

    return DataLoader(load_fn=load)


class Loaders:
    def __init__(self, read: Reader) -> None:
        self.department = _by_id(read, reads.departments)
        self.user = _by_id(read, reads.users)
        self.customer = _by_id(read, reads.customers)
        self.work_order = _by_id(read, reads.work_orders)
        self.task = _by_id(read, reads.tasks)
        self.tasks_of_work_order = _grouped(read, reads.tasks_of_work_orders, "work_order_id")
        self.task_history = _grouped(read, reads.task_history, "task_id")
        self.work_order_history = _grouped(read, reads.work_order_history, "work_order_id")
        self.memberships = _grouped(read, reads.memberships, "user_id")
        self.ledger_entry = _by_id(read, reads.ledger_entries)
        self.token = _by_id(read, reads.tokens)
        self.work_order_ledger = _grouped(read, reads.ledger_of_work_orders, "work_order_id")
        self.customer_balances = _grouped(read, reads.customer_balances, "customer_id")

        self._read = read
        self._all_departments: list[Row[Any]] | None = None

    async def all_departments(self) -> list[Row[Any]]:
        if self._all_departments is None:
            async with self._read() as conn:
                self._all_departments = await reads.all_departments(conn)
            for row in self._all_departments:
                self.department.prime(row.id, row)
        return self._all_departments

    async def department_codes(self) -> dict[str, Row[Any]]:
        return {d.code: d for d in await self.all_departments()}

    def clear_all(self) -> None:
        """After a mutation commits, later fields must not see what was cached before it."""
        for loader in vars(self).values():
            if isinstance(loader, DataLoader):
                loader.clear_all()
        self._all_departments = None
