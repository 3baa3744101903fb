"""A document's shape, found in one pass that visits each fragment once, and the limits
it must keep before any validation rule runs.

Validation is not linear in a document's length everywhere: graphql-core's
OverlappingFieldsCanBeMergedRule compares the fields of a selection set pairwise, and
`{ me { id id id ... } }` with 1,990 fields (6 KB, under the token cap) cost it 175-275 ms
of CPU. Fragments spread twice per level (`fragment F1 on Query { ...F2 ...F2 }`, F2
spreading F3 twice, ...) double at every level the work of any check that follows each
spread. Here each fragment's figures are computed once and added wherever it is spread,
so the work grows with the document's length, not with its expansion; a document over a
limit is refused (BAD_REQUEST, naming the limit) before any validation rule, and with it
any resolver, runs. Variables are bounded the same way before graphql-core coerces them.

Depth and aliases are counted as Strawberry's QueryDepthLimiter and MaxAliasesLimiter
count them: an operation's depth is its deepest chain of fields with selections,
introspection fields not counted; aliases are counted in every operation, a fragment's
once for each time it is spread. A selection set's fields are those graphql-core's rules
collect for it: its own, and those of the fragments spread or inlined in it.

Callers without a token get tighter limits than signed-in ones: they may sign in, ask
`me`, and (where introspection is on) load GraphiQL's schema, and nothing else. The
defaults leave room over what the shop's own screens send (tests/unit/test_document_shape.py
checks every operation in src/web against them); docs/api.md lists them beside
graphql-armor's.
"""

import dataclasses
from collections import Counter
from collections.abc import Mapping
from typing import Any, Generic, TypeVar

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    TokenKind,
)

from api.errors import bad_request

# Counts stop growing here: 2**400 fields are refused as surely as 2,001.
_CEILING = 1_000_000


@dataclasses.dataclass(frozen=True, slots=True)
class Limits:
    characters: int | None  # of the document, checked before it is parsed
    tokens: int  # graphql-core's parser stops past this many
    fields: int  # in the request, once its fragments are spread
    selection: int  # fields in one selection set
    depth: int
    aliases: int
    directives: int  # on one field, fragment or operation
    operations: int
    variables: int  # defined by one operation
    string: int  # characters in one string literal of the document
    values: int  # in the request's variables: every list, object and scalar
    nesting: int  # of lists and objects in the request's variables


# The largest of the shop's screens (src/web) select 93 fields, 27 in one selection set,
# 5 deep, with 8 variables, one directive on a field, no alias, 200 tokens; the
# dashboard page of the tests 6 deep. `details` (16 KiB of JSON) holds up to about
# 8,000 values.
SIGNED_IN = Limits(
    characters=None,  # the request body's 256 KiB
    tokens=2_000,
    fields=1_000,
    selection=100,
    depth=10,
    aliases=30,
    directives=5,
    operations=10,
    variables=30,
    string=65_536,
    values=10_000,
    nesting=32,
)
# Sign-in sends 17 fields, 5 in one selection set, 3 deep, one variable (an object of two
# strings: 3 values, 1 deep), 44 tokens; GraphiQL's introspection query (anonymous until
# a token is entered) 229 fields, 9 in one selection set, 185 tokens, 1,636 characters.
ANONYMOUS = Limits(
    characters=8_192,
    tokens=500,
    fields=300,
    selection=20,
    depth=6,
    aliases=5,
    directives=2,
    operations=1,
    variables=5,
    string=1_000,
    values=50,
    nesting=4,
)


def limits_for(context: Any) -> Limits:
    """Anonymous limits for a caller without a token. A websocket's caller showed one in
    connection_init; the connection closes when it stops working."""
    if getattr(context, "viewer", None) is not None or getattr(context, "websocket", None):
        return SIGNED_IN
    return ANONYMOUS


T = TypeVar("T")


@dataclasses.dataclass(frozen=True, slots=True)
class Selected:
    """What a selection set (with the fragments spread in it) selects."""

    fields: int = 0  # all of them, at every level below
    depth: int = 0
    aliases: int = 0
    width: int = 0  # fields collected at its own level
    widest: int = 0  # the most fields collected in any one selection set in it
    directives: int = 0  # the most on any one node in it


@dataclasses.dataclass(frozen=True, slots=True)
class Shape:
    """A document's figures, each compared with a limit."""

    tokens: int
    fields: int
    deepest: tuple[str, int]  # the deepest operation's name and depth
    aliases: int
    widest: int
    directives: int
    operations: int
    variables: int
    string: int
    nested_too_deeply: bool = False


class FragmentWalk(Generic[T]):
    """A walk of one document that works out each fragment's figure once, where it is first
    spread, and hands out the same figure wherever else it is. `visits` counts how often
    each fragment's own selections were walked: once at most."""

    def __init__(self, document: DocumentNode, nothing: T) -> None:
        self.fragments = {
            d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
        }
        self.visits: Counter[str] = Counter()
        self._nothing = nothing
        self._known: dict[str, T] = {}
        self._open: set[str] = set()

    def _fragment(self, name: str) -> T:
        known = self._known.get(name)
        if known is not None:
            return known
        fragment = self.fragments.get(name)
        if fragment is None or name in self._open:
            # Unknown fragments and cycles are validation's to report (KnownFragmentNames,
            # NoFragmentCycles); they add nothing here.
            return self._nothing
        self.visits[name] += 1
        self._open.add(name)
        figure = self._known[name] = self._definition(fragment)
        self._open.discard(name)
        return figure

    def _definition(self, fragment: FragmentDefinitionNode) -> T:
        return self._selections(self._on(fragment), fragment.selection_set)

    def _on(self, fragment: FragmentDefinitionNode) -> Any:
        """The type a fragment's selections are walked on, for walks that need one."""
        return None

    def _selections(self, parent: Any, selections: SelectionSetNode | None) -> T:
        raise NotImplementedError


class ShapeWalk(FragmentWalk[Selected]):
    def __init__(self, document: DocumentNode) -> None:
        super().__init__(document, Selected())

    def operation(self, operation: OperationDefinitionNode) -> Selected:
        inner = self._selections(None, operation.selection_set)
        return dataclasses.replace(
            inner, directives=max(inner.directives, len(operation.directives or ()))
        )

    def _definition(self, fragment: FragmentDefinitionNode) -> Selected:
        inner = self._selections(None, fragment.selection_set)
        return dataclasses.replace(
            inner, directives=max(inner.directives, len(fragment.directives or ()))
        )

    def _selections(self, parent: Any, selections: SelectionSetNode | None) -> Selected:
        fields = depth = aliases = width = widest = directives = 0
        for node in selections.selections if selections is not None else ():
            directives = max(directives, len(node.directives or ()))
            if isinstance(node, FieldNode):
                inner = self._selections(None, node.selection_set)
                fields += 1 + inner.fields
                width += 1
                aliases += (node.alias is not None) + inner.aliases
                if node.selection_set is not None and not node.name.value.startswith("__"):
                    depth = max(depth, 1 + inner.depth)
            else:
                if isinstance(node, InlineFragmentNode):
                    inner = self._selections(None, node.selection_set)
                elif isinstance(node, FragmentSpreadNode):
                    inner = self._fragment(node.name.value)
                else:  # pragma: no cover - graphql-core has no other selection kind
                    continue
                # Collected into this selection set, as graphql-core's rules collect them.
                fields += inner.fields
                width += inner.width
                aliases += inner.aliases
                depth = max(depth, inner.depth)
            widest = max(widest, inner.widest)
            directives = max(directives, inner.directives)
        return Selected(
            min(fields, _CEILING),
            depth,
            min(aliases, _CEILING),
            min(width, _CEILING),
            min(max(widest, width), _CEILING),
            directives,
        )


def shape_of(document: DocumentNode) -> Shape:
    """The document's figures: linear in its length however its fragments are spread."""
    tokens = string = 0
    token = document.loc.start_token if document.loc is not None else None
    while token is not None:
        tokens += 1
        if token.kind in (TokenKind.STRING, TokenKind.BLOCK_STRING):
            string = max(string, len(token.value or ""))
        token = token.next
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    variables = max((len(o.variable_definitions or ()) for o in operations), default=0)
    walk = ShapeWalk(document)
    try:
        selected = [(_name(o), walk.operation(o)) for o in operations]
    except RecursionError:
        # A chain of fragments each spreading the next, deeper than Python's stack.
        return Shape(tokens, 0, ("", 0), 0, 0, 0, len(operations), variables, string, True)
    return Shape(
        tokens=tokens,
        fields=min(sum(s.fields for _, s in selected), _CEILING),
        deepest=max(((name, s.depth) for name, s in selected), key=lambda d: d[1], default=("", 0)),
        aliases=min(sum(s.aliases for _, s in selected), _CEILING),
        widest=max((s.widest for _, s in selected), default=0),
        directives=max((s.directives for _, s in selected), default=0),
        operations=len(operations),
        variables=variables,
        string=string,
    )


def _name(operation: OperationDefinitionNode) -> str:
    return operation.name.value if operation.name else "anonymous"


def too_long(text: str | None, limits: Limits) -> GraphQLError | None:
    """BAD_REQUEST for a document longer than the caller may send, before it is parsed."""
    if text is None or limits.characters is None or len(text) <= limits.characters:
        return None
    return bad_request(
        f"This request's document is {len(text):,} characters long, over the limit of "
        f"{limits.characters:,} characters."
    )


def refusal(shape: Shape, limits: Limits) -> GraphQLError | None:
    """BAD_REQUEST naming the first limit the document passes, or None."""
    message = _over_a_limit(shape, limits)
    return bad_request(message) if message is not None else None


def _over_a_limit(shape: Shape, limits: Limits) -> str | None:
    if shape.nested_too_deeply:
        return "This request's fragments are nested too deeply."
    if shape.operations > limits.operations:
        return (
            f"This request holds {shape.operations:,} operations, over the limit of "
            f"{limits.operations:,} operations per document."
        )
    if shape.variables > limits.variables:
        return (
            f"An operation of this request defines {shape.variables:,} variables, over the "
            f"limit of {limits.variables:,} variables per operation."
        )
    if shape.string > limits.string:
        return (
            f"A string in this request's document is {shape.string:,} characters long, over "
            f"the limit of {limits.string:,} characters per string."
        )
    if shape.fields > limits.fields:
        shown = f"more than {_CEILING:,}" if shape.fields >= _CEILING else f"{shape.fields:,}"
        return (
            f"This request selects {shown} fields once its fragments are spread, over the "
            f"limit of {limits.fields:,} fields."
        )
    if shape.widest > limits.selection:
        return (
            f"A selection set of this request selects {shape.widest:,} fields (its own and "
            f"its fragments'), over the limit of {limits.selection:,} fields per selection set."
        )
    name, depth = shape.deepest
    if depth > limits.depth:
        return f"'{name}' exceeds maximum operation depth of {limits.depth}."
    if shape.aliases > limits.aliases:
        return (
            f"This request uses {shape.aliases:,} aliases, over the limit of "
            f"{limits.aliases:,} aliases."
        )
    if shape.directives > limits.directives:
        return (
            f"A field of this request carries {shape.directives:,} directives, over the limit "
            f"of {limits.directives:,} directives per field."
        )
    return None


def variables_refusal(variables: Mapping[str, Any] | None, limits: Limits) -> GraphQLError | None:
    """BAD_REQUEST when the request's variables hold more values, or nest deeper, than
    the caller may send; walked without recursion, and only until a limit is passed, before
    graphql-core coerces them (item by item, an error for each item that does not)."""
    if not variables:
        return None
    if len(variables) > limits.values:
        return _too_many(limits)
    # Every value waiting counts: a list's length is compared before it is taken apart.
    values = 0
    pending: list[tuple[Any, int]] = [(value, 1) for value in variables.values()]
    while pending:
        value, level = pending.pop()
        values += 1
        if isinstance(value, dict | list) and value:
            if level > limits.nesting:
                return bad_request(
                    f"This request's variables nest lists and objects {level} deep or more, "
                    f"over the limit of {limits.nesting}."
                )
            if values + len(pending) + len(value) > limits.values:
                return _too_many(limits)
            items = value.values() if isinstance(value, dict) else value
            pending.extend((item, level + 1) for item in items)
    return None


def _too_many(limits: Limits) -> GraphQLError:
    return bad_request(
        f"This request's variables hold more than {limits.values:,} values (lists, objects "
        f"and what they hold), over the limit of {limits.values:,}."
    )
