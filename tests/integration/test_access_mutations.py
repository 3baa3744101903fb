"""Mutations by role, through the real HTTP API: every mutation by every kind of person is
allowed or FORBIDDEN as the access rules say (and a refused one writes nothing), anonymous
mutations are UNAUTHENTICATED, and a new membership grants its queue on the next request.
"""

from decimal import Decimal
from typing import Any

import pytest

from domain.money import parse_money
from tests.support.access import codes, post, sql
from tests.support.client import Client, gid
from tests.support.database import table_snapshot, task_ids
from tests.support.shop import Shop

MUTATIONS: dict[str, tuple[str, str]] = {
    "createCustomer": ("CreateCustomerInput", "customer { name }"),
    "createWorkOrder": ("CreateWorkOrderInput", "workOrder { status }"),
    "updateWorkOrderQuote": ("UpdateWorkOrderQuoteInput", "workOrder { version }"),
    "cancelWorkOrder": ("CancelWorkOrderInput", "workOrder { status }"),
    "createDepartment": ("CreateDepartmentInput", "department { code }"),
    "createUser": ("CreateUserInput", "user { name }"),
    "setUserDepartments": ("SetUserDepartmentsInput", "user { name }"),
    "startTask": ("StartTaskInput", "changed"),
    "releaseTask": ("ReleaseTaskInput", "changed"),
    "completeTask": ("CompleteTaskInput", "changed"),
    "reopenTask": ("ReopenTaskInput", "changed"),
    "chargeWorkOrderQuote": ("ChargeWorkOrderQuoteInput", "changed"),
}


def _mutation(name: str) -> str:
    input_type, selection = MUTATIONS[name]
    return (
        f"mutation($input: {input_type}!) {{ {name}(input: $input) "
        f"{{ {selection} userErrors {{ code message }} }} }}"
    )


async def _input(shop: Shop, name: str) -> dict[str, Any]:
    quote = parse_money(Decimal("120.00"), "EUR", "quote")
    order = await shop.order(["print"], order_number="WO-ACCESS", quote=quote)
    tasks = await task_ids(shop.engine, order)
    if name in ("releaseTask", "reopenTask"):
        status = "STARTED" if name == "releaseTask" else "COMPLETED"
        await sql(
            shop.engine,
            "UPDATE department_tasks SET status = :s, picked_up_by = :u, started_at = now(), "
            "completed_at = CASE WHEN :s = 'COMPLETED' THEN now() END WHERE id = :t",
            s=status,
            u=shop.users["pat"],
            t=tasks["print"],
        )
    task = gid("DepartmentTask", tasks["print"])
    return {
        "createCustomer": {"name": "Initech"},
        "createWorkOrder": {
            "customerId": gid("Customer", shop.customer_id),
            "departmentCodes": ["print"],
            "details": {"product": "Flyers"},
        },
        "updateWorkOrderQuote": {
            "workOrderId": gid("WorkOrder", order),
            "quote": {"amount": "10.00", "currency": "EUR"},
        },
        "cancelWorkOrder": {"workOrderId": gid("WorkOrder", order), "reason": "Withdrawn."},
        "createDepartment": {"code": "binding", "name": "Binding", "kind": "PRODUCTION"},
        "createUser": {
            "email": "new@shop.test",
            "name": "New",
            "password": "long-enough-pw",
            "departmentCodes": ["print"],
        },
        "setUserDepartments": {
            "userId": gid("User", shop.users["pat"]),
            "departmentCodes": ["print", "finishing"],
        },
        "startTask": {"taskId": task},
        "releaseTask": {"taskId": task, "reason": "Stuck."},
        "completeTask": {"taskId": task, "reason": "Done by hand."},
        "reopenTask": {"taskId": task, "reason": "Misprint."},
        "chargeWorkOrderQuote": {"workOrderId": gid("WorkOrder", order)},
    }[name]


ALLOWED = {
    "createCustomer": {"sam", "ada"},
    "createWorkOrder": {"sam", "ada"},
    "updateWorkOrderQuote": {"sam", "ada"},
    "cancelWorkOrder": {"sam", "ada"},
    "createDepartment": {"ada"},
    "createUser": {"ada"},
    "setUserDepartments": {"ada"},
    "startTask": {"pat", "pia"},  # members of the task's department; admins override instead
    "releaseTask": {"ada"},
    "completeTask": {"ada"},
    "reopenTask": {"ada"},
    "chargeWorkOrderQuote": {"abe", "ada"},
}
PEOPLE = ["sam", "abe", "dee", "pat", "fin", "dan", "ada"]


@pytest.mark.parametrize(
    ("name", "who"),
    [(name, who) for name in MUTATIONS for who in PEOPLE],
    ids=[f"{name}-{who}" for name in MUTATIONS for who in PEOPLE],
)
async def test_mutation_permissions(api: Client, shop: Shop, name: str, who: str) -> None:
    variables = {"input": await _input(shop, name)}
    before = await table_snapshot(shop.engine)
    body = await post(api, shop.tokens[who], _mutation(name), variables)
    if who in ALLOWED[name]:
        assert "errors" not in body, body
        assert body["data"][name]["userErrors"] == []
        assert await table_snapshot(shop.engine) != before
    else:
        assert codes(body) == ["FORBIDDEN"], body
        assert body["errors"][0]["path"] == [name]
        assert body["data"] is None
        assert await table_snapshot(shop.engine) == before


@pytest.mark.parametrize("name", sorted(MUTATIONS))
async def test_anonymous_mutations_are_unauthenticated(api: Client, shop: Shop, name: str) -> None:
    variables = {"input": await _input(shop, name)}
    before = await table_snapshot(shop.engine)
    body = await post(api, None, _mutation(name), variables)
    assert codes(body) == ["UNAUTHENTICATED"]
    assert await table_snapshot(shop.engine) == before


async def test_new_membership_grants_the_queue_on_the_next_request(api: Client, shop: Shop) -> None:
    """setUserDepartments is the complete membership: pat moves from print to finishing."""
    q = "query($d: String!) { queue(department: $d) { edges { node { id } } } }"
    assert codes(await post(api, shop.tokens["pat"], q, {"d": "finishing"})) == ["FORBIDDEN"]
    body = await post(
        api,
        shop.tokens["ada"],
        _mutation("setUserDepartments"),
        {"input": {"userId": gid("User", shop.users["pat"]), "departmentCodes": ["finishing"]}},
    )
    assert body["data"]["setUserDepartments"]["userErrors"] == []
    assert "errors" not in await post(api, shop.tokens["pat"], q, {"d": "finishing"})
    assert codes(await post(api, shop.tokens["pat"], q, {"d": "print"})) == ["FORBIDDEN"]
