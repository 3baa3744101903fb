"""Strawberry's executor, with less work for each of a page's thousands of plain values.

Most fields of a page are leaves Strawberry resolves by reading an attribute (a name, a
code, a status). For each, graphql-core builds a path and a resolve info, calls the
resolver through Strawberry's wrapper, then asks whether the value is null, a list, a
leaf, awaitable. Here such a field is read and serialized directly. Whenever the answer
is not a plain value (null, an error, an awaitable, a failed serialization), the field
goes the usual way instead, which reads it again and reports it exactly as graphql-core
would: reading an attribute has no side effects. An object value goes straight to its
completion: its type asked once, then its fields. A field with a resolve function and
no arguments is called without being looked up again, and a list of objects is
completed in one loop with its selection collected once. Errors are handled where and
as graphql-core handles them, type checks are asked as often, and awaitables an error
abandons are settled as graphql-core settles them; unit tables compare both.
"""

import operator
import weakref
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from graphql import (
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLResolveInfo,
    GraphQLResolveInfoHelpers,
)
from graphql.execution.collect_fields import FieldDetailsList, GroupedFieldSet
from graphql.execution.executor import collect_iterator_awaitables, invalid_return_type_error
from graphql.pyutils import AwaitableOrValue, Path, Undefined, gather_with_cancel
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from graph.engine.awaitable import is_awaitable
from graph.engine.plan import Plan, Step, plan_of, serialized


def _helpers_of(executor: "Executor") -> GraphQLResolveInfoHelpers:
    """graphql-core's helpers for resolvers (`info.async_helpers`), through a weak
    reference: graphql-core makes them of the executor's bound methods, which the executor
    holds, a reference cycle per request. The cycle held the request's context, and for a
    subscription its whole connection (socket, protocol, handler: about 60 objects), until
    the garbage collector came by, instead of letting go when the request or the
    connection ended."""
    ref = weakref.ref(executor)

    def gather(values: Sequence[Awaitable[Any]]) -> Awaitable[list[Any]]:
        found = ref()
        assert found is not None, "the execution is over"
        return found.gather_async_work(values)

    def track(values: Sequence[Any]) -> None:
        found = ref()
        if found is not None:
            found.track_async_work(values)

    return GraphQLResolveInfoHelpers(gather=gather, track=track)


class Executor(StrawberryGraphQLCoreExecutionContext):
    """Asks whether a value is awaitable once per type (graph/engine/awaitable.py), plans each
    selection once (graph/engine/plan.py: plain leaves read directly, fields with a resolve
    function called directly), and takes objects, alone or in lists, straight to their type
    check and their fields."""

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
        self.async_helpers = _helpers_of(self)
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
        # An event's selections are its own: plans, and graphql-core's memo of collected
        # subfields (keyed by field lists each event makes anew), kept across events
        # would pile up for the subscription's whole life.
        clone._plans = {}
        clone._relevant_sub_fields = {}
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

    def complete_list_value(
        self,
        return_type: GraphQLList[GraphQLOutputType],
        field_details_list: FieldDetailsList,
        info: "GraphQLResolveInfo[Any]",
        path: Path,
        result: Any,
        position_context: Any,
    ) -> AwaitableOrValue[list[Any]]:
        """graphql-core's, for a list of objects: the selection is collected once for
        the list, and each item that is an object goes straight to its type check and
        its fields. Null, an error or an awaitable goes graphql-core's way item by item,
        and so does a list that could be streamed (a directive on the field) or
        deferred. As in graphql-core, an error in an item is that item's, and when one
        goes up past the list, the awaitables the list holds are settled."""
        item_type = return_type.of_type
        kind = item_type.of_type if type(item_type) is GraphQLNonNull else item_type
        if (
            type(kind) is not GraphQLObjectType
            or type(result) is not list
            or position_context is not None
            or field_details_list[0].node.directives
        ):
            return super().complete_list_value(
                return_type, field_details_list, info, path, result, position_context
            )
        grouped, deferred, _ = self.collect_subfields(kind, field_details_list)
        if deferred:
            return super().complete_list_value(
                return_type, field_details_list, info, path, result, position_context
            )
        is_awaitable = self.is_awaitable
        completed: list[Any] = []
        awaitable_indices: list[int] = []
        items = iter(result)
        try:
            for index, item in enumerate(items):
                item_path = path.add_key(index, None)
                if is_awaitable(item):
                    completed.append(
                        self.complete_awaitable_list_item_value(
                            item, item_type, field_details_list, info, item_path, None
                        )
                    )
                    awaitable_indices.append(index)
                    continue
                if item is None or item is Undefined or isinstance(item, Exception):
                    if self.complete_list_item_value(
                        item, completed, item_type, field_details_list, info, item_path, None
                    ):
                        awaitable_indices.append(index)
                    continue
                try:
                    value = self._object_fields(
                        kind, field_details_list, info, item_path, item, grouped
                    )
                except Exception as raw_error:
                    self.handle_field_error(raw_error, item_type, field_details_list, item_path)
                    value = None
                if is_awaitable(value):
                    value = self._settled(value, item_type, field_details_list, item_path)
                    awaitable_indices.append(index)
                completed.append(value)
        except Exception:
            pending = [completed[i] for i in awaitable_indices]
            pending.extend(collect_iterator_awaitables(items, is_awaitable))
            if pending:
                self.settle_in_background(pending)
            raise
        if not awaitable_indices:
            return completed
        return _gathered(completed, awaitable_indices)

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
        nothing is deferred."""
        if position_context is None:
            grouped, deferred, _ = self.collect_subfields(return_type, field_details_list)
            if not deferred:
                return self._object_fields(
                    return_type, field_details_list, info, path, result, grouped
                )
        return super().complete_object_value(
            return_type, field_details_list, info, path, result, position_context
        )

    def _object_fields(
        self,
        kind: GraphQLObjectType,
        details: FieldDetailsList,
        info: "GraphQLResolveInfo[Any]",
        path: Path,
        value: Any,
        grouped: GroupedFieldSet,
    ) -> AwaitableOrValue[dict[str, Any]]:
        """graphql-core's completion of an object whose selection is collected and has
        nothing deferred: its type asked once (`is_type_of`, which may answer later),
        then its fields."""
        is_type_of = kind.is_type_of
        if is_type_of is not None:
            verdict = is_type_of(value, info)
            if self.is_awaitable(verdict):
                return self._checked_fields(verdict, kind, details, path, value, grouped)
            if not verdict:
                raise invalid_return_type_error(kind, value, details)
        return self.execute_fields(kind, value, path, grouped, None)

    async def _checked_fields(
        self,
        verdict: Awaitable[Any],
        kind: GraphQLObjectType,
        details: FieldDetailsList,
        path: Path,
        value: Any,
        grouped: GroupedFieldSet,
    ) -> dict[str, Any]:
        if not await self.with_abort_signal(verdict):
            raise invalid_return_type_error(kind, value, details)
        fields = self.execute_fields(kind, value, path, grouped, None)
        return fields if isinstance(fields, dict) else await fields

    def execute_fields(
        self,
        parent_type: GraphQLObjectType,
        source_value: Any,
        path: Path | None,
        grouped_field_set: GroupedFieldSet,
        position_context: Any,
    ) -> AwaitableOrValue[dict[str, Any]]:
        """graphql-core's, with plain leaves read directly and fields of a known kind
        called without looking them up again (see `Step`)."""
        if not self._direct:
            return super().execute_fields(
                parent_type, source_value, path, grouped_field_set, position_context
            )
        plan = self._plans.get(id(grouped_field_set))
        if plan is None or plan.fields is not grouped_field_set:
            plan = self._plans[id(grouped_field_set)] = plan_of(parent_type, grouped_field_set)
        results: dict[str, Any] = {}
        is_awaitable = self.is_awaitable
        awaitable_fields: list[str] = []
        try:
            for step in plan.steps:
                leaf = step.leaf
                if leaf is not None:
                    try:
                        value = leaf.read(source_value, leaf.attribute)
                        if type(value) is not leaf.unchanged:
                            value = serialized(leaf, value)
                    except Exception:
                        value = Undefined
                    if value is not Undefined:
                        results[step.name] = value
                        continue
                field_path = Path(path, step.name, parent_type.name)
                if step.field is None:
                    result = self.execute_field(
                        parent_type, source_value, step.details, field_path, position_context
                    )
                else:
                    result = self._resolve(
                        step, parent_type, source_value, field_path, position_context
                    )
                if result is not Undefined:
                    results[step.name] = result
                    if is_awaitable(result):
                        awaitable_fields.append(step.name)
        except Exception:
            if awaitable_fields:
                self.settle_in_background([results[name] for name in awaitable_fields])
            raise
        if not awaitable_fields:
            return results
        return _gathered(results, awaitable_fields)

    def _resolve(
        self,
        step: Step,
        parent_type: GraphQLObjectType,
        source: Any,
        path: Path,
        position_context: Any,
    ) -> AwaitableOrValue[Any]:
        """graphql-core's `execute_field` for a field known to exist, without arguments
        and without middleware: its resolve function, then the value's completion."""
        field = step.field
        assert field is not None and field.resolve is not None
        return_type = field.type
        details = step.details
        info = self.build_resolve_info(field, step.nodes, parent_type, path)
        try:
            result = field.resolve(source, info)
            if self.is_awaitable(result):
                return self.complete_awaitable_value(
                    return_type, details, info, path, result, position_context
                )
            completed = self.complete_value(
                return_type, details, info, path, result, position_context
            )
            if self.is_awaitable(completed):
                return self._settled(completed, return_type, details, path)
        except Exception as raw_error:
            self.handle_field_error(raw_error, return_type, details, path)
            return None
        return completed

    async def _settled(
        self,
        completed: Awaitable[Any],
        return_type: GraphQLOutputType,
        details: FieldDetailsList,
        path: Path,
    ) -> Any:
        try:
            return await completed
        except Exception as raw_error:
            self.handle_field_error(raw_error, return_type, details, path)
            return None


_Results = TypeVar("_Results", dict[str, Any], list[Any])


_Slots = tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]
_SLOTS: dict[type, _Slots] = {}


def _slots_of(kind: type) -> _Slots:
    """The slot names of a class and its bases, and a getter of all their values at once."""
    names = tuple(n for k in kind.__mro__ for n in getattr(k, "__slots__", ()) if n != "__dict__")
    return names, operator.attrgetter(*names)


async def _gathered(results: _Results, awaitable: list[Any]) -> _Results:
    """graphql-core's: the awaitable fields' or items' values in place, awaited together."""
    if len(awaitable) == 1:
        key = awaitable[0]
        results[key] = await results[key]
    else:
        values = await gather_with_cancel(*(results[key] for key in awaitable))
        for key, value in zip(awaitable, values, strict=True):
            results[key] = value
    return results
