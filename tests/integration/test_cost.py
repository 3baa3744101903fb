"""Bounded cost: a request over the budget is refused before anything runs, naming its
cost and the budget; a real dashboard page is well within it."""

from typing import Any

import pytest
from graphql import parse

from bench.dashboard_page import DASHBOARD_PAGE as PAGE
from graph.cost import BUDGET, CostWalk
from graph.schema import schema
from tests.support.client import Client
from tests.support.database import counting
from tests.support.shop import Shop

HEAVY = (
    "{ "
    + " ".join(
        f"a{n}: workOrders(first: 100) {{ edges {{ node {{ orderNumber"
        " tasks { status history { action actor { name } } } } } }"
        for n in range(30)
    )
    + " }"
)


def cost(document: str, variables: dict[str, int] | None = None) -> int:
    parsed = parse(document)
    operation = next(d for d in parsed.definitions if d.kind == "operation_definition")
    return CostWalk(schema._schema, parsed, variables or {}).operation(operation)


def test_the_dashboard_page_fits_and_the_heavy_request_does_not() -> None:
    page = cost(PAGE, {"first": 50})
    assert 10_000 < page < BUDGET
    assert cost(PAGE, {"first": 5}) < page / 5
    assert cost(HEAVY) > BUDGET


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        ("{ me { id name } }", 3),
        ("{ workOrders(first: 3) { edges { node { id } } } }", 1 + 3 * 3),
        ("{ workOrders { edges { node { id } } } }", 1 + 20 * 3),
        ("{ workOrders(last: 3) { edges { node { id } } } }", 1 + 3 * 3),
        ("{ workOrders(last: 1000) { edges { node { id } } } }", 1 + 100 * 3),
        ('{ nodes(ids: ["a", "b"]) { id } }', 1 + 2 * 1),
        ("query($ids: [ID!]!) { nodes(ids: $ids) { id } }", 1 + 100 * 1),
        ("{ departments { code } }", 1 + 10 * 1),
        ("query { ...F } fragment F on Query { me { id } }", 2),
        ("{ __typename me { __typename } }", 1),
    ],
)
def test_what_fields_cost(document: str, expected: int) -> None:
    assert cost(document) == expected


async def test_a_request_over_the_budget_is_refused_before_it_runs(
    api: Client, shop: Shop, running_app: tuple[str, Any]
) -> None:
    for _ in range(3):
        await shop.order(["print"])
    with counting(running_app[1].state.services.engine) as statements:
        body = await api.as_(shop.tokens["ada"]).raw(HEAVY)
    # Only the token was looked up: nothing of the request itself ran.
    assert len(statements) == 1 and "FROM tokens" in statements[0], statements
    assert body.get("data") is None
    [error] = body["errors"]
    assert error["extensions"]["code"] == "BAD_REQUEST"
    assert f"budget of {BUDGET}" in error["message"]
    assert str(cost(HEAVY)) in error["message"]
    # The same shape, asked reasonably, is answered.
    small = "{ " + HEAVY.replace("first: 100", "first: 2")[2:].split(" a1:")[0] + " }"
    answered = await api.as_(shop.tokens["ada"])(small)
    assert len(answered["a0"]["edges"]) == 2


async def test_the_same_text_is_costed_by_the_page_size_each_request_asks(
    api: Client, shop: Shop
) -> None:
    """Costs are remembered per query text and integer variables, not per text alone."""
    sized = "query($n: Int) { " + HEAVY[2:].replace("first: 100", "first: $n")
    ada = api.as_(shop.tokens["ada"])
    for n, refused in ((2, False), (100, True), (2, False), (100, True)):
        body = await ada.raw(sized, {"n": n})
        codes = [e["extensions"]["code"] for e in body.get("errors") or []]
        assert codes == (["BAD_REQUEST"] if refused else []), (n, body)
        if refused:
            assert str(cost(sized, {"n": n})) in body["errors"][0]["message"]
