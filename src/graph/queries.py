"""The Query type. Each field declares who may read it."""

from datetime import UTC, datetime
from typing import Annotated

import strawberry
from graphql import GraphQLError
from strawberry import relay

from api.errors import TopLevelCode, bad_request, not_found
from api.ids import decode_id
from api.version import VERSION
from db import awaiting, reads
from db import flow as db_flow
from db import mail as db_mail
from db import payment_inboxes as db_payment_inboxes
from db import webhooks as db_webhooks
from domain import flow
from domain.enums import DepartmentKind, WorkOrderOrder, WorkOrderPriority, WorkOrderStatus
from domain.errors import DomainError
from domain.outbox import DeliveryStatus
from domain.webhooks import SENDABLE
from domain.words import EVENT_KIND
from domain.workflow import has_queue, kind_choices
from graph import prefetch
from graph.context import Info
from graph.permissions import (
    ADMINS,
    READS_LEDGER,
    READS_LEDGER_TO_FILTER_REFUNDS,
    SALES,
    SEES_QUEUE,
    SEES_QUOTES,
    STAFF,
    allowed,
    passes,
    viewer_of,
)
from graph.types.customers import Customer
from graph.types.departments import Department, DepartmentKindChoice
from graph.types.flow import DepartmentFlow, FlowSummary
from graph.types.ledger import LedgerEntry
from graph.types.mail import MailMessage, MailMessageConnection
from graph.types.pagination import (
    MAX_NODES,
    Before,
    Last,
    QueueSearch,
    Window,
    build_edges,
    by_id,
    decode_order_cursor,
    order_cursor_key,
    search_pattern,
    window,
)
from graph.types.payment_inboxes import PaymentInbox
from graph.types.people import User
from graph.types.proofs import Proof
from graph.types.queues import QUEUE_ORDER, QueueConnection, read_queue
from graph.types.receivables import ReceivablesAgeing
from graph.types.scan import ScanAnswer
from graph.types.scan import answer as scan_answer
from graph.types.tasks import DepartmentTask
from graph.types.tokens import Token, TokenConnection
from graph.types.webhooks import (
    Webhook,
    WebhookDelivery,
    WebhookDeliveryConnection,
    WebhookEventKind,
)
from graph.types.work_orders import WorkOrder, WorkOrderConnection

NODE_TYPES: dict[str, type[relay.Node]] = {
    t.__name__: t
    for t in (WorkOrder, DepartmentTask, Department, User, Customer, LedgerEntry, Token, Proof)
}
# The wall display shows a few; the rest is a count.
AWAITING_LIMIT = 100


FROM = strawberry.argument(name="from", description="The window's start (with a time zone).")
TO = strawberry.argument(name="to", description="The window's end, not included.")


def _pk(id: relay.GlobalID) -> int | None:
    """The key of an id of one of NODE_TYPES; None for any other."""
    return decode_id(id, id.type_name) if id.type_name in NODE_TYPES else None


async def _of_type(info: Info, type_name: str, pks: list[int]) -> list[relay.Node | None]:
    nodes = NODE_TYPES[type_name].resolve_nodes(info=info, node_ids=[str(pk) for pk in pks])
    # Our node types all resolve asynchronously, through the request's dataloaders.
    return list(await nodes)  # type: ignore[misc]


def _window(start: datetime, end: datetime) -> flow.Window:
    try:
        return flow.window(start, end)
    except DomainError as error:
        raise bad_request(error.message) from None


async def _tokens(info: Info, user_id: int | None, page: Window) -> TokenConnection:
    edges, page_info = await by_id(info, page, reads.tokens_page, Token.of, user_id=user_id)
    return TokenConnection(edges=edges, page_info=page_info)


@strawberry.type(description="What can be read. Each field ends with who may ask for it.")
class Query:
    @strawberry.field(
        extensions=allowed(STAFF),
        description="Any object by its id (WorkOrder, DepartmentTask, Department, User, Customer, "
        "LedgerEntry, Token, ...); null for an id that names nothing, or an account or token the "
        "caller may not know of.",
    )
    async def node(
        self,
        info: Info,
        id: Annotated[
            relay.GlobalID,
            strawberry.argument(description="The id of any object that implements Node."),
        ],
    ) -> relay.Node | None:
        pk = _pk(id)
        if pk is None:
            return None
        (node,) = await _of_type(info, id.type_name, [pk])
        return node

    @strawberry.field(
        extensions=allowed(STAFF),
        description=f"The objects with these ids (at most {MAX_NODES}), in their order: "
        "null in place of an id that names nothing or what the caller may not see. Read in "
        "one batch per type.",
    )
    async def nodes(
        self,
        info: Info,
        ids: Annotated[
            list[relay.GlobalID],
            strawberry.argument(description="The ids of any objects that implement Node."),
        ],
    ) -> list[relay.Node | None]:
        if len(ids) > MAX_NODES:
            raise bad_request(f"'ids' holds {len(ids)} ids; at most {MAX_NODES} at once.")
        wanted: dict[str, list[tuple[int, int]]] = {}
        for place, gid in enumerate(ids):
            pk = _pk(gid)
            if pk is not None:
                wanted.setdefault(gid.type_name, []).append((place, pk))
        found: list[relay.Node | None] = [None] * len(ids)
        for type_name, places in wanted.items():
            try:
                nodes = await _of_type(info, type_name, [pk for _, pk in places])
            except GraphQLError as error:
                # A type whose rule the caller fails (`node` says FORBIDDEN): not seen here.
                if (error.extensions or {}).get("code") != TopLevelCode.FORBIDDEN:
                    raise
                continue
            for (place, _), node in zip(places, nodes, strict=True):
                found[place] = node
        return found

    @strawberry.field(description="The signed-in user (null for a wall display token).")
    async def me(self, info: Info) -> User | None:
        if not passes(STAFF, info):
            return None
        row = await info.context.loaders.user.load(viewer_of(info).user_id)
        return User.of(row) if row else None

    @strawberry.field(
        description="The API's version (semantic versioning, as on the server's GET /version): "
        "its major part moves with every breaking change, which the changelog names."
    )
    def api_version(self) -> str:
        return VERSION

    @strawberry.field(
        extensions=allowed(STAFF),
        description="Every department in route order: production ones after those they "
        "follow (ties by name), then delivery, then Sales and Accounts.",
    )
    async def departments(self, info: Info) -> list[Department]:
        return [Department.of(r) for r in await info.context.loaders.all_departments()]

    @strawberry.field(
        extensions=allowed(ADMINS),
        description="The kinds a new department may be given now (createDepartment), with "
        "whether each may gate delivery and does by default.",
    )
    async def department_kinds(self, info: Info) -> list[DepartmentKindChoice]:
        existing = [d.kind for d in await info.context.loaders.all_departments()]
        return [DepartmentKindChoice.of(c) for c in kind_choices(existing)]

    @strawberry.field(extensions=allowed(ADMINS), description="Every user, oldest first.")
    async def users(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        last: Last = None,
        before: Before = None,
    ) -> relay.Connection[User]:
        page = window(first, after, last, before)
        edges, page_info = await by_id(info, page, reads.users_page, User.of)
        return relay.Connection(edges=edges, page_info=page_info)

    @strawberry.field(
        extensions=allowed(STAFF),
        description="The caller's own tokens (sessions, API tokens, displays made), newest first.",
    )
    async def my_tokens(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        last: Last = None,
        before: Before = None,
    ) -> TokenConnection:
        return await _tokens(info, viewer_of(info).user_id, window(first, after, last, before))

    @strawberry.field(extensions=allowed(ADMINS), description="Every token, newest first.")
    async def tokens(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        last: Last = None,
        before: Before = None,
    ) -> TokenConnection:
        return await _tokens(info, None, window(first, after, last, before))

    @strawberry.field(
        extensions=allowed(ADMINS),
        description="The kinds of events a webhook may send, in words, for a form to offer.",
    )
    def webhook_event_kinds(self) -> list[WebhookEventKind]:
        return [WebhookEventKind(kind=k, label=EVENT_KIND[k]) for k in SENDABLE]

    @strawberry.field(extensions=allowed(ADMINS), description="Every payment inbox, oldest first.")
    async def payment_inboxes(self, info: Info) -> list[PaymentInbox]:
        async with info.context.read() as conn:
            return [PaymentInbox.of(row) for row in await db_payment_inboxes.everyone(conn)]

    @strawberry.field(extensions=allowed(ADMINS), description="Every webhook, oldest first.")
    async def webhooks(self, info: Info) -> list[Webhook]:
        async with info.context.read() as conn:
            return [Webhook.of(row) for row in await db_webhooks.everyone(conn)]

    @strawberry.field(
        extensions=allowed(ADMINS),
        description="A webhook's deliveries, newest first; with `status`, only those.",
    )
    async def webhook_deliveries(
        self,
        info: Info,
        webhook_id: Annotated[
            relay.GlobalID, strawberry.argument(description="The webhook whose deliveries to list.")
        ],
        status: Annotated[
            DeliveryStatus | None,
            strawberry.argument(description="Only the deliveries in this state."),
        ] = None,
        first: int | None = None,
        after: str | None = None,
        last: Last = None,
        before: Before = None,
    ) -> WebhookDeliveryConnection:
        pk = decode_id(webhook_id, "Webhook")
        if pk is None:
            raise bad_request("'webhookId' is not the id of a webhook.")
        page = window(first, after, last, before)
        edges, page_info = await by_id(
            info,
            page,
            db_webhooks.deliveries_page,
            WebhookDelivery.of,
            webhook_id=pk,
            status=status,
        )
        return WebhookDeliveryConnection(edges=edges, page_info=page_info)

    @strawberry.field(
        extensions=allowed(ADMINS),
        description="The emails the shop sent or is sending, newest first; with `status`, "
        "only those (DEAD: the ones that never went, and why).",
    )
    async def mail_messages(
        self,
        info: Info,
        status: Annotated[
            DeliveryStatus | None, strawberry.argument(description="Only the emails in this state.")
        ] = None,
        first: int | None = None,
        after: str | None = None,
        last: Last = None,
        before: Before = None,
    ) -> MailMessageConnection:
        page = window(first, after, last, before)
        edges, page_info = await by_id(
            info, page, db_mail.messages_page, MailMessage.of, status=status
        )
        return MailMessageConnection(edges=edges, page_info=page_info)

    @strawberry.field(
        extensions=allowed(STAFF), description="A work order by its id; null for an unknown id."
    )
    async def work_order(
        self,
        info: Info,
        id: Annotated[relay.GlobalID, strawberry.argument(description="The work order's id.")],
    ) -> WorkOrder | None:
        pk = decode_id(id, "WorkOrder")
        row = await info.context.loaders.work_order.load(pk) if pk else None
        return WorkOrder.of(row) if row else None

    @strawberry.field(
        extensions=allowed(STAFF),
        description="Newest first, or by `orderBy: DUE_AT` the earliest due date first "
        "(orders without one last). Every filter given must hold.",
    )
    async def work_orders(
        self,
        info: Info,
        status: Annotated[
            WorkOrderStatus | None, strawberry.argument(description="Only orders in this status.")
        ] = None,
        customer_id: Annotated[
            relay.GlobalID | None, strawberry.argument(description="Only this customer's orders.")
        ] = None,
        search: Annotated[
            str | None,
            strawberry.argument(description="Part of the order number or customer name."),
        ] = None,
        late: Annotated[
            bool | None,
            strawberry.argument(description="Late orders only (`isLate`), or none of them."),
        ] = None,
        held: Annotated[
            bool | None,
            strawberry.argument(description="Orders on hold only, or none of them."),
        ] = None,
        priority: Annotated[
            WorkOrderPriority | None,
            strawberry.argument(description="Only orders of this priority."),
        ] = None,
        due_before: Annotated[
            datetime | None,
            strawberry.argument(
                description="Due before this moment (orders with no due date are left out)."
            ),
        ] = None,
        order_by: Annotated[
            WorkOrderOrder, strawberry.argument(description="How to sort the orders.")
        ] = WorkOrderOrder.CREATED_AT,
        first: int | None = None,
        after: str | None = None,
        last: Last = None,
        before: Before = None,
    ) -> WorkOrderConnection:
        page = window(first, after, last, before)
        by_due = order_by is WorkOrderOrder.DUE_AT
        key = decode_order_cursor(page, by_due)
        customer_pk = decode_id(customer_id, "Customer") if customer_id else None
        if customer_id is not None and customer_pk is None:
            raise bad_request("'customerId' is not the id of a Customer.")
        if due_before is not None and due_before.tzinfo is None:
            raise bad_request("'dueBefore' needs a time zone (an offset or Z).")
        where = reads.OrderFilter(
            status=status.value if status else None,
            customer_id=customer_pk,
            search=search_pattern(search),
            priority=priority.value if priority else None,
            held=held,
            late=late,
            due_before=due_before,
        )
        async with info.context.read() as conn:
            rows = await reads.work_orders_page(
                conn,
                limit=page.limit + 1,
                by_due=by_due,
                after=key,
                backward=page.backward,
                where=where,
            )
        edges, page_info = build_edges(
            rows, page, lambda r: order_cursor_key(r, by_due), WorkOrder.of
        )
        await prefetch.work_orders(info, [e.node.id for e in edges])
        return WorkOrderConnection(edges=edges, page_info=page_info, _where=where)

    @strawberry.field(
        extensions=allowed(SEES_QUEUE),
        description=QUEUE_ORDER,
    )
    async def queue(
        self,
        info: Info,
        department: Annotated[str, strawberry.argument(description="The department's code.")],
        first: int | None = None,
        after: str | None = None,
        search: QueueSearch = None,
        last: Last = None,
        before: Before = None,
    ) -> QueueConnection:
        page = window(first, after, last, before)
        dept = (await info.context.loaders.department_codes()).get(department)
        if dept is None:
            raise not_found(f"No department has the code '{department}'.")
        return await read_queue(info, dept.id, page, search)

    @strawberry.field(
        extensions=allowed(SEES_QUEUE),
        description="The department's tasks that wait for the customer to approve their "
        "order's latest proof (awaitsProof; some wait for other departments too): work its "
        "queue will get. Orders on hold are left out; the earliest due date first, at most "
        "100. Not every change to it is a queue event (a new order, an approval while other "
        "work still holds the task): read it again after the queue's gate events, and now "
        "and then.",
    )
    async def awaiting_proof(
        self,
        info: Info,
        department: Annotated[str, strawberry.argument(description="The department's code.")],
    ) -> list[DepartmentTask]:
        dept = (await info.context.loaders.department_codes()).get(department)
        if dept is None:
            raise not_found(f"No department has the code '{department}'.")
        async with info.context.read() as conn:
            rows = await awaiting.awaiting_proof(conn, dept.id, AWAITING_LIMIT)
        return [DepartmentTask.of(r) for r in rows]

    @strawberry.field(
        extensions=allowed(ADMINS),
        description="STARTED tasks untouched for PRESSROOM_STALE_AFTER_HOURS (their "
        "TASK_STALE timer fired for their current start), oldest first: for an admin to "
        "release or ask after.",
    )
    async def stale_tasks(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        last: Last = None,
        before: Before = None,
    ) -> relay.Connection[DepartmentTask]:
        page = window(first, after, last, before)
        edges, page_info = await by_id(info, page, reads.stale_tasks_page, DepartmentTask.of)
        return relay.Connection(edges=edges, page_info=page_info)

    @strawberry.field(
        extensions=allowed(STAFF),
        description="A job ticket scanned (or an order number typed) at the queues: the "
        "caller's task on that order and the move to make now, or why there is none. `code` "
        "is the order number, or the order page's address its QR code holds.",
    )
    async def scan(
        self,
        info: Info,
        code: Annotated[
            str,
            strawberry.argument(
                description="What was scanned: an order number (any case) or the address its QR "
                "code holds."
            ),
        ],
    ) -> ScanAnswer:
        return await scan_answer(info, viewer_of(info), code)

    @strawberry.field(
        extensions=allowed(SALES),
        description="How work flowed through one department in [from, to) (DepartmentFlow).",
    )
    async def department_flow(
        self,
        info: Info,
        department: Annotated[str, strawberry.argument(description="The department's code.")],
        start: Annotated[datetime, FROM],
        end: Annotated[datetime, TO],
    ) -> DepartmentFlow:
        window = _window(start, end)
        dept = (await info.context.loaders.department_codes()).get(department)
        if dept is None or not has_queue(DepartmentKind(dept.kind)):
            raise bad_request(f"{department!r} is not the code of a department with tasks.")
        zone = info.context.services.time_zone
        async with info.context.read() as conn:
            (figures,) = await db_flow.department_flow(conn, window, [dept.id], zone)
        return DepartmentFlow.of(figures)

    @strawberry.field(
        extensions=allowed(SALES),
        description="Every department's flow in [from, to), on-time delivery and lead time.",
    )
    async def flow_summary(
        self, info: Info, start: Annotated[datetime, FROM], end: Annotated[datetime, TO]
    ) -> FlowSummary:
        window = _window(start, end)
        departments = (await info.context.loaders.department_codes()).values()
        ids = [d.id for d in departments if has_queue(DepartmentKind(d.kind))]
        zone = info.context.services.time_zone
        async with info.context.read() as conn:
            figures = await db_flow.department_flow(conn, window, ids, zone)
            orders = await db_flow.order_flow(conn, window)
        return FlowSummary.of(window, figures, orders)

    @strawberry.field(
        extensions=allowed(READS_LEDGER),
        description="What customers owe now, per currency, and for how long (by each "
        "one's oldest unpaid charge: up to 30 days, 31-60, 61-90, over 90); largest "
        "balance first.",
    )
    async def receivables_ageing(self, info: Info) -> ReceivablesAgeing:
        async with info.context.read() as conn:
            rows = await reads.receivables_ageing(conn)
        return ReceivablesAgeing.of(rows, datetime.now(UTC))

    @strawberry.field(
        extensions=allowed(SEES_QUOTES, READS_LEDGER_TO_FILTER_REFUNDS),
        description="Customers, oldest first; `search` and `refundDue` narrow them.",
    )
    async def customers(
        self,
        info: Info,
        search: Annotated[
            str | None,
            strawberry.argument(
                description="Only customers whose name contains this text (any case)."
            ),
        ] = None,
        first: int | None = None,
        after: str | None = None,
        refund_due: Annotated[
            bool | None,
            strawberry.argument(
                description="true: only customers owed money back on a cancelled order "
                "(WorkOrder.refundDue); false: only those who are not. Accounts only."
            ),
        ] = None,
        last: Last = None,
        before: Before = None,
    ) -> relay.Connection[Customer]:
        page = window(first, after, last, before)
        edges, page_info = await by_id(
            info,
            page,
            reads.customers_page,
            Customer.of,
            search=search_pattern(search),
            refund_due=refund_due,
        )
        return relay.Connection(edges=edges, page_info=page_info)

    @strawberry.field(
        extensions=allowed(STAFF), description="A customer by its id; null for an unknown id."
    )
    async def customer(
        self,
        info: Info,
        id: Annotated[relay.GlobalID, strawberry.argument(description="The customer's id.")],
    ) -> Customer | None:
        pk = decode_id(id, "Customer")
        row = await info.context.loaders.customer.load(pk) if pk else None
        return Customer.of(row) if row else None
