"""The documents the server has accepted, kept by the query text they were parsed from.

A document is kept only once it has passed the limits (graph/shape.py) and validation:
a refused one (it does not parse, is over a limit, or does not validate) is parsed again
each time it comes, so no stream of distinct hostile texts holds memory. What the checks
of a kept document found (its shape, whether it asks for the schema, its costs) is kept
with it, so that the next request with the same text does none of that work again.

At most ENTRIES documents and BYTES of them are kept, the least recently used let go
first; those of callers without a token apart, in a share of ANONYMOUS_ENTRIES and
ANONYMOUS_BYTES (they need `login` and little else): a stream of distinct anonymous
texts can neither push the floor's documents out nor fill the heap that every full
collection walks (the hostile bench's 20 a second kept 1,024 of them, some 20,000
objects, a fifth of its longest pause). A parsed document holds about BYTES_PER_TOKEN
for each of its tokens (measured with tracemalloc: 350 over the shop's screens, 200 for
a text of bare field names) and its text. The bound in bytes bounds what a full
collection of the garbage collector walks too: about 40,000 objects, some 25 ms, before
a kept document let go of its tokens. Its nodes' locations keep only the offsets and
the source that errors are placed by: the tokens (a linked list, each one a tracked
object) were a quarter of what a kept document held for the collector (13,074 objects
for the screens' 84 documents, 9,298 without).

graphql-core 3.3's syntax nodes are frozen dataclasses: hashing a parsed document walks
every node of it (8 us for a task move's, 22 us for the dashboard page's). The text,
hashed in C and remembered by the string, is the key instead.
"""

from collections.abc import AsyncIterator, Callable, Hashable, Iterator
from typing import Any

from graphql import (
    ASTValidationRule,
    DocumentNode,
    FieldNode,
    GraphQLError,
    GraphQLSchema,
    Node,
    Visitor,
    visit,
)
from strawberry.extensions import SchemaExtension
from strawberry.schema.schema import validate_document

from api.admission import stretch
from api.errors import unauthenticated
from graph.bounded import Bounded
from graph.keeping import Keeping
from graph.shape import (
    SIGNED_IN,
    Limits,
    Shape,
    limits_for,
    refusal,
    shape_of,
    too_long,
    variables_refusal,
)

ENTRIES = 1024
BYTES = 4 * 1024 * 1024
ANONYMOUS_ENTRIES = 64
ANONYMOUS_BYTES = 256 * 1024
BYTES_PER_TOKEN = 350
# Costs kept per document, one per operation name and integer variables: a screen asks
# for one or two page sizes (`first`) of its operation.
COSTS_PER_DOCUMENT = 8

Rules = tuple[type[ASTValidationRule], ...]


class Accepted:
    """A document that passed the limits and validation, with what its checks found."""

    __slots__ = (
        "costs",
        "document",
        "introspects",
        "keeping",
        "shape",
        "text",
        "validated",
        "weight",
    )

    def __init__(self, text: str, document: DocumentNode, shape: Shape) -> None:
        self.text = text
        self.document = without_tokens(document)
        self.shape = shape
        self.weight = shape.tokens * BYTES_PER_TOKEN + len(text)
        # The schemas and rules it validated against without errors.
        self.validated: set[tuple[GraphQLSchema, Rules]] = set()
        self.introspects: bool | None = None
        # Whether its answers are kept, and for whom (graph/read_cache.py).
        self.keeping: Keeping | None = None
        self.costs: dict[Hashable, int] = {}

    def cost(self, key: Hashable, work_out: Callable[[], int]) -> int:
        """The cost for `key` (operation name and integer variables), worked out by
        `work_out` the first time."""
        found = self.costs.get(key)
        if found is None:
            found = work_out()
            if len(self.costs) < COSTS_PER_DOCUMENT:
                self.costs[key] = found
        return found


def without_tokens(document: DocumentNode) -> DocumentNode:
    """`document`, its nodes' locations let go of the parser's tokens (in place)."""
    nodes: list[Node] = [document]
    while nodes:
        node = nodes.pop()
        if node.loc is not None:
            # Errors read a location's start and source only.
            node.loc.start_token = node.loc.end_token = None  # type: ignore[assignment]
        for key in node.keys:
            value = getattr(node, key)
            if isinstance(value, Node):
                nodes.append(value)
            elif isinstance(value, tuple):
                nodes.extend(item for item in value if isinstance(item, Node))
    return document


class Documents(Bounded[str, Accepted]):
    """Accepted documents by their text, the least recently used let go first once over
    `entries` of them or `size` bytes."""

    def __init__(self, entries: int = ENTRIES, size: int = BYTES) -> None:
        super().__init__(entries, size, lambda accepted: accepted.weight)

    def of(self, text: str | None, document: DocumentNode) -> Accepted | None:
        """The entry of exactly this parsed document, if it is kept."""
        found = self.peek(text) if text is not None else None
        return found if found is not None and found.document is document else None

    def keep(self, accepted: Accepted) -> None:
        self.put(accepted.text, accepted)


class AcceptedStore:
    """Signed-in callers' documents and anonymous callers' own, in shares of their own;
    either caller finds a document in either."""

    def __init__(self) -> None:
        self.signed_in = Documents()
        self.anonymous = Documents(ANONYMOUS_ENTRIES, ANONYMOUS_BYTES)

    def get(self, text: str) -> Accepted | None:
        return self.signed_in.get(text) or self.anonymous.get(text)

    def of(self, text: str | None, document: DocumentNode) -> Accepted | None:
        return self.signed_in.of(text, document) or self.anonymous.of(text, document)

    def keep(self, accepted: Accepted, *, anonymous: bool) -> None:
        (self.anonymous if anonymous else self.signed_in).keep(accepted)


# In place of a document too long to parse: the parse is skipped, and the request refused.
NOT_PARSED = DocumentNode(definitions=())

# One per process, for every schema it serves (an entry says which it validated for).
DOCUMENTS = AcceptedStore()


class AnonymousTurns(SchemaExtension):
    """An anonymous request's parsing and its validation (its limits and rules included)
    are each a stretch of its work on the event loop, taken in turn (api/admission.py);
    anyone else's run at once. First among the extensions: the stretch holds all of it."""

    async def on_parse(self) -> AsyncIterator[None]:
        async with stretch():
            yield

    async def on_validate(self) -> AsyncIterator[None]:
        async with stretch():
            yield


class AcceptedDocuments(SchemaExtension):
    """Parsing, the limits (graph/shape.py) and validation, keeping the documents that
    pass: in place of Strawberry's ParserCache and ValidationCache, whose caches keep every
    text that parses, refused or not."""

    def __init__(self) -> None:
        self.accepted: Accepted | None = None

    def on_parse(self) -> Iterator[None]:
        ctx = self.execution_context
        limits = limits_for(ctx.context)
        # Only callers without a token have a length limit, and they come over HTTP, where
        # Strawberry answers what is raised here (a subscription's stream would not).
        error = too_long(ctx.query, limits)
        if error is not None:
            # Raised on the way out, with nothing parsed: Strawberry unwinds the hooks
            # entered before this one (AnonymousTurns' stretch) only on the way out, so
            # raised on the way in it left the stretch held, every anonymous request
            # waiting behind it, until a collection found the abandoned hook.
            ctx.graphql_document = NOT_PARSED
            yield
            raise error
        self.accepted = DOCUMENTS.get(ctx.query) if ctx.query is not None else None
        if self.accepted is not None:
            ctx.graphql_document = self.accepted.document
        else:
            ctx.parse_options["max_tokens"] = limits.tokens
        yield

    def on_validate(self) -> Iterator[None]:
        ctx = self.execution_context
        document = ctx.graphql_document
        if document is not None and ctx.pre_execution_errors is None:
            ctx.pre_execution_errors = self._errors(document)
        yield

    def _errors(self, document: DocumentNode) -> list[GraphQLError]:
        # A refusal is the validation's answer, not an exception: a subscription's stream
        # would not catch one raised here.
        ctx = self.execution_context
        limits = limits_for(ctx.context)
        accepted = self.accepted
        shape = accepted.shape if accepted is not None else shape_of(document)
        error = refusal(shape, limits) or variables_refusal(ctx.variables, limits)
        if error is None:
            return self._validated(document, shape)
        # A screen's operation sent after its session ended: the caller learns that, as
        # the fields would have said, not that it is over a limit a working token passes.
        if _stale(ctx.context, limits) and not (
            refusal(shape, SIGNED_IN) or variables_refusal(ctx.variables, SIGNED_IN)
        ):
            return [unauthenticated(token_given=True)]
        return [error]

    def _validated(self, document: DocumentNode, shape: Shape) -> list[GraphQLError]:
        ctx = self.execution_context
        accepted = self.accepted
        schema = ctx.schema._schema
        rules = tuple(ctx.validation_rules)
        if accepted is not None and (schema, rules) in accepted.validated:
            return []
        errors = validate_document(schema, document, rules)
        if not errors and ctx.query is not None:
            if accepted is None:
                accepted = Accepted(ctx.query, document, shape)
                DOCUMENTS.keep(accepted, anonymous=limits_for(ctx.context) is not SIGNED_IN)
            accepted.validated.add((schema, rules))
        return errors


def _stale(context: Any, limits: Limits) -> bool:
    """Whether the caller sent a token that does not work (so got the anonymous limits)."""
    return limits is not SIGNED_IN and getattr(context, "token", None) is not None


def asks_for_the_schema(text: str | None, document: DocumentNode) -> bool:
    """Whether the document selects `__schema` or `__type`; kept with an accepted one."""
    accepted = DOCUMENTS.of(text, document)
    if accepted is not None and accepted.introspects is not None:
        return accepted.introspects
    found = False

    class Finder(Visitor):
        def enter_field(self, node: FieldNode, *_: Any) -> None:
            nonlocal found
            found = found or node.name.value in ("__schema", "__type")

    visit(document, Finder())
    if accepted is not None:
        accepted.introspects = found
    return found
