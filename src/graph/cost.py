"""A cost budget per request, checked before anything runs.

Every field costs 1 plus what it selects. A connection (a field taking `first`) costs
`first` or `last` (20 when omitted) times what one of its edges selects; `nodes(ids:)`
as many items as the ids written in the document (a variable: MAX_NODES); any other
list costs LIST_FACTOR times one item. A request over BUDGET is refused with BAD_REQUEST naming
what it was found to cost before the walk stopped and the budget, after the shape's
limits (graph/shape.py) and before anything runs. A dashboard page
of 50 work orders with their tasks, pickers and histories costs about 27,000.

A token's requests over HTTP are then paid for from its window (api/cost_window.py):
one the window cannot pay for is RATE_LIMITED (429 with Retry-After). A request whose
`extensions` has `"cost": true` gets `extensions.cost` in its answer: what it cost, the
budget per request, and the window's points, those left and when it renews.
"""

from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLField,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    ListValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    VariableNode,
    get_named_type,
    get_operation_ast,
)
from strawberry.extensions import SchemaExtension

from api.cost_window import Window
from api.errors import TopLevelCode, bad_request, over_limit, top_level
from graph.documents import DOCUMENTS
from graph.shape import FragmentWalk
from graph.types.pagination import DEFAULT_PAGE, MAX_NODES, MAX_PAGE

BUDGET = 50_000
LIST_FACTOR = 10


class QueryCost(SchemaExtension):
    def on_execute(self) -> Iterator[None]:
        ctx = self.execution_context
        document = ctx.graphql_document
        if document is not None:
            defined = {
                definition.variable.name.value
                for operation in document.definitions
                if isinstance(operation, OperationDefinitionNode)
                for definition in operation.variable_definitions or ()
            }
            # Only integer variables can change a cost (`first`), and only those the
            # document defines are read: the rest stay out of the key.
            given = ctx.variables or {}
            counts = tuple(
                sorted((k, v) for k, v in given.items() if isinstance(v, int) and k in defined)
            )
            schema = ctx.schema._schema
            name = ctx._provided_operation_name

            def work_out() -> int:
                return document_cost(schema, document, name, dict(counts))

            accepted = DOCUMENTS.of(ctx.query, document)
            cost = accepted.cost((name, counts), work_out) if accepted else work_out()
            if cost > BUDGET:
                raise bad_request(
                    f"This request would cost at least {cost}, over the budget of {BUDGET}: "
                    "ask for fewer items per page (first), fewer aliases or less nesting."
                )
            self._pay(cost)
        yield

    def _pay(self, cost: int) -> None:
        ctx = self.execution_context
        context = ctx.context
        viewer = context.viewer if context is not None and context.over_http else None
        if viewer is None:
            return
        windows = context.services.cost_windows
        paid = windows.spend(viewer.token_id, cost)
        extensions = ctx.operation_extensions or {}
        if paid and extensions.get("cost") is not True:
            return
        window = windows.window(viewer.token_id)
        if extensions.get("cost") is True:
            ctx.extensions_results["cost"] = _report(cost, window)
        if not paid:
            raise over_limit(
                context.response,
                window.retry_after,
                top_level(
                    TopLevelCode.RATE_LIMITED,
                    f"This request would cost {cost}, more than the {window.remaining} of "
                    f"this token's {window.limit} left until its window renews in "
                    f"{window.retry_after} seconds.",
                ),
            )


def _report(cost: int, window: Window) -> dict[str, object]:
    """`extensions.cost`: this request's cost, the budget of one request, and the token's
    window as it is after this request."""
    return {
        "requested": cost,
        "budget": BUDGET,
        "limit": window.limit,
        "remaining": window.remaining,
        "resetAt": datetime.fromtimestamp(window.reset, UTC).isoformat().replace("+00:00", "Z"),
    }


def document_cost(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation_name: str | None,
    variables: Mapping[str, int],
) -> int:
    operation = get_operation_ast(document, operation_name)
    if operation is None:
        return 0
    return CostWalk(schema, document, variables).operation(operation)


class CostWalk(FragmentWalk[int]):
    """One pass over a document: each fragment's cost is worked out once, and the walk
    stops adding as soon as the running total passes BUDGET, so what it returns over
    BUDGET is a lower bound."""

    def __init__(
        self, schema: GraphQLSchema, document: DocumentNode, variables: Mapping[str, Any]
    ) -> None:
        super().__init__(document, 0)
        self.schema = schema
        self.variables = variables

    def _on(self, fragment: FragmentDefinitionNode) -> Any:
        return self.schema.get_type(fragment.type_condition.name.value)

    def operation(self, operation: OperationDefinitionNode) -> int:
        root = self.schema.get_root_type(operation.operation)
        return 0 if root is None else self._selections(root, operation.selection_set)

    def _selections(self, parent: Any, selections: SelectionSetNode | None) -> int:
        total = 0
        for node in selections.selections if selections is not None else ():
            if total > BUDGET:
                break
            if isinstance(node, FieldNode):
                total += self._field(parent, node)
            elif isinstance(node, InlineFragmentNode):
                condition = node.type_condition
                target = self.schema.get_type(condition.name.value) if condition else parent
                total += self._selections(target, node.selection_set)
            elif isinstance(node, FragmentSpreadNode):
                total += self._fragment(node.name.value)
        return total

    def _field(self, parent: Any, node: FieldNode) -> int:
        if node.name.value.startswith("__"):
            return 0
        definition: GraphQLField | None = (
            parent.fields.get(node.name.value) if isinstance(parent, GraphQLObjectType) else None
        )
        if definition is None:
            # Interfaces (Node): cost the selection as if on an object with those fields.
            fields = getattr(parent, "fields", {})
            definition = fields.get(node.name.value)
        if definition is None:
            return 1
        inner = self._selections(get_named_type(definition.type), node.selection_set)
        return 1 + _multiplier(parent, definition, node, self.variables) * inner


def _multiplier(
    parent: Any, definition: GraphQLField, node: FieldNode, variables: Mapping[str, Any]
) -> int:
    if "first" in definition.args:
        sizes = [_page(node, name, variables) for name in ("first", "last")]
        return max((size for size in sizes if size is not None), default=DEFAULT_PAGE)
    if "ids" in definition.args:
        return _ids(node)
    if getattr(parent, "name", "").endswith("Connection"):
        return 1  # a connection's edges: `first` already counted them
    kind = (
        definition.type.of_type if isinstance(definition.type, GraphQLNonNull) else definition.type
    )
    return LIST_FACTOR if isinstance(kind, GraphQLList) else 1


def _ids(node: FieldNode) -> int:
    for argument in node.arguments or ():
        if argument.name.value == "ids" and isinstance(argument.value, ListValueNode):
            return min(len(argument.value.values), MAX_NODES)
    return MAX_NODES


def _page(node: FieldNode, name: str, variables: Mapping[str, Any]) -> int | None:
    """The page size the argument `name` (`first` or `last`) asks for; None when not given."""
    for argument in node.arguments or ():
        if argument.name.value != name:
            continue
        value = argument.value
        if isinstance(value, IntValueNode):
            return _clamp(int(value.value))
        if isinstance(value, VariableNode):
            given = variables.get(value.name.value)
            return _clamp(given) if isinstance(given, int) else None
    return None


def _clamp(size: int) -> int:
    # Out-of-range values are refused by the field itself; count what it would allow.
    return max(0, min(size, MAX_PAGE))
