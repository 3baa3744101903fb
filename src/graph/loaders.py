"""Dataloaders: every relation on a page resolves in one statement per relation.

Relation fields read their loader through `now_or_later`: when the loader already holds
the value (the page's rows were fetched ahead, see graph/prefetch.py), the field resolves
at once, with no coroutine and no asyncio task; otherwise GraphQL awaits it.
"""

import asyncio
import inspect
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from functools import cached_property
from typing import Any, Protocol, TypeVar, cast

from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry.dataloader import DataLoader

from db import proofs, reads
from db.rows import (
    BalanceRow,
    CustomerRow,
    DepartmentRow,
    LedgerEntryRow,
    MembershipRow,
    ProofRow,
    RefundDueRow,
    TaskRow,
    TaskTransitionRow,
    TokenRow,
    UserRow,
    WorkOrderRow,
    WorkOrderTransitionRow,
)

T = TypeVar("T")
R = TypeVar("R")
Row = TypeVar("Row")
Identified = TypeVar("Identified", bound="HasId")
Reader = Callable[[], AbstractAsyncContextManager[AsyncConnection]]


class HasId(Protocol):
    id: int


def _by_id(
    read: Reader, fetch: Callable[[AsyncConnection, Sequence[int]], Awaitable[list[Identified]]]
) -> DataLoader[int, Identified | None]:
    async def load(ids: list[int]) -> list[Identified | None]:
        async with read() as conn:
            rows = {r.id: r for r in await fetch(conn, ids)}
        return [rows.get(i) for i in ids]

    return DataLoader(load_fn=load)


def _grouped(
    read: Reader, fetch: Callable[[AsyncConnection, Sequence[int]], Awaitable[list[Row]]], key: str
) -> DataLoader[int, list[Row]]:
    async def load(ids: list[int]) -> list[list[Row]]:
        groups: dict[int, list[Row]] = defaultdict(list)
        async with read() as conn:
            for row in await fetch(conn, ids):
                groups[getattr(row, key)].append(row)
        return [groups.get(i, []) for i in ids]

    return DataLoader(load_fn=load)


def now_or_later(pending: Awaitable[T], convert: Callable[[T], R]) -> R:
    """`convert` of a loaded value: the result itself when the loader holds the value
    already, else an awaitable of it. Typed as the result because Strawberry reads a
    field's GraphQL type from its resolver's annotation, and graphql-core awaits an
    awaitable wherever a value may be; `convert` may itself return either."""
    if isinstance(pending, asyncio.Future) and pending.done():
        return convert(pending.result())
    return cast(R, _later(pending, convert))


def all_now_or_later(pending: list[Awaitable[T]], convert: Callable[[list[T]], R]) -> R:
    """`now_or_later` for several loads (asyncio.gather would defer even finished ones)."""
    if all(isinstance(p, asyncio.Future) and p.done() for p in pending):
        return convert([cast("asyncio.Future[T]", p).result() for p in pending])
    return cast(R, _later(asyncio.gather(*pending), convert))


async def _later(pending: Awaitable[Any], convert: Callable[[Any], Any]) -> Any:
    value = convert(await pending)
    return await value if inspect.isawaitable(value) else value


class Loaders:
    """A request's loaders, each made on first use: most requests need two or three."""

    def __init__(self, read: Reader) -> None:
        self._read = read
        self._all_departments: list[DepartmentRow] | None = None
        # A user's department nodes, made once per request: the same people come back
        # on every task of a page (User.departments).
        self.departments_of_user: dict[int, list[Any]] = {}

    @cached_property
    def department(self) -> DataLoader[int, DepartmentRow | None]:
        return _by_id(self._read, reads.departments)

    @cached_property
    def user(self) -> DataLoader[int, UserRow | None]:
        return _by_id(self._read, reads.users)

    @cached_property
    def customer(self) -> DataLoader[int, CustomerRow | None]:
        return _by_id(self._read, reads.customers)

    @cached_property
    def work_order(self) -> DataLoader[int, WorkOrderRow | None]:
        return _by_id(self._read, reads.work_orders)

    @cached_property
    def task(self) -> DataLoader[int, TaskRow | None]:
        return _by_id(self._read, reads.tasks)

    @cached_property
    def ledger_entry(self) -> DataLoader[int, LedgerEntryRow | None]:
        return _by_id(self._read, reads.ledger_entries)

    @cached_property
    def token(self) -> DataLoader[int, TokenRow | None]:
        return _by_id(self._read, reads.tokens)

    @cached_property
    def proof(self) -> DataLoader[int, ProofRow | None]:
        return _by_id(self._read, proofs.proofs)

    @cached_property
    def proofs_of_work_order(self) -> DataLoader[int, list[ProofRow]]:
        return _grouped(self._read, proofs.proofs_of_work_orders, "work_order_id")

    @cached_property
    def tasks_of_work_order(self) -> DataLoader[int, list[TaskRow]]:
        return _grouped(self._read, reads.tasks_of_work_orders, "work_order_id")

    @cached_property
    def task_history(self) -> DataLoader[int, list[TaskTransitionRow]]:
        return _grouped(self._read, reads.task_history, "task_id")

    @cached_property
    def work_order_history(self) -> DataLoader[int, list[WorkOrderTransitionRow]]:
        return _grouped(self._read, reads.work_order_history, "work_order_id")

    @cached_property
    def memberships(self) -> DataLoader[int, list[MembershipRow]]:
        return _grouped(self._read, reads.memberships, "user_id")

    @cached_property
    def work_order_ledger(self) -> DataLoader[int, list[LedgerEntryRow]]:
        return _grouped(self._read, reads.ledger_of_work_orders, "work_order_id")

    @cached_property
    def customer_balances(self) -> DataLoader[int, list[BalanceRow]]:
        return _grouped(self._read, reads.customer_balances, "customer_id")

    @cached_property
    def work_order_refunds_due(self) -> DataLoader[int, list[RefundDueRow]]:
        return _grouped(self._read, reads.refunds_due_of_work_orders, "work_order_id")

    @cached_property
    def customer_refunds_due(self) -> DataLoader[int, list[BalanceRow]]:
        return _grouped(self._read, reads.refunds_due_of_customers, "customer_id")

    async def all_departments(self) -> list[DepartmentRow]:
        # Local, not the attribute: a subscription on the same connection may clear the
        # loaders while this one awaits the read.
        departments = self._all_departments
        if departments is None:
            async with self._read() as conn:
                departments = await reads.all_departments(conn)
            self._all_departments = departments
            for row in departments:
                self.department.prime(row.id, row)
        return departments

    async def department_codes(self) -> dict[str, DepartmentRow]:
        return {d.code: d for d in await self.all_departments()}

    def clear_all(self) -> None:
        """After a mutation commits, later fields must not see what was cached before it.
        The loaders themselves go too (made again on first use): a live subscription
        then holds no rows while it waits for events."""
        for name, value in list(vars(self).items()):
            if isinstance(value, DataLoader):
                del self.__dict__[name]
        self._all_departments = None
        self.departments_of_user = {}
