"""Each selection of an object type planned once for the executor (executor.py): which of
its fields are plain leaves to read and serialize directly, which have a resolve function
to call without a second lookup, and which go graphql-core's way."""

from collections.abc import Callable
from typing import Any, NamedTuple

from graphql import (
    FieldNode,
    GraphQLBoolean,
    GraphQLField,
    GraphQLID,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLScalarType,
    GraphQLString,
    is_leaf_type,
    is_non_null_type,
)
from graphql.execution.collect_fields import FieldDetailsList, GroupedFieldSet
from graphql.execution.executor import to_nodes
from graphql.pyutils import Undefined
from strawberry.types.field import StrawberryField

from graph.engine.awaitable import is_awaitable


class Leaf(NamedTuple):
    """How to read and serialize a scalar or enum field of Strawberry's basic kind (no
    resolver of its own, no field extensions) without arguments."""

    read: Callable[[Any, str], Any]
    attribute: str
    serialize: Callable[[Any], Any]
    # The Python type whose values the scalar serializes as they are (a str for String
    # and ID, a bool for Boolean), or None.
    unchanged: type | None


# graphql-core's serializers that return a value of exactly this type unchanged.
_UNCHANGED: dict[GraphQLScalarType, type] = {
    GraphQLString: str,
    GraphQLID: str,
    GraphQLBoolean: bool,
}


# Filled as fields are met: (type, field name) -> its Leaf, or None for any other field.
_LEAVES: dict[tuple[GraphQLObjectType, str], Leaf | None] = {}


def leaf_of(parent_type: GraphQLObjectType, field_name: str) -> Leaf | None:
    key = (parent_type, field_name)
    try:
        return _LEAVES[key]
    except KeyError:
        pass
    field = parent_type.fields.get(field_name)
    leaf = None
    definition = field.extensions.get("strawberry-definition") if field is not None else None
    # Basic: no resolver of its own and no field extensions (so no permission to check).
    if isinstance(definition, StrawberryField) and definition.is_basic_field and not field.args:
        kind: GraphQLOutputType = field.type
        if is_non_null_type(kind):
            kind = kind.of_type
        if is_leaf_type(kind):
            leaf = Leaf(
                definition.default_resolver,
                definition.python_name,
                kind.coerce_output_value,
                _UNCHANGED.get(kind) if type(kind) is GraphQLScalarType else None,
            )
    _LEAVES[key] = leaf
    return leaf


class Step(NamedTuple):
    """One field of a selection: a plain leaf to read directly (`leaf`), a field with a
    resolve function and no arguments to call directly (`field`, with its nodes made
    once), or neither, for graphql-core's `execute_field`."""

    name: str
    details: FieldDetailsList
    leaf: Leaf | None
    field: GraphQLField | None
    nodes: list[FieldNode]


class Plan(NamedTuple):
    """A selection of an object type as steps; it keeps the selection alive, so that no
    other takes its id while it is remembered."""

    fields: GroupedFieldSet
    steps: tuple[Step, ...]


def plan_of(parent_type: GraphQLObjectType, fields: GroupedFieldSet) -> Plan:
    steps = []
    for response_name, details in fields.items():
        node = details[0].node
        name = node.name.value
        leaf = field = None
        if not node.arguments:
            leaf = leaf_of(parent_type, name)
            field = parent_type.fields.get(name)
            if field is None or field.resolve is None or field.args:
                field = None
        steps.append(Step(response_name, details, leaf, field, to_nodes(details)))
    return Plan(fields, tuple(steps))


def serialized(leaf: Leaf, value: Any) -> Any:
    """The value serialized, or Undefined where graphql-core must decide (it may raise:
    the caller hands that to graphql-core too)."""
    if value is None or isinstance(value, Exception) or is_awaitable(value):
        return Undefined
    serialized = leaf.serialize(value)
    return Undefined if serialized is None else serialized
