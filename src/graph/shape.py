"""A document's shape once its fragments are spread, found visiting each fragment once.

Fragments spread twice per level (`fragment F1 on Query { ...F2 ...F2 }`, F2 spreading F3
twice, ...) double at every level the work of any check that follows each spread: 745
anonymous bytes with 18 levels kept Strawberry's depth and alias rules and the cost walk
busy for seconds on the event loop, before any token was looked at. Here each fragment's
figures are computed once and added wherever it is spread, so the work grows with the
document's length, not with its expansion; a document over a limit is refused before any
validation rule, and with it any resolver, runs.

The limits replace Strawberry's QueryDepthLimiter and MaxAliasesLimiter (which walk every
spread again) and count the same way: an operation's depth is its deepest chain of
fields with selections, introspection fields not counted; aliases are counted in every
operation, a fragment's once for each time it is spread.
"""

import dataclasses
import functools
from collections import Counter
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
)

from graph.documents import CACHED_DOCUMENTS, ByText
from graph.errors import bad_request

MAX_FIELDS = 2_000
MAX_DEPTH = 10
MAX_ALIASES = 30
# Counts stop growing here: 2**400 fields are refused as surely as 2,001.
_CEILING = 1_000_000

T = TypeVar("T")


@dataclasses.dataclass(frozen=True, slots=True)
class Shape:
    fields: int = 0
    depth: int = 0
    aliases: int = 0


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
        figure = self._known[name] = self._selections(self._on(fragment), fragment.selection_set)
        self._open.discard(name)
        return figure

    def _on(self, fragment: FragmentDefinitionNode) -> Any:
        """The type a fragment's selections are walked on, for walks that need one."""
        return None

    def _selections(self, parent: Any, selections: SelectionSetNode | None) -> T:
        raise NotImplementedError


class ShapeWalk(FragmentWalk[Shape]):
    def __init__(self, document: DocumentNode) -> None:
        super().__init__(document, Shape())

    def operation(self, operation: OperationDefinitionNode) -> Shape:
        return self._selections(None, operation.selection_set)

    def _selections(self, parent: Any, selections: SelectionSetNode | None) -> Shape:
        fields = depth = aliases = 0
        for node in selections.selections if selections is not None else ():
            if isinstance(node, FieldNode):
                inner = self._selections(None, node.selection_set)
                fields += 1 + inner.fields
                aliases += (node.alias is not None) + inner.aliases
                if node.selection_set is not None and not node.name.value.startswith("__"):
                    depth = max(depth, 1 + inner.depth)
                continue
            if isinstance(node, InlineFragmentNode):
                inner = self._selections(None, node.selection_set)
            elif isinstance(node, FragmentSpreadNode):
                inner = self._fragment(node.name.value)
            else:  # pragma: no cover - graphql-core has no other selection kind
                continue
            fields += inner.fields
            aliases += inner.aliases
            depth = max(depth, inner.depth)
        return Shape(min(fields, _CEILING), depth, min(aliases, _CEILING))


def refusal(document: ByText) -> GraphQLError | None:
    """BAD_REQUEST naming the first limit the document passes, or None."""
    message = _over_a_limit(document)
    return bad_request(message) if message is not None else None


@functools.lru_cache(maxsize=CACHED_DOCUMENTS)
def _over_a_limit(document: ByText) -> str | None:
    walk = ShapeWalk(document.document)
    try:
        operations = [
            (d.name.value if d.name else "anonymous", walk.operation(d))
            for d in document.document.definitions
            if isinstance(d, OperationDefinitionNode)
        ]
    except RecursionError:
        # A chain of fragments each spreading the next, deeper than Python's stack.
        return "This request's fragments are nested too deeply."
    fields = sum(shape.fields for _, shape in operations)
    if fields > MAX_FIELDS:
        shown = f"more than {_CEILING:,}" if fields >= _CEILING else f"{fields:,}"
        return (
            f"This request selects {shown} fields once its fragments are spread, over the "
            f"limit of {MAX_FIELDS:,} fields."
        )
    for name, shape in operations:
        if shape.depth > MAX_DEPTH:
            return f"'{name}' exceeds maximum operation depth of {MAX_DEPTH}."
    aliases = sum(shape.aliases for _, shape in operations)
    if aliases > MAX_ALIASES:
        return f"This request uses {aliases:,} aliases; at most {MAX_ALIASES} are allowed."
    return None
