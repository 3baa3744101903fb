"""The document's shape and cost walks: each fragment walked once however often it is
spread, the cost walk stopping once over the budget, and the same depth and alias verdicts
as Strawberry's own rules on documents those rules can walk."""

from collections import Counter

import pytest
from graphql import OperationDefinitionNode, parse, validate
from strawberry.extensions.max_aliases import create_validator as strawberry_aliases
from strawberry.extensions.query_depth_limiter import create_validator as strawberry_depth

from graph.cost import BUDGET, CostWalk
from graph.documents import ByText
from graph.schema import schema
from graph.shape import MAX_ALIASES, MAX_DEPTH, MAX_FIELDS, ShapeWalk, refusal


def doubling(levels: int, root: str = "Query", leaf: str = "me { name }") -> str:
    spreads = "".join(
        f"fragment F{i} on {root} {{ ...F{i + 1} ...F{i + 1} }}\n" for i in range(1, levels)
    )
    return f"query Q {{ ...F1 }}\n{spreads}fragment F{levels} on {root} {{ {leaf} }}\n"


# 199: the deepest doubling document under the token cap (400 levels are refused by the
# cap while parsed, tests/integration/test_document_limits.py).
LEVELS = [18, 30, 199]


def operation(document: str) -> OperationDefinitionNode:
    [found] = [d for d in parse(document).definitions if isinstance(d, OperationDefinitionNode)]
    return found


@pytest.mark.parametrize("levels", LEVELS)
def test_each_fragment_is_walked_once_however_often_it_is_spread(levels: int) -> None:
    document = parse(doubling(levels))
    [query] = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    shape = ShapeWalk(document)
    figures = shape.operation(query)
    assert shape.visits == Counter({f"F{i}": 1 for i in range(1, levels + 1)})
    assert figures.fields > MAX_FIELDS
    if levels == 18:  # 2**17 copies of `me { name }`, two fields each
        assert figures.fields == 2 * 2**17
    cost = CostWalk(schema._schema, document, {})
    assert cost.operation(query) > BUDGET
    assert set(cost.visits.values()) <= {1}


@pytest.mark.parametrize("levels", LEVELS)
def test_a_doubling_document_is_refused_naming_the_limit(levels: int) -> None:
    text = doubling(levels)
    error = refusal(ByText(text, parse(text)))
    assert error is not None
    assert error.extensions == {"code": "BAD_REQUEST"}
    assert f"limit of {MAX_FIELDS:,} fields" in error.message


def test_the_cost_walk_stops_once_over_the_budget() -> None:
    heavy = (
        "workOrders(first: 100) { edges { node { tasks { history { actor { departments "
        "{ code } } } } } } }"
    )
    text = (
        f"query {{ ...A ...B ...C }} fragment A on Query {{ {heavy} }} "
        f"fragment B on Query {{ b: {heavy} }} fragment C on Query {{ me {{ name }} }}"
    )
    walk = CostWalk(schema._schema, parse(text), {})
    assert walk.operation(operation(text)) > BUDGET
    # A alone is over the budget: B and C are never walked.
    assert walk.visits == Counter({"A": 1})


def test_a_cycle_adds_nothing_and_ends() -> None:
    text = "query { ...A } fragment A on Query { me { name } ...B } fragment B on Query { ...A }"
    shape = ShapeWalk(parse(text))
    assert shape.operation(operation(text)).fields == 2
    assert shape.visits == Counter({"A": 1, "B": 1})


def test_a_chain_deeper_than_the_stack_is_refused_not_raised() -> None:
    levels = 2_000
    chain = "".join(f"fragment F{i} on Query {{ ...F{i + 1} }}\n" for i in range(levels))
    text = f"query {{ ...F0 }}\n{chain}fragment F{levels} on Query {{ __typename }}"
    error = refusal(ByText(text, parse(text, max_tokens=None)))
    assert error is not None
    assert "nested too deeply" in error.message


def strawberry_refuses(text: str, rule: type) -> bool:
    return bool(validate(schema._schema, parse(text), [rule]))


NESTED = "{ workOrders { edges { node { " + "tasks { workOrder { " * 4 + "id" + " } }" * 4
ALIASED = "{ " + " ".join(f"a{i}: __typename" for i in range(MAX_ALIASES + 1)) + " }"
SHAPES = [
    "{ me { name } }",
    NESTED + " } } } }",
    "{ workOrders { edges { node { "
    + "tasks { workOrder { " * 3
    + "tasks { id }"
    + " } }" * 3
    + " } } } }",
    "{ workOrders { edges { node { ...T } } } } fragment T on WorkOrder { "
    + "tasks { workOrder { " * 3
    + "id"
    + " } }" * 3
    + " }",
    "{ workOrders { edges { node { ...T } } } } fragment T on WorkOrder { "
    + "tasks { workOrder { " * 4
    + "id"
    + " } }" * 4
    + " }",
    "{ __schema { types { fields { type { " + "ofType { " * 7 + "name" + " }" * 11 + " }",
    ALIASED,
    "{ ...A ...A } fragment A on Query { "
    + " ".join(f"a{i}: __typename" for i in range(16))
    + " }",
    "{ ...A } fragment A on Query { " + " ".join(f"a{i}: __typename" for i in range(16)) + " }",
]


@pytest.mark.parametrize("text", SHAPES)
def test_depth_and_aliases_are_judged_as_strawberrys_rules_judge_them(text: str) -> None:
    shape = ShapeWalk(parse(text)).operation(operation(text))
    depth_rule = strawberry_depth(max_depth=MAX_DEPTH, should_ignore=None)
    assert (shape.depth > MAX_DEPTH) == strawberry_refuses(text, depth_rule)
    aliases_rule = strawberry_aliases(max_alias_count=MAX_ALIASES)
    assert (shape.aliases > MAX_ALIASES) == strawberry_refuses(text, aliases_rule)


def test_the_table_covers_both_verdicts_of_both_rules() -> None:
    shapes = [ShapeWalk(parse(t)).operation(operation(t)) for t in SHAPES]
    assert {s.depth > MAX_DEPTH for s in shapes} == {True, False}
    assert {s.aliases > MAX_ALIASES for s in shapes} == {True, False}
