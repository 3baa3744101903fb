"""Answers to queries kept, and served again only while the database reads as it did.

An answer is a function of the database, the document, its variables and who asks, but
for the fields that read the clock (`WorkOrder.isLate`, a task's `inQueue`, a token's
`expired`, the flow figures...): those change with no change to the database. So an
answer is kept only when every field its document selects is one of READS_DATABASE_ALONE,
read from the code of each (a test checks that none of their resolvers asks the time).

Before a kept answer's reads, the server takes the database's snapshot (db/events.py);
a request for the same document, variables and viewer's rights (`Viewer.rights`: what the
access rules read of the viewer; the person too, for a document with a field whose rules
read who asks, NAMES_THE_PERSON) gets the kept answer only if the database's snapshot
then shows that no transaction has completed since: one round trip instead of the page's
statements. Any commit, of any process and of any kind (an event or not: a customer
renamed, a sign-in counted, a timer fired), turns every kept answer away on its next use,
so an answer is never older than a read that finished before it began, and a client
reads its own writes.
An answer read again replaces the kept one, with the snapshot taken before it. Requests
that find the same answer being read from the database as it is now wait for it rather
than read it too: after a commit, every client of a busy screen asks at once.

Kept answers are JSON, at most PRESSROOM_READ_CACHE_MB of them in each process, the least
recently used let go first; PRESSROOM_READ_CACHE=false keeps none.
"""

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import orjson
from graphql import (
    DocumentNode,
    ExecutionResult,
    FieldNode,
    GraphQLSchema,
    TypeInfo,
    TypeInfoVisitor,
    Visitor,
    visit,
)
from strawberry.extensions import SchemaExtension
from strawberry.types.graphql import OperationType

from api.metrics import Metrics
from db.engine import unavailable
from db.events import Snapshot, snapshot_now
from graph.bounded import Bounded
from graph.documents import DOCUMENTS
from graph.keeping import Keeping

# Fields whose value is the database's alone, by type. The answers to documents that ask
# for anything else are not kept.
READS_DATABASE_ALONE: dict[str, frozenset[str]] = {
    "Query": frozenset(
        {"workOrders", "workOrder", "node", "nodes", "customer", "customers", "departments", "me"}
    ),
    "Node": frozenset({"id"}),
    "WorkOrderConnection": frozenset({"edges", "pageInfo", "totalCount"}),
    "WorkOrderEdge": frozenset({"cursor", "node"}),
    "CustomerConnection": frozenset({"edges", "pageInfo"}),
    "CustomerEdge": frozenset({"cursor", "node"}),
    "PageInfo": frozenset({"endCursor", "hasNextPage", "hasPreviousPage", "startCursor"}),
    "WorkOrder": frozenset(
        {
            "id",
            "orderNumber",
            "status",
            "priority",
            "quote",
            "customer",
            "createdBy",
            "createdAt",
            "updatedAt",
            "completedAt",
            "dueAt",
            "version",
            "history",
            "deliveryTask",
            "tasks",
            "needsInstallation",
            "needsRepair",
            "needsTransport",
            "proofRequired",
        }
    ),
    "Money": frozenset({"amount", "currency"}),
    "Customer": frozenset({"id", "name", "email", "phone", "contactName", "address", "notes"}),
    "Address": frozenset({"given", "lines", "postcode", "city", "country"}),
    "User": frozenset({"id", "name", "email", "isAdmin", "isActive", "departments"}),
    "Department": frozenset({"id", "code", "name", "kind", "hasQueue", "gatesDelivery"}),
    "DepartmentTask": frozenset(
        {
            "id",
            "status",
            "availableAt",
            "startedAt",
            "completedAt",
            "department",
            "pickedUpBy",
            "history",
            "version",
            "workOrder",
        }
    ),
    "WorkOrderTransition": frozenset(
        {"action", "actor", "occurredAt", "reason", "fromState", "toState", "bySystem"}
    ),
    "TaskTransition": frozenset(
        {"action", "actor", "occurredAt", "reason", "fromStatus", "toStatus"}
    ),
}
# Arguments that bring the clock in (`late`: due before now): a field given one is not kept.
CLOCK_ARGUMENTS: dict[tuple[str, str], frozenset[str]] = {
    ("Query", "workOrders"): frozenset({"late"}),
}
# Fields whose answer depends on who is asking, not only on their rights: the person
# asking, a person's account by id (themselves, or who shares a department), a person's
# private fields (themselves and admins). A test checks the kept fields' rules against it.
NAMES_THE_PERSON = frozenset(
    {
        ("Query", "me"),
        ("Query", "node"),
        ("Query", "nodes"),
        ("User", "email"),
        ("User", "isAdmin"),
    }
)
# Beyond its answer, what an entry holds: the key's tuple, the snapshot, the entry.
ENTRY_OVERHEAD = 400
# A shop's screens ask for hundreds of distinct pages; each entry is a few objects that a
# full collection of the garbage collector walks, so there are never many.
MAX_ENTRIES = 10_000


def keeping(schema: GraphQLSchema, text: str | None, document: DocumentNode) -> Keeping:
    """NEVER unless every field the document selects is one of READS_DATABASE_ALONE, with
    no clock argument; BY_PERSON if one is in NAMES_THE_PERSON. Kept with an accepted
    document."""
    accepted = DOCUMENTS.of(text, document)
    if accepted is not None and accepted.keeping is not None:
        return accepted.keeping
    types = TypeInfo(schema)
    found = Keeping.BY_RIGHTS

    class Fields(Visitor):
        def enter_field(self, node: FieldNode, *_: Any) -> None:
            nonlocal found
            parent = types.get_parent_type()
            name = node.name.value
            if name == "__typename" or found is Keeping.NEVER:
                return
            if (
                parent is None
                or name not in READS_DATABASE_ALONE.get(parent.name, ())
                or any(
                    argument.name.value in CLOCK_ARGUMENTS.get((parent.name, name), ())
                    for argument in node.arguments or ()
                )
            ):
                found = Keeping.NEVER
            elif (parent.name, name) in NAMES_THE_PERSON:
                found = Keeping.BY_PERSON

    visit(document, TypeInfoVisitor(types, Fields()))
    if accepted is not None:
        accepted.keeping = found
    return found


@dataclass(frozen=True, slots=True)
class Kept:
    snapshot: Snapshot
    answer: bytes
    weight: int


Key = tuple[str, str | None, bytes, tuple[object, ...]]


@dataclass(slots=True)
class Reading:
    """An answer being read, from the database as it was at `snapshot`: the JSON, or None
    when it ends without an answer to keep; and how many requests wait for it."""

    snapshot: Snapshot
    answer: "asyncio.Future[bytes | None]"
    waiting: int = 0


class ReadCache(Bounded[Key, Kept]):
    """One process's kept answers, at most `size` bytes of them, the answers being read,
    and how the answers it could have given went: served again (`kept`), shared with a
    request that was reading it (`shared`), or read from the database (`read`)."""

    def __init__(self, size: int) -> None:
        super().__init__(MAX_ENTRIES, size, lambda kept: kept.weight)
        self.reading: dict[Key, Reading] = {}
        self.counts: Counter[str] = Counter()

    def expose(self, metrics: Metrics) -> None:
        """What /metrics shows of the read cache."""
        metrics.outcomes(
            "pressroom_read_cache_answers",
            "Answers to queries that read the database alone since start, by how they "
            "were made: kept (served again, the database unchanged), shared (with a "
            "request reading it from the same database) or read.",
            self.counts,
            ("kept", "shared", "read"),
            label="answer",
        )
        metrics.function(
            "pressroom_read_cache_waiting",
            "Requests waiting for an answer another request is reading.",
            lambda: sum(reading.waiting for reading in self.reading.values()),
        )
        metrics.function(
            "pressroom_read_cache_bytes",
            "What the kept answers weigh (their JSON, their keys and about 400 bytes each).",
            lambda: self.weight,
        )


class CachedReads(SchemaExtension):
    """A query whose answer is kept and still what the database says is answered with it,
    or with the answer a request is reading from the database as it is now; any other
    query that reads the database alone is executed and its answer kept."""

    async def on_execute(self) -> AsyncIterator[None]:
        ctx = self.execution_context
        context = ctx.context
        cache: ReadCache | None = getattr(getattr(context, "services", None), "read_cache", None)
        document = ctx.graphql_document
        viewer = context.viewer
        # Callers without a token have nothing worth keeping (`me` is null to them), and a
        # stream of their requests must neither cost a round trip each nor push the floor's
        # answers out.
        if (
            cache is None
            or viewer is None
            or ctx.query is None
            or document is None
            or ctx.operation_type is not OperationType.QUERY
        ):
            yield
            return
        kept_for = keeping(ctx.schema._schema, ctx.query, document)
        if kept_for is Keeping.NEVER:
            yield
            return
        try:
            variables = orjson.dumps(ctx.variables or {}, option=orjson.OPT_SORT_KEYS)
        except TypeError:
            # A file among them (a multipart request): no read to keep.
            yield
            return
        scope = viewer.scope if kept_for is Keeping.BY_PERSON else viewer.rights
        key: Key = (ctx.query, ctx.operation_name, variables, scope)
        kept = cache.get(key)
        try:
            async with context.read() as conn:
                now = await snapshot_now(conn)
        except Exception as error:
            # The execution meets the outage itself, and answers it as every request does
            # (503); raised from here it would be a bad request.
            if not unavailable(error):
                raise
            yield
            return
        if kept is not None and kept.snapshot.unchanged_at(now):
            cache.counts["kept"] += 1
            ctx.result = ExecutionResult(orjson.loads(kept.answer), None)
            yield
            return
        # A request reading this answer from the database as it is now: its answer is
        # this one's (or newer, committed while this one waits).
        reading = cache.reading.get(key)
        if reading is not None and reading.snapshot.unchanged_at(now):
            reading.waiting += 1
            try:
                answer = await asyncio.shield(reading.answer)
            finally:
                reading.waiting -= 1
            if answer is not None:
                cache.counts["shared"] += 1
                ctx.result = ExecutionResult(orjson.loads(answer), None)
                yield
                return
        cache.counts["read"] += 1
        mine = cache.reading[key] = Reading(now, asyncio.get_running_loop().create_future())
        answer = None
        try:
            yield
            result = ctx.result
            if (
                isinstance(result, ExecutionResult)
                and not result.errors
                and result.data is not None
            ):
                answer = orjson.dumps(result.data)
                weight = len(answer) + len(variables) + len(ctx.query) + ENTRY_OVERHEAD
                cache.put(key, Kept(now, answer, weight))
        finally:
            mine.answer.set_result(answer)
            if cache.reading.get(key) is mine:
                del cache.reading[key]
