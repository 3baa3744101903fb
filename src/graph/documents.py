"""Per-document caches, keyed by the query text a document was parsed from.

graphql-core 3.3's syntax nodes are frozen dataclasses: hashing a parsed document walks
every node of it (8 us for a task move's, 22 us for the dashboard page's), and a cache
keyed by the document pays that on every request. Strawberry's parser cache hands out one
document per text, so the text, hashed in C, is the key here instead.
"""

import functools
from collections.abc import Iterator

from graphql import ASTValidationRule, DocumentNode, GraphQLError, GraphQLSchema
from strawberry.extensions import SchemaExtension
from strawberry.schema.schema import validate_document

CACHED_DOCUMENTS = 1024


class ByText:
    """A parsed document that hashes and compares as the text it was parsed from, or as
    itself, node by node, when the text is unknown."""

    __slots__ = ("document", "key")

    def __init__(self, text: str | None, document: DocumentNode) -> None:
        self.document = document
        self.key: object = document if text is None else text

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ByText) and other.key == self.key


@functools.lru_cache(maxsize=CACHED_DOCUMENTS)
def _validate(
    schema: GraphQLSchema, document: ByText, rules: tuple[type[ASTValidationRule], ...]
) -> list[GraphQLError]:
    return validate_document(schema, document.document, rules)


class ValidationByText(SchemaExtension):
    """Strawberry's ValidationCache, keyed by the query text (and the rules in force)."""

    def on_validate(self) -> Iterator[None]:
        ctx = self.execution_context
        # A document an earlier extension refused (graph/shape.py) is not validated.
        if ctx.graphql_document is not None and ctx.pre_execution_errors is None:
            ctx.pre_execution_errors = _validate(
                ctx.schema._schema,
                ByText(ctx.query, ctx.graphql_document),
                tuple(ctx.validation_rules),
            )
        yield
