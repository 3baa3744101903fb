"""Which media type /graphql answers in, for each kind of Accept header."""

import pytest

from graph.media_types import GRAPHQL_RESPONSE, JSON, accepts, answer_type

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@pytest.mark.parametrize(
    ("accept", "answer"),
    [
        # No header, or nothing readable in it: the legacy type.
        ("", JSON),
        ("   ", JSON),
        ("nonsense", JSON),
        # Named alone.
        ("application/json", JSON),
        ("application/json; charset=utf-8", JSON),
        (GRAPHQL_RESPONSE, GRAPHQL_RESPONSE),
        ("APPLICATION/GRAPHQL-RESPONSE+JSON", GRAPHQL_RESPONSE),
        # Both named: the weights decide, and a tie goes to the specification's own type.
        (f"{GRAPHQL_RESPONSE}, application/json;q=0.9", GRAPHQL_RESPONSE),
        (f"application/json, {GRAPHQL_RESPONSE}", GRAPHQL_RESPONSE),
        (f"application/json, {GRAPHQL_RESPONSE};q=0.5", JSON),
        # Wildcards reach the legacy type, unless the new one is named above them.
        ("*/*", JSON),
        ("application/*", JSON),
        (BROWSER, JSON),
        (f"*/*;q=0.8, {GRAPHQL_RESPONSE}", GRAPHQL_RESPONSE),
        (f"{GRAPHQL_RESPONSE};q=0.5, */*", JSON),
        # q=0 refuses a type; the most specific range decides.
        (f"{GRAPHQL_RESPONSE};q=0, */*", JSON),
        (f"application/json;q=0, {GRAPHQL_RESPONSE};q=0.1", GRAPHQL_RESPONSE),
        ("application/json;q=0, */*", GRAPHQL_RESPONSE),
        # Neither: 406.
        ("text/html", None),
        ("multipart/mixed", None),
        ('text/event-stream, multipart/mixed;subscriptionSpec="1.0"', None),
        (f"application/json;q=0, {GRAPHQL_RESPONSE};q=0", None),
        ("*/*;q=0", None),
    ],
)
def test_answer_type(accept: str, answer: str | None) -> None:
    assert answer_type(accept) == answer


@pytest.mark.parametrize(
    ("accept", "allowed"),
    [
        ("", True),
        (f"{GRAPHQL_RESPONSE},application/json;q=0.9", True),
        ("*/*", True),
        ("application/*;q=0.1", True),
        (GRAPHQL_RESPONSE, False),
        ("application/json;q=0, */*", False),
        ("text/html", False),
    ],
)
def test_whether_the_legacy_type_is_accepted_at_all(accept: str, allowed: bool) -> None:
    assert accepts(accept, JSON) is allowed
