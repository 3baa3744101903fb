"""`serve --demo`: a small shop seeded once, so every mutation can be tried at once."""

import io
import itertools
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from PIL import Image, ImageDraw
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from api.proof_files import examine
from db import clock, customer_links, customers, people, reads, routing, schedule
from db.cancellation import cancel_work_order
from db.engine import unit_of_work
from db.ledger import NewEntry, post_entry
from db.orders import NewWorkOrder, create_work_order
from db.proofs import NewProof, add_version
from db.tasks import Actor, transition_task
from domain import ledger, validation
from domain.contacts import Address, Contact
from domain.enums import DepartmentKind, LedgerEntryKind, TaskAction, WorkOrderPriority
from domain.ledger import EntryContent
from domain.money import Money, parse_money

PASSWORD = "pressroom"

# Code, name, kind, whether it gates delivery, whether it waits for an approved proof (on
# the orders that need one).
DEPARTMENTS = [
    ("sales", "Sales", DepartmentKind.SALES, False, False),
    ("accounts", "Accounts", DepartmentKind.ACCOUNTS, False, False),
    ("design", "Design", DepartmentKind.PRODUCTION, False, False),
    ("print", "Print", DepartmentKind.PRODUCTION, True, True),
    ("finishing", "Finishing", DepartmentKind.PRODUCTION, True, True),
    ("delivery", "Delivery", DepartmentKind.DELIVERY, False, False),
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
# Each order's production departments, chosen with how far it got (`_day`) so that every
# queue has work waiting for the first look: Design's in 0, Print's in 6, Finishing's in 8,
# Delivery's in 9.
ORDERS = [
    ("design", "print", "finishing"),
    ("print",),
    ("design", "print", "finishing"),
    ("print", "finishing"),
    ("print",),
    ("print", "finishing"),
    ("print", "finishing"),
    ("design", "print"),
    ("print", "finishing"),
    ("design", "print", "finishing"),
    ("design", "print", "finishing"),
    ("finishing",),
    ("design", "print", "finishing"),
]
# The order that needs the customer's approval: Design has made its proof, which waits
# for the customer (`serve --demo` prints a link to its page); Print waits for it.
PROOF_ORDER = 12
PRODUCTS = ["Flyers A5", "Banner 3m", "Business cards", "Menus", "Posters A2", "Brochures"]


@dataclass(frozen=True)
class DemoInfo:
    seeded: bool
    logins: list[tuple[str, str, str]]
    # A new customer link to the order waiting for approval (its secret), made at each start.
    customer_secret: str | None = None


@dataclass(frozen=True)
class Step:
    """One thing that happened in the shop, in a transaction of its own stamped `at`."""

    at: datetime
    n: int  # the order it happened to
    what: TaskAction | str  # a task's move (by `code`), or CREATE / CANCEL / HOLD / a posting
    code: str = ""
    codes: tuple[str, ...] = ()  # CREATE's production departments


async def seed(engine: AsyncEngine) -> DemoInfo:
    logins = [(email, name, PASSWORD) for email, name, _, _ in PEOPLE]
    now = datetime.now(UTC)
    async with unit_of_work(engine) as conn:
        # Once only: a shop that already has departments is left as it is.
        if await reads.all_departments(conn):
            return DemoInfo(seeded=False, logins=logins, customer_secret=await _link(conn))
        await clock.stamp_as_of(conn, now - timedelta(days=7))
        depts = {
            code: await people.create_department(conn, code, name, kind, gates, proof)
            for code, name, kind, gates, proof in DEPARTMENTS
        }
        users = {}
        for email, name, is_admin, codes in PEOPLE:
            made = await people.create_user(
                conn,
                email=email,
                name=name,
                password=PASSWORD,
                is_admin=is_admin,
                department_ids=[depts[c].id for c in codes],
            )
            users[email] = made.user
        clients = [
            (
                await customers.create_customer(conn, name, users["sam@pressroom.test"].id, contact)
            ).customer
            for name, contact in CUSTOMERS
        ]
        for before, code in itertools.pairwise(ROUTE):
            await routing.set_follows(conn, code, [before])
    shop = _Shop({c: d.id for c, d in depts.items()}, {e: u.id for e, u in users.items()}, clients)
    # The shop's last thirty hours, each step when it happened: the histories read
    # minutes to hours apart, and the whole log in time order.
    for step in sorted(_day(now), key=lambda s: s.at):
        async with unit_of_work(engine) as conn:
            await clock.stamp_as_of(conn, step.at)
            await shop.do(conn, step)
    async with unit_of_work(engine) as conn:
        return DemoInfo(seeded=True, logins=logins, customer_secret=await _link(conn))


async def _link(conn: AsyncConnection) -> str | None:
    """A new link, made by Sam, to the first order waiting for its customer's approval;
    none in a shop that is not the demo's (no Sam) or has no such order."""
    sam = await people.user_by_email(conn, "sam@pressroom.test")
    waiting = await customer_links.orders_awaiting_customer(conn)
    if sam is None or not waiting:
        return None
    return (await customer_links.create(conn, waiting[0], created_by=sam.id)).secret


def _day(now: datetime) -> list[Step]:
    """The orders, one every two hours from 30 hours ago; each step 5 to 35 minutes after
    the one before (a cancel, a hold or a posting up to an hour), so the last ends over an
    hour before `now`."""
    rng = random.Random(7)
    steps = []
    for n, codes in enumerate(ORDERS):
        at = now - timedelta(hours=30) + n * timedelta(hours=2) + _minutes(rng, 0, 40)
        steps.append(Step(at, n, "CREATE", codes=codes))
        # How far the order got along its route: 0 untouched, 1 its first step started,
        # 2 its first step done, 3 every production step done, 4 out for delivery,
        # 5 delivered.
        progress = n % 6
        moves = []
        for index, code in enumerate(codes):
            if progress >= 3 or (progress >= 1 and index == 0):
                moves.append((code, TaskAction.START))
            if progress >= 3 or (progress >= 2 and index == 0):
                moves.append((code, TaskAction.FINISH))
        moves += [("delivery", TaskAction.START)] if progress >= 4 else []
        moves += [("delivery", TaskAction.FINISH)] if progress >= 5 else []
        if n == PROOF_ORDER:
            moves = [("design", TaskAction.START), ("design", TaskAction.FINISH)]
        for code, action in moves:
            at += _minutes(rng, 5, 35)
            steps.append(Step(at, n, action, code))
        if n == PROOF_ORDER:
            at += _minutes(rng, 5, 35)
            steps.append(Step(at, n, "PROOF"))
        if n in (2, 3):
            at += _minutes(rng, 20, 60)
            steps.append(Step(at, n, "CANCEL" if n == 2 else "HOLD"))
            if n == 2:
                continue
        # Accounts invoices every order that goes ahead; some are paid in full or in
        # part, one gets a credit.
        postings = ["CHARGE", *(["PAYMENT"] if n % 3 == 0 else ["DEPOSIT"] if n % 3 == 1 else [])]
        postings += ["CREDIT"] if n == 0 else []
        for posting in postings:
            at += _minutes(rng, 20, 40)
            steps.append(Step(at, n, posting))
    return steps


def _minutes(rng: random.Random, low: int, high: int) -> timedelta:
    return timedelta(minutes=rng.randint(low, high), seconds=rng.randint(0, 59))


class _Shop:
    """The demo shop's people and records, doing one step at a time."""

    def __init__(self, depts: dict[str, int], users: dict[str, int], clients: list[Any]) -> None:
        self.depts = depts
        self.users = users
        self.clients = clients
        self.orders: dict[int, Any] = {}
        self.tasks: dict[tuple[int, str], int] = {}
        self.posted = 0

    def worker(self, code: str) -> int:
        email = {"design": "dee", "print": "pat", "finishing": "fin", "delivery": "dan"}[code]
        return self.users[f"{email}@pressroom.test"]

    async def do(self, conn: AsyncConnection, step: Step) -> None:
        sales, admin = self.users["sam@pressroom.test"], self.users["admin@pressroom.test"]
        if isinstance(step.what, TaskAction):
            task = self.tasks[step.n, step.code]
            await transition_task(conn, task, step.what, Actor(self.worker(step.code), False))
        elif step.what == "CREATE":
            await self.create(conn, step, sales)
        elif step.what == "CANCEL":
            await cancel_work_order(conn, self.orders[step.n].id, admin, "Customer withdrew.")
        elif step.what == "HOLD":
            reason = "Waiting for the customer's proof."
            await schedule.hold(conn, self.orders[step.n].id, reason, sales)
        elif step.what == "PROOF":
            await self.proof(conn, step)
        else:
            await self.post(conn, step)

    async def create(self, conn: AsyncConnection, step: Step, sales: int) -> None:
        n = step.n
        rng = random.Random(n)
        made = await create_work_order(
            conn,
            NewWorkOrder(
                customer_id=self.clients[n % len(self.clients)].id,
                order_number=None,
                # Under the API's rules for the job, as an order made on a screen.
                details=validation.details(
                    {"product": rng.choice(PRODUCTS), "quantity": rng.randint(1, 20) * 50}
                ),
                department_codes=list(step.codes),
                needs_installation=n % 4 == 0,
                needs_transport=n % 3 == 0,
                needs_repair=False,
                quote=parse_money(Decimal(rng.randint(80, 2400)), "EUR", "quote"),
                created_by=sales,
                due_at=_due(n, step.at),
                priority=WorkOrderPriority.RUSH if n == 1 else WorkOrderPriority.NORMAL,
                proof_required=n == PROOF_ORDER,
            ),
        )
        order = made.order
        self.orders[n] = order
        code_of = {id_: code for code, id_ in self.depts.items()}
        for task in await reads.tasks_of_work_orders(conn, [order.id]):
            self.tasks[n, code_of[task.department_id]] = task.id

    async def proof(self, conn: AsyncConnection, step: Step) -> None:
        """Design's proof of the order, as Dee uploads it."""
        file = io.BytesIO(_artwork())
        examined = examine(file, "proof.png", len(file.getvalue()))
        new = NewProof(
            work_order_id=self.orders[step.n].id,
            file_name=examined.file_name,
            media_type=examined.media_type,
            size_bytes=examined.size_bytes,
            sha256=examined.sha256,
            width=examined.width,
            height=examined.height,
            uploaded_by=self.worker("design"),
            any_order=False,
        )
        await add_version(conn, new, file, examined.preview)

    async def post(self, conn: AsyncConnection, step: Step) -> None:
        order = self.orders[step.n]
        quote = Money(order.quote_minor, order.quote_currency)
        kind, amount, memo = {
            "CHARGE": (LedgerEntryKind.CHARGE, quote, "Invoice"),
            "PAYMENT": (LedgerEntryKind.PAYMENT, quote, "Bank transfer"),
            "DEPOSIT": (
                LedgerEntryKind.PAYMENT,
                Money(quote.minor // 2, quote.currency),
                "Deposit",
            ),
            "CREDIT": (LedgerEntryKind.CREDIT, Money(1500, "EUR"), "Goodwill: late delivery"),
        }[str(step.what)]
        content = EntryContent(
            customer_id=order.customer_id,
            work_order_id=order.id,
            kind=kind,
            amount=ledger.signed(kind, amount),
            memo=memo,
        )
        self.posted += 1
        await post_entry(
            conn,
            NewEntry(content, f"demo-{self.posted}", self.users["abe@pressroom.test"]),
        )


def _artwork() -> bytes:
    """A flyer's proof: a headline band, a block of text, a picture."""
    image = Image.new("RGB", (620, 877), (250, 246, 236))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 620, 200), fill=(11, 92, 173))
    draw.rectangle((48, 260, 572, 300), fill=(22, 32, 42))
    for row in range(6):
        draw.rectangle(
            (48, 340 + row * 28, 572 - (row % 3) * 60, 352 + row * 28), fill=(90, 100, 110)
        )
    draw.ellipse((210, 560, 410, 760), fill=(240, 180, 0))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _due(n: int, created: datetime) -> datetime | None:
    """Due dates the first look shows all of: late (six hours after it came in), within the
    day, next week, none."""
    today = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    return [
        created.replace(minute=0, second=0, microsecond=0) + timedelta(hours=6),
        today + timedelta(hours=5),
        today + timedelta(days=7),
        None,
    ][n % 4]
