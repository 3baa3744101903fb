"""Trusted documents compiled: the app's task moves planned once and run without
Strawberry's view, parsing, validation or graphql-core.

A trusted document's text is known before any request (the manifest, src/web/documents.json),
so everything the stock path works out for it on every request can be worked out once:
which resolver its one root field calls, which declared rules guard it, how its variable
becomes the resolver's input, what it costs, and how each selected field of the payload is
read and serialized. `compile_move` does that for a mutation document whose root field is
in COMPILED_FIELDS and whose payload's fields are read as attributes (leaves, objects and
lists of them, a node's `id`) or by their own resolvers, given the object and the request's
context alone (their loaders batch as in the stock path; a unit test reads what each reads of
`info`); a field with arguments, or with an extension other than a declared rule, is never
compiled. The rules the payload's fields declare are asked with the mutation's, before the
move: a viewer one refuses is answered by the stock path, with that field's error.

`CompiledDocuments.answer` runs the plan for a signed-in person's POST naming such a
document, by hash or by its exact text, with exactly the variables it declares, when the
declared rules admit them and their cost window has room. The resolver is the mutation's own
(the same unit of work, statements, errors-as-userErrors and post-commit poke); the answer
is written with the same log line and metrics (graph/schema.py `record_operation`), cost
window, persisted-document count and headers as the stock path's. Every other request, and
any request whose resolvers raise, is left to the stock path (`None`), which answers it as
it answers everything: the move's raise leaves nothing committed but a move whose COMMIT
failed unseen, a raise reading its payload (a loader's read failing) comes after the move
committed, and a task's move sent again is answered `changed: false` with the task as it
is, as any client's retry is. Accounting (the window, the count) happens once the compiled
answer is made, so a request handed back is counted once, by the stock path.
"""

import inspect
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from graphql import (
    FieldNode,
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLScalarType,
    GraphQLSchema,
    NamedTypeNode,
    NonNullTypeNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    VariableNode,
    get_nullable_type,
    parse,
    validate,
)
from starlette.requests import Request
from starlette.responses import Response
from strawberry import relay
from strawberry.permission import PermissionExtension
from strawberry.types.base import has_object_definition
from strawberry.types.field import StrawberryField
from strawberry.types.fields.resolver import StrawberryResolver

from api.metrics import Metrics
from api.rules import Rule
from api.viewer import Viewer
from graph.context import Context
from graph.cost import BUDGET, document_cost
from graph.permissions import Declared
from graph.persisted import PersistedDocuments
from graph.schema import record_operation

# Root fields whose resolvers read nothing of `info` but its context (a unit test reads
# them): the task moves, the floor's busiest requests.
COMPILED_FIELDS = frozenset(
    {"startTask", "finishTask", "releaseTask", "completeTask", "reopenTask"}
)
OUTCOMES = ("answered", "handed_back")

# How a field of the payload is written: from its source object and the request's info,
# its value, or a `Later` when a resolver waits on a loader.
Read = Callable[[Any, "CompiledInfo"], Any]


class NotCompiled(Exception):
    """A document, or a request's variables, outside what a plan covers."""


class CompiledInfo:
    """What a compiled resolver is given as `info`: the request's context, nothing else."""

    __slots__ = ("context",)

    def __init__(self, context: Context) -> None:
        self.context = context


# How a value a field read is written (its selection's objects, scalars serialized).
Convert = Callable[[Any, CompiledInfo], Any]


@dataclass(frozen=True)
class InputField:
    name: str
    python_name: str
    global_id: bool
    required: bool


@dataclass(frozen=True)
class Move:
    """One compiled document: the plan of its single root field."""

    operation: str
    field: str
    variable: str
    input_class: type
    input_fields: tuple[InputField, ...]
    resolver: Callable[..., Any]
    info_name: str
    input_name: str
    rules: tuple[Rule, ...]
    cost: int
    payload: Read
    # The payload's own resolvers, called with a CompiledInfo (a unit test reads them).
    resolvers: tuple[Callable[..., Any], ...]

    def input_of(self, variables: object) -> object:
        """The resolver's input from the request's variables, exactly as the document
        declares them; NotCompiled for anything else (the stock path says what is wrong)."""
        if not isinstance(variables, dict) or variables.keys() != {self.variable}:
            raise NotCompiled
        given = variables[self.variable]
        if not isinstance(given, dict) or not given.keys() <= {f.name for f in self.input_fields}:
            raise NotCompiled
        values: dict[str, Any] = {}
        for field in self.input_fields:
            value = given.get(field.name)
            if value is None:
                if field.required:
                    raise NotCompiled
                continue
            if not isinstance(value, str):
                raise NotCompiled
            try:
                read = relay.GlobalID.from_id(value) if field.global_id else value
            except Exception as error:
                raise NotCompiled from error
            values[field.python_name] = read
        return self.input_class(**values)


def compile_move(schema: GraphQLSchema, text: str) -> Move | None:
    """The plan of `text`, or None when it is not a document a plan covers."""
    try:
        return _compile(schema, text)
    except NotCompiled:
        return None


def _compile(core: GraphQLSchema, text: str) -> Move:
    document = parse(text, no_location=True)
    if len(document.definitions) != 1:
        raise NotCompiled
    operation = document.definitions[0]
    if (
        not isinstance(operation, OperationDefinitionNode)
        or operation.operation is not OperationType.MUTATION
        or operation.name is None
        or operation.directives
        or len(operation.variable_definitions or ()) != 1
        or len(operation.selection_set.selections) != 1
    ):
        raise NotCompiled
    (declared,) = operation.variable_definitions or ()
    root = operation.selection_set.selections[0]
    if not isinstance(root, FieldNode) or len(root.arguments or ()) != 1:
        raise NotCompiled
    (given,) = root.arguments or ()
    if (
        root.alias is not None
        or root.directives
        or root.name.value not in COMPILED_FIELDS
        or given.name.value != "input"
        or not isinstance(given.value, VariableNode)
        or given.value.name.value != declared.variable.name.value
        or declared.default_value is not None
        or not isinstance(declared.type, NonNullTypeNode)
        or not isinstance(declared.type.type, NamedTypeNode)
        or root.selection_set is None
    ):
        raise NotCompiled
    # Validated only once its shape is a move's: a server's start-up then validates a few
    # of the manifest's documents, not all of them (half a second of CPU).
    if validate(core, document):
        raise NotCompiled
    assert core.mutation_type is not None
    core_field = core.mutation_type.fields[root.name.value]
    definition = core_field.extensions.get("strawberry-definition")
    if not isinstance(definition, StrawberryField) or definition.base_resolver is None:
        raise NotCompiled
    resolver = definition.base_resolver
    info = resolver.info_parameter
    function = resolver.wrapped_func
    if len(definition.arguments) != 1:
        raise NotCompiled
    (argument,) = definition.arguments
    input_class = argument.type
    if info is None or not callable(function) or not has_object_definition(input_class):
        raise NotCompiled
    rules: list[Rule] = []
    for extension in definition.extensions:
        rules.extend(_declared(extension))
    payload_type = get_nullable_type(core_field.type)
    cost = document_cost(core, document, operation.name.value, {})
    # Over the budget, the stock path refuses it (graph/cost.py).
    if not isinstance(payload_type, GraphQLObjectType) or cost > BUDGET:
        raise NotCompiled
    plan = Plan(rules)
    payload = plan.selection(payload_type, root.selection_set)
    return Move(
        operation=operation.name.value,
        field=root.name.value,
        variable=declared.variable.name.value,
        input_class=input_class,
        input_fields=tuple(_input_fields(get_nullable_type(core_field.args["input"].type))),
        resolver=function,
        info_name=info.name,
        input_name=argument.python_name,
        rules=tuple(plan.rules),
        cost=cost,
        payload=payload,
        resolvers=tuple(plan.resolvers),
    )


def _input_fields(kind: GraphQLInputType) -> Iterable[InputField]:
    """The fields of an input of IDs (relay.GlobalID) and strings."""
    if not isinstance(kind, GraphQLInputObjectType):
        raise NotCompiled
    for name, field in kind.fields.items():
        definition = field.extensions.get("strawberry-definition")
        required = isinstance(field.type, GraphQLNonNull)
        python = definition.type if required else getattr(definition.type, "of_type", None)
        if not isinstance(definition, StrawberryField) or python not in (relay.GlobalID, str):
            raise NotCompiled
        yield InputField(name, definition.python_name, python is relay.GlobalID, required)


def _declared(extension: object) -> list[Rule]:
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

        def write(source: Any, info: CompiledInfo) -> Any:
            written: dict[str, Any] = {}
            keys: list[str] = []
            held: list[Any] = []
            try:
                for key, read in reads:
                    value = written[key] = read(source, info)
                    if _waits(value):
                        keys.append(key)
                        held.append(value)
            except BaseException:
                _close(held)
                raise
            if not held:
                return written

            # Every resolver of the object has been called (and asked its loaders) before
            # the first wait: the loads it shares with its siblings go in one batch, as
            # in the stock execution.
            def fill(values: list[Any]) -> dict[str, Any]:
                written.update(zip(keys, values, strict=True))
                return written

            return Later(held, fill)

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
            self.rules.extend(r for r in _declared(extension) if r not in self.rules)
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
                written: list[Any] = []
                try:
                    for value in values:
                        written.append(item(value, info))
                except BaseException:
                    _close(written)
                    raise
                waiting = [i for i, value in enumerate(written) if _waits(value)]
                if not waiting:
                    return written

                def fill(found: list[Any]) -> list[Any]:
                    for i, value in zip(waiting, found, strict=True):
                        written[i] = value
                    return written

                return Later([written[i] for i in waiting], fill)

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


def _close(held: Iterable[Any]) -> None:
    for value in held:
        if isinstance(value, Later):
            _close(value.held)
        elif inspect.iscoroutine(value):
            value.close()


class CompiledDocuments:
    """The compiled plans of a manifest's documents, by text, and what they answered."""

    def __init__(self, schema: GraphQLSchema, documents: PersistedDocuments) -> None:
        self.documents = documents
        self.moves: dict[str, Move] = {}
        for text in set(documents.manifest.values()):
            move = compile_move(schema, text)
            if move is not None:
                self.moves[text] = move
        self.counts = dict.fromkeys(OUTCOMES, 0)

    def expose(self, metrics: Metrics) -> None:
        metrics.outcomes(
            "pressroom_compiled_documents",
            "Requests for a compiled trusted document since start, by outcome: answered by "
            "its plan, or handed_back to the stock execution (its resolver raised).",
            self.counts,
            OUTCOMES,
        )

    def move_for(self, data: Mapping[str, Any], viewer: Viewer) -> tuple[Move, object] | None:
        """The plan a request body names and its resolver's input, if it runs compiled."""
        if not data.keys() <= {"query", "operationName", "variables", "extensions"}:
            return None
        text = self.documents.trusted_text(data.get("query"), data.get("extensions"))
        move = self.moves.get(text) if text is not None else None
        if move is None or data.get("operationName") not in (None, move.operation):
            return None
        if not all(rule.admits(viewer) for rule in move.rules):
            return None
        try:
            return move, move.input_of(data.get("variables"))
        except NotCompiled:
            return None

    async def answer(
        self, request: Request, context_of: Callable[..., Any], viewer: Viewer
    ) -> Response | None:
        """The compiled answer to `request`, or None for the stock path to answer it."""
        # The query string read raw: `request.url` builds a whole URL for the one question.
        if (
            request.method != "POST"
            or request.scope["query_string"]
            or "json" not in request.headers.get("content-type", "")
        ):
            return None
        try:
            data = orjson.loads(await request.body())
        except orjson.JSONDecodeError:
            return None
        found = self.move_for(data, viewer) if isinstance(data, dict) else None
        if found is None:
            return None
        move, given = found
        response = Response(media_type=request.state.media_type)
        context: Context = await context_of(request, response)
        windows = context.services.cost_windows
        if windows.window(viewer.token_id).remaining < move.cost:
            return None
        started = time.perf_counter()
        info = CompiledInfo(context)
        try:
            payload = await move.resolver(**{move.info_name: info, move.input_name: given})
            written = move.payload(payload, info)
            if isinstance(written, Later):
                written = await written.value()
            answer = {move.field: written}
        except Exception:
            self.counts["handed_back"] += 1
            return None
        # Room was checked before the move: a request that took the rest of the window
        # meanwhile lets this one through, as if it had come first.
        windows.spend(viewer.token_id, move.cost)
        self.documents.admit(data.get("query"), data.get("extensions"), viewer, True)
        record_operation(
            context,
            move.operation,
            move.field,
            OperationType.MUTATION.value,
            answer,
            False,
            time.perf_counter() - started,
        )
        self.counts["answered"] += 1
        response.body = orjson.dumps({"data": answer})
        response.headers["content-length"] = str(len(response.body))
        return response
