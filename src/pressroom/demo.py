"""`serve --demo`: a small shop seeded once, so every mutation can be tried at once."""

import itertools
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from db import customers, people, reads, routing, schedule
from db.cancellation import cancel_work_order
from db.engine import unit_of_work
from db.ledger import NewEntry, post_entry
from db.orders import NewWorkOrder, create_work_order
from db.tasks import Actor, transition_task
from domain import ledger
from domain.contacts import Address, Contact
from domain.enums import (
    DepartmentKind,
    LedgerEntryKind,
    TaskAction,
    WorkOrderPriority,
    WorkOrderStatus,
)
from domain.ledger import EntryContent
from domain.money import Money, parse_money

PASSWORD = "pressroom"

DEPARTMENTS = [
    ("sales", "Sales", DepartmentKind.SALES, False),
    ("accounts", "Accounts", DepartmentKind.ACCOUNTS, False),
    ("design", "Design", DepartmentKind.PRODUCTION, False),
    ("print", "Print", DepartmentKind.PRODUCTION, True),
    ("finishing", "Finishing", DepartmentKind.PRODUCTION, True),
    ("delivery", "Delivery", DepartmentKind.DELIVERY, False),
]

PEOPLE = [
    ("admin@pressroom.test", "Ada Admin", True, []),
    ("sam@pressroom.test", "Sam Sales", False, ["sales"]),
    ("sue@pressroom.test", "Sue Sales", False, ["sales"]),
    ("abe@pressroom.test", "Abe Accounts", False, ["accounts"]),
    ("dee@pressroom.test", "Dee Design", False, ["design"]),
    ("pat@pressroom.test", "Pat Print", False, ["print"]),
    ("pia@pressroom.test", "Pia Print", False, ["print", "finishing"]),
    ("fin@pressroom.test", "Fin Finishing", False, ["finishing"]),
    ("dan@pressroom.test", "Dan Delivery", False, ["delivery"]),
    ("dot@pressroom.test", "Dot Delivery", False, ["delivery"]),
]

# Design → Print → Finishing: each waits for the one before it (delivery for Print and
# Finishing, which gate delivery).
ROUTE = ["design", "print", "finishing"]

CUSTOMERS = [
    ("Northwind Bakery", Contact("Mia Berg", "mia@northwind.example", "+44 20 7946 0101",
                                 Address(("4 Mill Lane",), "N1 7GU", "London"))),
    ("Harbour Books", Contact("Ann Lee", "ann@harbour.example", "+44 117 496 0018",
                              Address(("12 Quay Street", "Unit 4"), "BS1 4DJ", "Bristol"),
                              "Deliveries at the back door before 10.")),
    ("Cobalt Cycles", Contact("Raj Patel", "raj@cobalt.example", None,
                              Address(("88 Canal Road",), "M4 6AB", "Manchester"))),
    ("Linden School", Contact("Ms Okafor", "office@linden.example", "+44 113 496 0200",
                              Address(("Linden School", "School Lane"), "LS6 2EN", "Leeds"),
                              "Reception signs for every delivery.")),
    ("Juniper Hotel", Contact(None, None, "+44 131 496 0777",
                              Address(("1 Castle Terrace",), "EH1 2DP", "Edinburgh"))),
]  # fmt: skip
PRODUCTS = ["Flyers A5", "Banner 3m", "Business cards", "Menus", "Posters A2", "Brochures"]


@dataclass(frozen=True)
class DemoInfo:
    seeded: bool
    logins: list[tuple[str, str, str]]


async def seed(engine: AsyncEngine) -> DemoInfo:
    logins = [(email, name, PASSWORD) for email, name, _, _ in PEOPLE]
    async with unit_of_work(engine) as conn:
        # Once only: a shop that already has departments is left as it is.
        if await reads.all_departments(conn):
            return DemoInfo(seeded=False, logins=logins)
        depts = {
            code: await people.create_department(conn, code, name, kind, gates)
            for code, name, kind, gates in DEPARTMENTS
        }
        users = {}
        for email, name, is_admin, codes in PEOPLE:
            users[email] = await people.create_user(
                conn,
                email=email,
                name=name,
                password=PASSWORD,
                is_admin=is_admin,
                department_ids=[depts[c].id for c in codes],
            )
        sales = users["sam@pressroom.test"].id
        clients = [
            await customers.create_customer(conn, name, sales, contact)
            for name, contact in CUSTOMERS
        ]
        admin = users["admin@pressroom.test"].id
        for before, code in itertools.pairwise(ROUTE):
            await routing.set_follows(conn, code, [before], admin)
    worker = {
        "design": users["dee@pressroom.test"].id,
        "print": users["pat@pressroom.test"].id,
        "finishing": users["fin@pressroom.test"].id,
        "delivery": users["dan@pressroom.test"].id,
    }
    code_of = {d.id: c for c, d in depts.items()}
    rng = random.Random(7)
    orders = []
    # Each order, and each of its steps, in a transaction of its own: its history reads in
    # the order it happened.
    for n in range(12):
        codes = rng.sample(["design", "print", "finishing"], k=rng.randint(1, 3))
        async with unit_of_work(engine) as conn:
            order = await create_work_order(
                conn,
                NewWorkOrder(
                    customer_id=clients[n % len(clients)].id,
                    order_number=None,
                    details={"product": rng.choice(PRODUCTS), "quantity": rng.randint(1, 20) * 50},
                    department_codes=codes,
                    needs_installation=n % 4 == 0,
                    needs_transport=n % 3 == 0,
                    needs_repair=False,
                    quote=parse_money(Decimal(rng.randint(80, 2400)), "EUR", "quote"),
                    created_by=sales,
                    due_at=_due(n),
                    priority=WorkOrderPriority.RUSH if n == 1 else WorkOrderPriority.NORMAL,
                ),
            )
            tasks = await reads.tasks_of_work_orders(conn, [order.id])
        by_code = {code_of[t.department_id]: t for t in tasks}
        # Orders 0-3 stay untouched; later ones progress further through the shop, along
        # the route: a first step started, or every production step done, then delivery.
        progress = n % 6
        moves = []
        for step, code in enumerate(c for c in ROUTE if c in by_code):
            if progress >= 3 or (progress >= 1 and step == 0):
                moves.append((code, TaskAction.START))
            if progress >= 3:
                moves.append((code, TaskAction.FINISH))
        moves += [("delivery", TaskAction.START)] if progress >= 4 else []
        moves += [("delivery", TaskAction.FINISH)] if progress >= 5 else []
        for code, action in moves:
            async with unit_of_work(engine) as conn:
                await transition_task(conn, by_code[code].id, action, Actor(worker[code], False))
        async with unit_of_work(engine) as conn:
            if n == 2:
                await cancel_work_order(conn, order.id, admin, "Customer withdrew the order.")
            if n == 3:
                await schedule.hold(conn, order.id, "Waiting for the customer's proof.", sales)
        orders.append(order)
    async with unit_of_work(engine) as conn:
        await _ledger(conn, orders, users["abe@pressroom.test"].id)
    return DemoInfo(seeded=True, logins=logins)


def _due(n: int) -> datetime | None:
    """Due dates the first look shows all of: late (yesterday), today, next week, none."""
    today = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    return [today - timedelta(days=1), today + timedelta(hours=5), today + timedelta(days=7), None][
        n % 4
    ]


async def _ledger(conn: AsyncConnection, orders: list[Any], accountant: int) -> None:
    """A few postings, so Accounts sees balances at once: completed orders are charged
    their quote, some are paid in full or in part, one gets a credit."""
    postings = []
    orders = sorted(await reads.work_orders(conn, [o.id for o in orders]), key=lambda o: o.id)
    for order in orders:
        if order.status == WorkOrderStatus.CANCELLED or order.quote_minor is None:
            continue
        quote = Money(order.quote_minor, order.quote_currency)
        postings.append((order, LedgerEntryKind.CHARGE, quote, "Invoice"))
        if order.id % 3 == 0:
            postings.append((order, LedgerEntryKind.PAYMENT, quote, "Bank transfer"))
        elif order.id % 3 == 1:
            part = Money(quote.minor // 2, quote.currency)
            postings.append((order, LedgerEntryKind.PAYMENT, part, "Deposit"))
    first = orders[0]
    postings.append((first, LedgerEntryKind.CREDIT, Money(1500, "EUR"), "Goodwill: late delivery"))
    for n, (order, kind, amount, memo) in enumerate(postings):
        await post_entry(
            conn,
            NewEntry(
                content=EntryContent(
                    customer_id=order.customer_id,
                    work_order_id=order.id,
                    kind=kind,
                    amount=ledger.signed(kind, amount),
                    memo=memo,
                ),
                idempotency_key=f"demo-{n}",
                posted_by=accountant,
            ),
        )
