"""The WorkOrder type, the aggregate the floor works on, and a page of work orders. Its
parts have modules of their own: its tasks (tasks.py), history (work_order_history.py),
hold and progress (work_order_standing.py), job ticket (job_tickets.py), and who may use
each of its commands (work_order_commands.py)."""

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, cast

import strawberry
from strawberry import relay
from strawberry.scalars import JSON

from api.links import order_url, qr_svg
from db import customer_links
from db import mail as db_mail
from db.people import facts
from db.reads import OrderFilter, work_orders_count
from db.rows import WorkOrderRow
from domain import ledger
from domain.due import completed_at, paper_due
from domain.enums import (
    DepartmentKind,
    LedgerEntryKind,
    ProofStatus,
    TaskStatus,
    WorkOrderCommand,
    WorkOrderPriority,
    WorkOrderStatus,
)
from domain.jobs import detail_lines, job_line, read_job
from domain.money import Money as DomainMoney
from domain.transitions import is_late, order_commands
from domain.workflow import addable, progress
from graph.context import Info
from graph.loaders import now_or_later
from graph.permissions import READS_LEDGER, SALES, SEES_QUOTES, STAFF, allowed, passes
from graph.prefetch import read_ahead
from graph.types.customer_links import CustomerLink
from graph.types.customers import Customer
from graph.types.departments import Department
from graph.types.job_tickets import JobTicket
from graph.types.jobs import DetailLine, Job
from graph.types.loading import nodes_of, required
from graph.types.mail import MailMessage
from graph.types.money import Money
from graph.types.people import User, user_or_none
from graph.types.proofs import Proof
from graph.types.tasks import DepartmentTask
from graph.types.work_order_commands import ORDER_RULES, offered
from graph.types.work_order_history import WorkOrderTransition, seen_history
from graph.types.work_order_standing import Hold, Progress

if TYPE_CHECKING:
    from graph.types.ledger import LedgerEntry


@strawberry.type(
    description="A customer's job as the shop runs it: one task per department it passes through, "
    "from Sales to delivery."
)
class WorkOrder(relay.Node):
    id: relay.NodeID[int]
    order_number: str = strawberry.field(
        description="The shop's number for the order (unique, printed on its job ticket)."
    )
    needs_installation: bool = strawberry.field(
        description="Whether delivery includes installing the job."
    )
    needs_transport: bool = strawberry.field(
        description="Whether it is delivered rather than picked up."
    )
    needs_repair: bool = strawberry.field(description="Whether it includes a repair.")
    status: WorkOrderStatus = strawberry.field(description="Where the order stands.")
    version: int = strawberry.field(description="Increments on every change of the work order.")
    created_at: datetime = strawberry.field(description="When it was taken.")
    updated_at: datetime = strawberry.field(description="When it last changed.")
    _customer_id: strawberry.Private[int]
    _created_by: strawberry.Private[int | None]
    _quote: strawberry.Private[DomainMoney | None]
    _imported_closed: strawberry.Private[bool]
    _details: strawberry.Private[dict[str, Any]]
    due_at: datetime | None = strawberry.field(
        description="When the customer expects it; null for no date."
    )
    priority: WorkOrderPriority = strawberry.field(
        description="RUSH orders come first in every queue."
    )
    hold: Hold | None = strawberry.field(
        description="Set while the order is on hold: its pending tasks are out of every "
        "queue (started ones may finish). The order stays ACTIVE."
    )
    proof_required: bool = strawberry.field(
        description="Its tasks of departments that need an approved proof wait until the "
        "customer approves its latest proof version."
    )
    completed_at: datetime | None = strawberry.field(
        description="When it was completed, while it is COMPLETED (null otherwise): with "
        "dueAt, whether it was done on time."
    )

    @classmethod
    def of(cls, row: WorkOrderRow) -> "WorkOrder":
        return cls(
            id=row.id,
            order_number=row.order_number,
            _details=row.details,
            needs_installation=row.needs_installation,
            needs_transport=row.needs_transport,
            needs_repair=row.needs_repair,
            status=row.status,
            version=row.version,
            created_at=row.created_at,
            updated_at=row.updated_at,
            _customer_id=row.customer_id,
            _created_by=row.created_by,
            _quote=DomainMoney(row.quote_minor, row.quote_currency)
            if row.quote_minor is not None and row.quote_currency is not None
            else None,
            _imported_closed=row.imported_closed,
            due_at=row.due_at,
            priority=row.priority,
            hold=Hold.of(row),
            proof_required=row.proof_required,
            completed_at=completed_at(WorkOrderStatus(row.status), row.last_completed_at),
        )

    @strawberry.field(description="Not completed, not cancelled, and its due date passed.")
    def is_late(self) -> bool:
        return is_late(WorkOrderStatus(self.status), self.due_at, datetime.now(UTC))

    @strawberry.field(
        description="What the caller may ask of this work order now (its tasks' moves are "
        "DepartmentTask.allowedActions): the buttons a screen shows."
    )
    async def allowed_actions(self, info: Info) -> list[WorkOrderCommand]:
        held = self.hold is not None
        versions = await info.context.loaders.proofs_of_work_order.load(self.id)
        latest = ProofStatus(versions[0].status) if versions else None
        status = WorkOrderStatus(self.status)
        # The ledger only for those who may charge the quote: what it charged decides it.
        charging = self._quote is not None and passes(
            ORDER_RULES[WorkOrderCommand.CHARGE_QUOTE], info
        )
        charged = await self._sums(info, ledger.CHARGED_KINDS) if charging else []
        now = order_commands(status, self._imported_closed, held, self._quote, latest, charged)
        return await offered(info, self.id, now)

    @strawberry.field(
        description="A JSON object (not for wall displays: see jobLine).",
        extensions=allowed(STAFF),
    )
    def details(self) -> JSON:
        return cast(JSON, self._details)

    @strawberry.field(
        description="The job's fields, typed, as `details` holds them.",
        extensions=allowed(STAFF),
    )
    def job(self) -> Job:
        return Job(**read_job(self._details))

    @strawberry.field(
        description="The links that show this order's page to its customer, newest first.",
        extensions=allowed(SALES),
    )
    async def customer_links(self, info: Info) -> list[CustomerLink]:
        async with info.context.read() as conn:
            rows = await customer_links.of_work_orders(
                conn, [self.id], info.context.services.customer_link_days
            )
        return [CustomerLink.of(r) for r in rows]

    @strawberry.field(
        description="The emails about this order (to its customer, and to Sales), newest first.",
        extensions=allowed(SALES),
    )
    async def mail_messages(self, info: Info) -> list[MailMessage]:
        async with info.context.read() as conn:
            rows = await db_mail.of_work_orders(conn, [self.id])
        return [MailMessage.of(r) for r in rows]

    @strawberry.field(
        description="One short line saying what the job is, from its details (a title, the "
        "product and quantity, the first line item, or the notes)."
    )
    def job_line(self) -> str | None:
        return job_line(self._details)

    @strawberry.field(
        description="Its job ticket's link and QR code (the page's address under "
        "PRESSROOM_PUBLIC_URL).",
        extensions=allowed(STAFF),
    )
    def ticket(self, info: Info) -> JobTicket:
        url = order_url(info.context.services.public_url, self.id)
        zone = info.context.services.time_zone
        due = paper_due(WorkOrderStatus(self.status), self.due_at, self.completed_at, zone)
        return JobTicket(url=url, qr_svg=qr_svg(url), due=due, _work_order_id=self.id)

    @strawberry.field(
        description="Every detail as a label and a value in words, in the order of `details` "
        '("paperType" reads "Paper type"; a list or an object as JSON): for screens and job '
        "tickets.",
        extensions=allowed(STAFF),
    )
    def detail_lines(self) -> list[DetailLine]:
        return [
            DetailLine(label=label, value=value) for label, value in detail_lines(self._details)
        ]

    @strawberry.field(
        description="The price offered to the customer; null when none is set. Never "
        "posted to the ledger.",
        extensions=allowed(SEES_QUOTES),
    )
    def quote(self) -> Money | None:
        return None if self._quote is None else Money.of_domain(self._quote)

    @strawberry.field(
        description="Ledger entries posted against this order, newest first.",
        extensions=allowed(READS_LEDGER),
    )
    async def ledger(
        self, info: Info
    ) -> list[Annotated["LedgerEntry", strawberry.lazy("graph.types.ledger")]]:
        from graph.types.ledger import LedgerEntry

        return [
            LedgerEntry.of(r) for r in await info.context.loaders.work_order_ledger.load(self.id)
        ]

    @strawberry.field(
        description="Charged against this order (CHARGE less CREDIT), per currency.",
        extensions=allowed(READS_LEDGER),
    )
    async def charged(self, info: Info) -> list[Money]:
        return await self._total(info, ledger.CHARGED_KINDS)

    @strawberry.field(
        description="Paid against this order (PAYMENT less REFUND), per currency.",
        extensions=allowed(READS_LEDGER),
    )
    async def paid(self, info: Info) -> list[Money]:
        return await self._total(info, ledger.PAID_KINDS)

    @strawberry.field(
        description="Cancelled with money paid: what the customer is owed back, per currency "
        "(paid less what was credited beyond the charges), until REFUND or CREDIT entries "
        "against this order settle it. Empty when nothing is due or the order is not "
        "cancelled.",
        extensions=allowed(READS_LEDGER),
    )
    async def refund_due(self, info: Info) -> list[Money]:
        rows = await info.context.loaders.work_order_refunds_due.load(self.id)
        return [Money.of_domain(DomainMoney(r.minor, r.currency)) for r in rows]

    async def _total(self, info: Info, kinds: tuple[LedgerEntryKind, ...]) -> list[Money]:
        return [Money.of_domain(m) for m in await self._sums(info, kinds)]

    async def _sums(self, info: Info, kinds: tuple[LedgerEntryKind, ...]) -> list[DomainMoney]:
        rows = await info.context.loaders.work_order_ledger.load(self.id)
        entries = [(LedgerEntryKind(r.kind), DomainMoney(r.amount_minor, r.currency)) for r in rows]
        return ledger.total(entries, kinds)

    @strawberry.field(metadata=read_ahead("customers"), description="The customer it is for.")
    def customer(self, info: Info) -> Customer:
        return now_or_later(
            info.context.loaders.customer.load(self._customer_id),
            lambda r: required(r, Customer.of),
        )

    @strawberry.field(
        extensions=allowed(STAFF),
        metadata=read_ahead("creators"),
        description="Who took the order; null for an imported one.",
    )
    def created_by(self, info: Info) -> User | None:
        return user_or_none(info, self._created_by)

    @strawberry.field(
        description="One task per production department, then the delivery task, in route "
        "order: a department after those it follows (also through departments the order "
        "lacks), ties by name.",
        extensions=allowed(STAFF),
        metadata=read_ahead("tasks"),
    )
    def tasks(self, info: Info) -> list[DepartmentTask]:
        return now_or_later(
            info.context.loaders.tasks_of_work_order.load(self.id),
            lambda rows: [DepartmentTask.of(r) for r in rows],
        )

    @strawberry.field(
        extensions=allowed(STAFF),
        metadata=read_ahead("tasks"),
        description="How many of its tasks are done.",
    )
    def progress(self, info: Info) -> Progress:
        return now_or_later(
            info.context.loaders.tasks_of_work_order.load(self.id),
            lambda rows: Progress.of(progress(TaskStatus(r.status) for r in rows)),
        )

    @strawberry.field(
        extensions=allowed(STAFF),
        description="The production departments it has no task of (but a removed one), in "
        "route order: what "
        "addWorkOrderDepartment can add while CHANGE_DEPARTMENTS is allowed.",
    )
    async def addable_departments(self, info: Info) -> list[Department]:
        loaders = info.context.loaders
        rows = await loaders.tasks_of_work_order.load(self.id)
        every = await loaders.all_departments()
        ids = addable(
            [facts(d) for d in every],
            [(r.department_id, TaskStatus(r.status)) for r in rows],
        )
        return [Department.of(d) for d in every if d.id in ids]

    @strawberry.field(
        extensions=allowed(STAFF), metadata=read_ahead("tasks"), description="Its delivery task."
    )
    def delivery_task(self, info: Info) -> DepartmentTask:
        return now_or_later(
            info.context.loaders.tasks_of_work_order.load(self.id),
            lambda rows: next(
                DepartmentTask.of(r) for r in rows if r.department_kind == DepartmentKind.DELIVERY
            ),
        )

    @strawberry.field(
        description="Status changes, delivery gate openings/closings and, for Sales, "
        "Accounts and admins, quote changes (QUOTE_CHANGED: fromState and toState are "
        "the old and new quote, e.g. '120.00 EUR', or NONE).",
        extensions=allowed(STAFF),
        metadata=read_ahead("history"),
    )
    def history(self, info: Info) -> list[WorkOrderTransition]:
        return now_or_later(
            info.context.loaders.work_order_history.load(self.id),
            lambda rows: seen_history(info, rows),
        )

    @strawberry.field(description="Its proof versions, newest first.", extensions=allowed(STAFF))
    def proofs(self, info: Info) -> list[Proof]:
        return now_or_later(
            info.context.loaders.proofs_of_work_order.load(self.id),
            lambda rows: [Proof.of(r) for r in rows],
        )

    @strawberry.field(
        description="Its newest proof version (the one a decision is about); null for none.",
        extensions=allowed(STAFF),
    )
    def latest_proof(self, info: Info) -> Proof | None:
        return now_or_later(
            info.context.loaders.proofs_of_work_order.load(self.id),
            lambda rows: Proof.of(rows[0]) if rows else None,
        )

    @classmethod
    async def resolve_nodes(  # type: ignore[override]
        cls, *, info: Info, node_ids: Iterable[str], required: bool = False
    ) -> list["WorkOrder | None"]:
        return await nodes_of(cls.of, info.context.loaders.work_order, node_ids)


@strawberry.type(description="A page of work orders (a Relay connection).")
class WorkOrderConnection(relay.Connection[WorkOrder]):
    _where: strawberry.Private[OrderFilter]

    @strawberry.field(
        description="How many orders match every filter given, counted only for one "
        "customer's orders (with `customerId`: few, and indexed); null otherwise, as "
        "counting every order would read them all."
    )
    async def total_count(self, info: Info) -> int | None:
        if self._where.customer_id is None:
            return None
        async with info.context.read() as conn:
            return await work_orders_count(conn, self._where)
