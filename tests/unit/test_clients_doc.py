"""Every operation and fragment docs/clients.md shows validates against schema.graphql
(graphql-core's rules); Relay's are checked here less their Relay-only parts (its
directives, fragment variables), which relay-compiler checks in
tests/e2e/test_clients_doc.py."""

from typing import Any

from graphql import (
    GraphQLError,
    GraphQLSchema,
    NoUndefinedVariablesRule,
    NoUnusedFragmentsRule,
    Visitor,
    build_schema,
    parse,
    specified_rules,
    validate,
    visit,
)
from graphql.language import REMOVE, DirectiveNode

from tests.clients_doc import SCHEMA, documents

RELAY_DIRECTIVES = {"refetchable", "argumentDefinitions", "connection", "arguments", "alias"}


class _WithoutRelayDirectives(Visitor):
    def enter_directive(self, node: DirectiveNode, *_: Any) -> Any:
        return REMOVE if node.name.value in RELAY_DIRECTIVES else None


def problems(schema: GraphQLSchema, page: str | None = None) -> list[GraphQLError]:
    """What graphql-core's validation finds in the page's documents: each plain one alone,
    the Relay ones together (a query spreads another file's fragment)."""
    found = []
    plain = [d.text for d in documents(page) if not d.relay]
    for text in plain:
        found += validate(schema, parse(text))
    relay = "\n".join(d.text for d in documents(page) if d.relay)
    if relay:
        # A fragment's variables are its @argumentDefinitions; a file's fragment is spread
        # by another file's query.
        relay_only = {NoUndefinedVariablesRule, NoUnusedFragmentsRule}
        rules = [r for r in specified_rules if r not in relay_only]
        found += validate(schema, visit(parse(relay), _WithoutRelayDirectives()), rules)
    return found


def test_every_document_of_the_page_validates_against_the_schema() -> None:
    schema = build_schema(SCHEMA.read_text())
    found = documents()
    # Each client's section has its operations: a change to the extraction that lost some
    # would pass this test vacuously.
    assert {d.relay for d in found} == {True, False}
    assert len(found) >= 10
    assert problems(schema) == []


def test_a_document_the_schema_refuses_is_found() -> None:
    schema = build_schema(SCHEMA.read_text())
    page = (
        "```graphql\nquery A { me { name shoeSize } }\n```\n"
        "```js\nconst Q = gql`query B { queue(department: 1) { totalCount } }`;\n```\n"
        '```python\nQ = gql("""query C { customer { name } }""")\n```\n'
        '```sh\ncurl -d \'{"query": "query D { nobody }"}\'\n```\n'
        '```js\n// X.js\ngraphql`fragment X_d on Department @refetchable(queryName: "XQ")'
        " { queue(first: $n) { colour } }`\n```\n"
    )
    assert [e.message for e in problems(schema, page)] == [
        "Cannot query field 'shoeSize' on type 'User'.",
        "String cannot represent a non string value: 1",
        "Argument 'Query.customer(id:)' of type 'ID!' is required, but it was not provided.",
        "Cannot query field 'nobody' on type 'Query'. Did you mean 'node'?",
        "Cannot query field 'colour' on type 'QueueConnection'.",
    ]
