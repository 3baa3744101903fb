"""What a webhook sends is made with fixed selections of the events' GraphQL types: each is
a valid operation of the schema (a renamed field fails here, not at a receiver)."""

import pytest
from graphql import DocumentNode, validate

from graph.schema import schema
from graph.webhook_bodies import DOCUMENTS


@pytest.mark.parametrize("document", DOCUMENTS)
def test_each_body_selection_is_valid_against_the_schema(document: DocumentNode) -> None:
    assert validate(schema._schema, document) == []
