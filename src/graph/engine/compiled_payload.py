"""How a compiled move's payload is written (graph/engine/compiled.py plans the move):
each selected field read as an attribute (leaves, objects and lists of them, a node's
`id`) or by its own resolver, given the object and the request's context alone; what waits
on a loader held in `Later` parts. A field with arguments, or with an extension other than
a declared rule, is never compiled; the rules the fields declare are collected, for the
move to ask before it runs."""

import inspect
from collections.abc import Callable, Iterable
from typing import Any

from graphql import (
    FieldNode,
    GraphQLEnumType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLScalarType,
    SelectionSetNode,
    get_nullable_type,
)
from strawberry import relay
from strawberry.permission import PermissionExtension
from strawberry.types.field import StrawberryField
from strawberry.types.fields.resolver import StrawberryResolver

from api.rules import Rule
from graph.context import Context
from graph.permissions import Declared


class NotCompiled(Exception):
    """A document, or a request's variables, outside what a plan covers."""


class CompiledInfo:
    """What a compiled resolver is given as `info`: the request's context, nothing else."""

    __slots__ = ("context",)

    def __init__(self, context: Context) -> None:
        self.context = context


# How a field of the payload is written: from its source object and the request's info,
# its value, or a `Later` when a resolver waits on a loader.
Read = Callable[[Any, CompiledInfo], Any]
# How a value a field read is written (its selection's objects, scalars serialized).
Convert = Callable[[Any, CompiledInfo], Any]


def declared_rules(extension: object) -> list[Rule]:
    """The rules a field's extension declares; NotCompiled for any other extension."""
    if type(extension) is not PermissionExtension:
        raise NotCompiled
    rules = []
    for permission in extension.permissions:
        if not isinstance(permission, Declared):
            raise NotCompiled
        rules.append(permission.rule)
    return rules


class Plan:
    """How a payload's selection is written. Every rule a field of it declares is asked
    before the move runs, with the mutation's own: a viewer one refuses is the stock path's,
    whose answer has that field's error beside the move's result."""

    def __init__(self, rules: list[Rule]) -> None:
        self.rules = rules
        self.resolvers: list[Callable[..., Any]] = []

    def selection(self, kind: GraphQLObjectType, selection_set: SelectionSetNode) -> Read:
        """How an object of `kind` is written as the selection asks."""
        reads: list[tuple[str, Read]] = []
        for selection in selection_set.selections:
            if not isinstance(selection, FieldNode) or selection.directives or selection.arguments:
                raise NotCompiled
            key = (selection.alias or selection.name).value
            reads.append((key, self._field(kind, selection)))

        keys = [key for key, _ in reads]
        readers = [read for _, read in reads]

        def fields(values: list[Any]) -> dict[str, Any]:
            return dict(zip(keys, values, strict=True))

        def write(source: Any, info: CompiledInfo) -> Any:
            return _together(_each(lambda read: read(source, info), readers), fields)

        return write

    def _field(self, kind: GraphQLObjectType, selection: FieldNode) -> Read:
        name = selection.name.value
        if name == "__typename":
            return lambda source, info: kind.name
        core_field = kind.fields[name]
        definition = core_field.extensions.get("strawberry-definition")
        if not isinstance(definition, StrawberryField):
            raise NotCompiled
        origin = definition.origin
        if name == "id" and isinstance(origin, type) and issubclass(origin, relay.Node):
            # A node's id is its type's name and key, as relay.GlobalID writes it.
            return lambda source, info: relay.to_base64(kind.name, source.id)
        for extension in definition.extensions:
            self.rules.extend(r for r in declared_rules(extension) if r not in self.rules)
        convert = self._convert(core_field.type, selection)
        resolver = definition.base_resolver
        if resolver is None:
            attribute = definition.python_name
            return lambda source, info: convert(getattr(source, attribute), info)
        return self._resolved(resolver, convert)

    def _resolved(self, resolver: StrawberryResolver[Any], convert: Convert) -> Read:
        """A field's own resolver, given its object and `info` (its context alone), and
        nothing else: no arguments, no root or parent."""
        if resolver.arguments or resolver.root_parameter or resolver.parent_parameter:
            raise NotCompiled
        function = resolver.wrapped_func
        if not callable(function) or resolver.self_parameter is None:
            raise NotCompiled
        self.resolvers.append(function)
        info_name = resolver.info_parameter.name if resolver.info_parameter else None

        def read(source: Any, info: CompiledInfo) -> Any:
            value = function(source, **{info_name: info}) if info_name else function(source)
            if _waits(value):
                return Later([value], lambda values: convert(values[0], info))
            return convert(value, info)

        return read

    def _convert(self, kind: GraphQLOutputType, selection: FieldNode) -> Convert:
        """How a field's value is written: null where the type allows it."""
        nullable = not isinstance(kind, GraphQLNonNull)
        inner = get_nullable_type(kind)
        write: Convert
        if isinstance(inner, GraphQLScalarType | GraphQLEnumType):
            serialize = inner.serialize

            def write(value: Any, info: CompiledInfo) -> Any:
                return serialize(value)

        elif isinstance(inner, GraphQLObjectType) and selection.selection_set is not None:
            write = self.selection(inner, selection.selection_set)
        elif isinstance(inner, GraphQLList):
            if not isinstance(inner.of_type, GraphQLNonNull):
                raise NotCompiled
            item = self._convert(inner.of_type, selection)

            def write(values: Any, info: CompiledInfo) -> Any:
                return _together(_each(lambda value: item(value, info), values), list)

        else:
            raise NotCompiled

        def convert(value: Any, info: CompiledInfo) -> Any:
            if value is None:
                if nullable:
                    return None
                raise NotCompiled
            return write(value, info)

        return convert


class Later:
    """A part of a payload that waits: on what (a resolver's awaitables, or parts that
    wait themselves), and how their values are written. Awaited once, through `value`;
    when the answer is given up instead (a resolver raised, the client went away), what it
    holds is closed, so that no coroutine a resolver made is left never awaited."""

    __slots__ = ("finish", "held")

    def __init__(self, held: list[Any], finish: Callable[[list[Any]], Any]) -> None:
        self.held = held
        self.finish = finish

    async def value(self) -> Any:
        values: list[Any] = []
        try:
            for held in self.held:
                values.append(await (held.value() if isinstance(held, Later) else held))
        except BaseException:
            _close(self.held[len(values) + 1 :])
            raise
        written = self.finish(values)
        return await written.value() if isinstance(written, Later) else written


def _waits(value: Any) -> bool:
    return isinstance(value, Later) or inspect.isawaitable(value)


def _each(make: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
    """`make` of each item; when one raises, what the ones before wait on is closed."""
    written: list[Any] = []
    try:
        for item in items:
            written.append(make(item))
    except BaseException:
        _close(written)
        raise
    return written


def _together(written: list[Any], finish: Callable[[list[Any]], Any]) -> Any:
    """`finish` of the values an object's fields or a list's items were written as, once
    those that wait have come. Every one of them was made (every resolver called, its
    loaders asked) before the first wait: the loads they share go in one batch, as in the
    stock execution."""
    waiting = [i for i, value in enumerate(written) if _waits(value)]
    if not waiting:
        return finish(written)

    def fill(found: list[Any]) -> Any:
        for i, value in zip(waiting, found, strict=True):
            written[i] = value
        return finish(written)

    return Later([written[i] for i in waiting], fill)


def _close(held: Iterable[Any]) -> None:
    for value in held:
        if isinstance(value, Later):
            _close(value.held)
        elif inspect.iscoroutine(value):
            value.close()
