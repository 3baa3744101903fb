"""A new work order that makes sense: one that only delivers says so (deliveryOnly) and
gets the delivery task alone, its gate open; any other needs a production department and
a job line (tests/integration/test_bad_input.py refuses the rest)."""

from tests.support.client import Client, gid
from tests.support.shop import Shop

CREATE = """mutation($i: CreateWorkOrderInput!) { createWorkOrder(input: $i) {
  workOrder { jobLine tasks { department { code } inQueue } }
  userErrors { code field message } } }"""


async def test_an_order_that_only_delivers_gets_the_delivery_task_alone(
    api: Client, shop: Shop
) -> None:
    body = await api.as_(shop.tokens["sam"])(
        CREATE,
        {
            "i": {
                "customerId": gid("Customer", shop.customer_id),
                "departmentCodes": [],
                "deliveryOnly": True,
            }
        },
    )
    done = body["createWorkOrder"]
    assert done["userErrors"] == []
    assert done["workOrder"] == {
        "jobLine": None,
        "tasks": [{"department": {"code": "delivery"}, "inQueue": True}],
    }
