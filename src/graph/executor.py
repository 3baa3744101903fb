"""Strawberry's executor, with less work for each of a page's thousands of plain values.

Most fields of a page are leaves Strawberry resolves by reading an attribute (a name, a
code, a status). For each, graphql-core builds a path and a resolve info, calls the
resolver through Strawberry's wrapper, then asks whether the value is null, a list, a
leaf, awaitable. Here such a field is read and serialized directly. Whenever the answer
is not a plain value (null, an error, a failed serialization), the field goes the usual
way instead, which reads it again and reports it exactly as graphql-core would: reading
an attribute has no side effects. An object value goes straight to its completion,
and an object plainly of its type straight to its fields.
"""

import operator
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

from graphql import (
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLResolveInfo,
    is_leaf_type,
    is_non_null_type,
)
from graphql.execution.collect_fields import FieldDetailsList, GroupedFieldSet
from graphql.pyutils import AwaitableOrValue, Path, Undefined
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.types.field import StrawberryField

from graph.awaitable import is_awaitable


class Leaf(NamedTuple):
    """How to read and serialize a scalar or enum field of Strawberry's basic kind (no
    resolver of its own, no field extensions) without arguments."""

    read: Callable[[Any, str], Any]
    attribute: str
    serialize: Callable[[Any], Any]


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
                definition.default_resolver, definition.python_name, kind.coerce_output_value
            )
    _LEAVES[key] = leaf
    return leaf


class Executor(StrawberryGraphQLCoreExecutionContext):
    """Asks whether a value is awaitable once per type (graph/awaitable.py), reads plain
    leaves directly and takes objects plainly of their type straight to their fields."""

    # Every attribute graphql-core, Strawberry and this class set, as slots: a
    # subscription keeps its executor for its whole life, and past 30 attributes an
    # instance dictionary no longer shares its keys with the class (1.6 KB).
    __slots__ = (
        "_deferred_execution_plans",
        "_direct",
        "_initial_execution_plans",
        "_plans",
        "_relevant_sub_fields",
        "_stream_usages",
        "abort_signal",
        "async_helpers",
        "async_work_finished_hook_task",
        "background_futures",
        "collected_errors",
        "context_value",
        "defer_usage_set",
        "enable_early_execution",
        "error_propagation",
        "field_resolver",
        "fragment_definitions",
        "fragments",
        "groups",
        "hide_suggestions",
        "hooks",
        "is_async_iterable",
        "is_awaitable",
        "middleware_manager",
        "operation",
        "operation_extensions",
        "pending_incremental_futures",
        "root_value",
        "schema",
        "streams",
        "subscribe_field_resolver",
        "tasks",
        "type_resolver",
        "variable_values",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.is_awaitable = is_awaitable
        manager = self.middleware_manager
        self._direct = manager is None or not manager.middlewares
        self._plans: dict[int, Plan] = {}

    def __copy__(self) -> "Executor":
        # graphql-core copies the executor for each event of a subscription and for each
        # deferred part; copy.copy's generic path (__reduce_ex__) cost as much as the rest
        # of the per-event setup, and it does not know slots.
        kind = type(self)
        state = _SLOTS.get(kind)
        if state is None:
            state = _SLOTS[kind] = _slots_of(kind)
        names, values = state
        clone = object.__new__(kind)
        for name, value in zip(names, values(self), strict=True):
            setattr(clone, name, value)
        # An event's selections are its own: plans kept across events would pile up.
        clone._plans = {}
        return clone

    def complete_value(
        self,
        return_type: GraphQLOutputType,
        field_details_list: FieldDetailsList,
        info: "GraphQLResolveInfo[Any]",
        path: Path,
        result: Any,
        position_context: Any,
    ) -> AwaitableOrValue[Any]:
        """graphql-core's, straight to the object's completion when the value is an
        object, non-null or not: graphql-core asks five questions of the type on the way
        and calls itself again for the non-null wrapper, for each of a page's objects.
        The completion of an object is never null, so the non-null check has nothing to
        do. Anything else goes graphql-core's way."""
        kind = return_type.of_type if type(return_type) is GraphQLNonNull else return_type
        if (
            type(kind) is GraphQLObjectType
            and result is not None
            and result is not Undefined
            and not isinstance(result, Exception)
        ):
            return self.complete_object_value(
                kind, field_details_list, info, path, result, position_context
            )
        return super().complete_value(
            return_type, field_details_list, info, path, result, position_context
        )

    def complete_object_value(
        self,
        return_type: GraphQLObjectType,
        field_details_list: FieldDetailsList,
        info: "GraphQLResolveInfo[Any]",
        path: Path,
        result: Any,
        position_context: Any,
    ) -> AwaitableOrValue[dict[str, Any]]:
        """graphql-core's, without its three calls on the way to `execute_fields` when
        the object is plainly of its type and nothing is deferred."""
        is_type_of = return_type.is_type_of
        if position_context is None and (is_type_of is None or is_type_of(result, info) is True):
            grouped, deferred, _ = self.collect_subfields(return_type, field_details_list)
            if not deferred:
                return self.execute_fields(return_type, result, path, grouped, None)
        return super().complete_object_value(
            return_type, field_details_list, info, path, result, position_context
        )

    def execute_fields(
        self,
        parent_type: GraphQLObjectType,
        source_value: Any,
        path: Path | None,
        grouped_field_set: GroupedFieldSet,
        position_context: Any,
    ) -> AwaitableOrValue[dict[str, Any]]:
        plan = self._plans.get(id(grouped_field_set))
        if plan is None or plan.fields is not grouped_field_set:
            plan = self._plans[id(grouped_field_set)] = plan_of(parent_type, grouped_field_set)
        if not plan.leaves or not self._direct:
            return super().execute_fields(
                parent_type, source_value, path, grouped_field_set, position_context
            )
        plain: dict[str, Any] = {}
        for response_name, leaf in plan.leaves:
            value = _read(leaf, source_value)
            if value is not Undefined:
                plain[response_name] = value
        rest = plan.others
        if len(plain) < len(plan.leaves):
            # In the selection's order, as graphql-core would meet (and report) them.
            rest = {n: d for n, d in grouped_field_set.items() if n not in plain}
        if not rest:
            return plain
        if not plain:
            return super().execute_fields(
                parent_type, source_value, path, grouped_field_set, position_context
            )
        others = super().execute_fields(parent_type, source_value, path, rest, position_context)
        if isinstance(others, dict):
            return _ordered(grouped_field_set, plain, others)
        return _merged(grouped_field_set, plain, others)


class Plan(NamedTuple):
    """A selection of an object type split into plain leaves and the other fields; it
    keeps the selection alive, so that no other takes its id while it is remembered."""

    fields: GroupedFieldSet
    leaves: tuple[tuple[str, Leaf], ...]
    others: GroupedFieldSet


_Slots = tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]
_SLOTS: dict[type, _Slots] = {}


def _slots_of(kind: type) -> _Slots:
    """The slot names of a class and its bases, and a getter of all their values at once."""
    names = tuple(n for k in kind.__mro__ for n in getattr(k, "__slots__", ()) if n != "__dict__")
    return names, operator.attrgetter(*names)


def plan_of(parent_type: GraphQLObjectType, fields: GroupedFieldSet) -> Plan:
    leaves: list[tuple[str, Leaf]] = []
    others: GroupedFieldSet = {}
    for response_name, details in fields.items():
        node = details[0].node
        leaf = None if node.arguments else leaf_of(parent_type, node.name.value)
        if leaf is None:
            others[response_name] = details
        else:
            leaves.append((response_name, leaf))
    return Plan(fields, tuple(leaves), others)


def _read(leaf: Leaf, source: Any) -> Any:
    """The field's serialized value, or Undefined where graphql-core must decide."""
    try:
        value = leaf.read(source, leaf.attribute)
        if value is None or isinstance(value, Exception):
            return Undefined
        serialized = leaf.serialize(value)
    except Exception:
        return Undefined
    return Undefined if serialized is None else serialized


def _ordered(
    fields: GroupedFieldSet, plain: dict[str, Any], others: dict[str, Any]
) -> dict[str, Any]:
    """Both halves in the selection's order: a response lists fields as they were asked."""
    return {
        name: plain[name] if name in plain else others[name]
        for name in fields
        if name in plain or name in others
    }


async def _merged(
    fields: GroupedFieldSet, plain: dict[str, Any], others: Awaitable[dict[str, Any]]
) -> dict[str, Any]:
    return _ordered(fields, plain, await others)
