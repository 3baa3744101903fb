"""Trusted documents compiled: the app's task moves planned once and run without
Strawberry's view, parsing, validation or graphql-core.

A trusted document's text is known before any request (the manifest, src/web/documents.json),
so everything the stock path works out for it on every request can be worked out once:
which resolver its one root field calls, which declared rules guard it, how its variable
becomes the resolver's input, what it costs, and how each selected field of the payload is
read and serialized. `compile_move` does that for a mutation document whose root field is
in COMPILED_FIELDS and whose payload's fields are read as attributes (leaves, objects and
lists of them, a node's `id`) or by their own resolvers, given the object and the
request's context alone (compiled_payload.py; their loaders batch as in the stock path; a
unit test reads what each reads of `info`); a field with arguments, or with an extension
other than a declared rule, is never compiled. The rules the payload's fields declare are
asked with the mutation's, before the move: a viewer one refuses is answered by the stock
path, with that field's error.

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

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from graphql import (
    FieldNode,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    NamedTypeNode,
    NonNullTypeNode,
    OperationDefinitionNode,
    OperationType,
    VariableNode,
    get_nullable_type,
    parse,
    validate,
)
from starlette.requests import Request
from starlette.responses import Response
from strawberry import relay
from strawberry.types.base import has_object_definition
from strawberry.types.field import StrawberryField

from api.metrics import Metrics
from api.rules import Rule
from api.viewer import Viewer
from graph.context import Context
from graph.cost import BUDGET, document_cost
from graph.engine.compiled_payload import (
    CompiledInfo,
    Later,
    NotCompiled,
    Plan,
    Read,
    declared_rules,
)
from graph.persisted import PersistedDocuments
from graph.schema import record_operation

# Root fields whose resolvers read nothing of `info` but its context (a unit test reads
# them): the task moves, the floor's busiest requests.
COMPILED_FIELDS = frozenset(
    {"startTask", "finishTask", "releaseTask", "completeTask", "reopenTask"}
)
OUTCOMES = ("answered", "handed_back")


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
        rules.extend(declared_rules(extension))
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
