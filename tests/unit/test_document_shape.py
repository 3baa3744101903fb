"""The document's shape and cost walks: each fragment walked once however often it is
spread, the cost walk stopping once over the budget, the same depth and alias verdicts
as Strawberry's own rules on documents those rules can walk, a refusal naming each limit,
and room under the limits for every operation the shop's screens send."""

import dataclasses
from collections import Counter
from collections.abc import Iterator

import pytest
from graphql import OperationDefinitionNode, get_introspection_query, parse, validate
from strawberry.extensions.max_aliases import create_validator as strawberry_aliases
from strawberry.extensions.query_depth_limiter import create_validator as strawberry_depth

from api.manifest import operations
from graph.cost import BUDGET, CostWalk
from graph.schema import schema
from graph.shape import (
    ANONYMOUS,
    SIGNED_IN,
    Limits,
    ShapeWalk,
    refusal,
    shape_of,
    variables_refusal,
)


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
    assert figures.fields > SIGNED_IN.fields
    if levels == 18:  # 2**17 copies of `me { name }`, two fields each
        assert figures.fields == 2 * 2**17
    cost = CostWalk(schema._schema, document, {})
    assert cost.operation(query) > BUDGET
    assert set(cost.visits.values()) <= {1}


@pytest.mark.parametrize("levels", LEVELS)
def test_a_doubling_document_is_refused_naming_the_limit(levels: int) -> None:
    text = doubling(levels)
    error = refusal(shape_of(parse(text)), SIGNED_IN)
    assert error is not None
    assert error.extensions == {"code": "BAD_REQUEST"}
    assert f"limit of {SIGNED_IN.fields:,} fields" in error.message


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
    error = refusal(shape_of(parse(text, max_tokens=None)), SIGNED_IN)
    assert error is not None
    assert "nested too deeply" in error.message


def strawberry_refuses(text: str, rule: type) -> bool:
    return bool(validate(schema._schema, parse(text), [rule]))


NESTED = "{ workOrders { edges { node { " + "tasks { workOrder { " * 4 + "id" + " } }" * 4
ALIASED = "{ " + " ".join(f"a{i}: __typename" for i in range(SIGNED_IN.aliases + 1)) + " }"
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
    depth_rule = strawberry_depth(max_depth=SIGNED_IN.depth, should_ignore=None)
    assert (shape.depth > SIGNED_IN.depth) == strawberry_refuses(text, depth_rule)
    aliases_rule = strawberry_aliases(max_alias_count=SIGNED_IN.aliases)
    assert (shape.aliases > SIGNED_IN.aliases) == strawberry_refuses(text, aliases_rule)


def test_the_table_covers_both_verdicts_of_both_rules() -> None:
    shapes = [ShapeWalk(parse(t)).operation(operation(t)) for t in SHAPES]
    assert {s.depth > SIGNED_IN.depth for s in shapes} == {True, False}
    assert {s.aliases > SIGNED_IN.aliases for s in shapes} == {True, False}


def test_a_selection_set_counts_the_fields_of_the_fragments_spread_in_it() -> None:
    """As graphql-core's rules collect them: OverlappingFieldsCanBeMergedRule compares
    these pairwise."""
    text = (
        "{ me { id ...A ... on User { name isAdmin } departments { code } } } "
        "fragment A on User { id name ...B } fragment B on User { access }"
    )
    shape = shape_of(parse(text))
    assert shape.widest == 7  # id, departments; A's id, name; B's access; name, isAdmin
    assert shape.fields == 9  # and `me`, and `code`


# One document over each limit (signed in), and the limit its refusal names.
OVER: dict[str, tuple[str, str]] = {
    "selection": ("{ me { " + "id " * 101 + "} }", "fields per selection set"),
    "inline fragments": ("{ me { " + "... on User { id } " * 101 + "} }", "per selection set"),
    "fields": (
        "{ " + " ".join(f"a{i}: me {{ {'id ' * 90}}}" for i in range(12)) + " }",
        "limit of 1,000 fields",
    ),
    "aliases": (
        "{ me { " + " ".join(f"a{i}: id" for i in range(31)) + " } }",
        "limit of 30 aliases",
    ),
    "directives": ("{ __typename " + "@skip(if: false) " * 6 + "}", "directives per field"),
    "operations": (" ".join(f"query Q{i} {{ __typename }}" for i in range(11)), "operations"),
    "variables": (
        "query(" + " ".join(f"$v{i}: Int" for i in range(31)) + ") { __typename }",
        "variables per operation",
    ),
    "string": ('{ departments(kind: "' + "x" * 65_537 + '") { code } }', "per string"),
    "depth": (NESTED + " } } } }", "maximum operation depth of 10"),
}


@pytest.mark.parametrize("case", OVER)
def test_each_limit_is_named_in_its_refusal(case: str) -> None:
    text, named = OVER[case]
    error = refusal(shape_of(parse(text, max_tokens=None)), SIGNED_IN)
    assert error is not None, case
    assert error.extensions == {"code": "BAD_REQUEST"}
    assert named in error.message, error.message


def test_callers_without_a_token_have_tighter_limits() -> None:
    for field in Limits.__dataclass_fields__:
        anonymous, signed_in = getattr(ANONYMOUS, field), getattr(SIGNED_IN, field)
        assert signed_in is None or anonymous < signed_in, field
    wide = "{ me { " + "id " * 21 + "} }"
    assert refusal(shape_of(parse(wide)), SIGNED_IN) is None
    error = refusal(shape_of(parse(wide)), ANONYMOUS)
    assert error is not None and "limit of 20 fields per selection set" in error.message


def test_every_screen_operation_fits_the_signed_in_limits_with_room() -> None:
    """Half of each limit, so that a screen that grows is not refused the day it ships."""
    half = Limits(**{k: (v // 2 if v else v) for k, v in dataclasses.asdict(SIGNED_IN).items()})
    for path, text in operations():
        assert refusal(shape_of(parse(text)), half) is None, path
        assert shape_of(parse(text)).tokens <= half.tokens, path


def test_sign_in_and_graphiqls_schema_fit_the_anonymous_limits() -> None:
    signin = [text for path, text in operations() if path == "screens/signin.js"]
    assert len(signin) == 3
    introspection = get_introspection_query(
        descriptions=True,
        specified_by_url=True,
        directive_is_repeatable=True,
        schema_description=True,
        input_value_deprecation=True,
    )
    for text in [*signin, introspection]:
        assert refusal(shape_of(parse(text)), ANONYMOUS) is None, text
        assert shape_of(parse(text)).tokens <= ANONYMOUS.tokens
        assert len(text) <= (ANONYMOUS.characters or 0)
    variables = {"input": {"email": "pat@example.com", "password": "x" * 256}}
    assert variables_refusal(variables, ANONYMOUS) is None


class CountingList(list[object]):
    """A list that counts how often its items are handed out."""

    handed = 0

    def __iter__(self) -> Iterator[object]:
        CountingList.handed += 1
        return super().__iter__()


def test_variables_over_a_limit_are_refused_without_walking_them() -> None:
    long = CountingList([1] * 30_000)
    error = variables_refusal({"c": long}, SIGNED_IN)
    assert error is not None and "more than 10,000 values" in error.message
    assert CountingList.handed == 0
    deep: object = ["p00"]
    for _ in range(500):
        deep = [deep]
    error = variables_refusal({"c": deep}, SIGNED_IN)
    assert error is not None and "over the limit of 32" in error.message
    assert variables_refusal({"c": [[[["p00"]]]]}, ANONYMOUS) is None
    error = variables_refusal({"c": [[[[["p00"]]]]]}, ANONYMOUS)
    assert error is not None and "5 deep" in error.message
