"""The job's fields through the API: JobInput on createWorkOrder and updateWorkOrder is
checked field by field (INVALID_INPUT at job.<field>, every problem in one answer, nothing
written), kept in `details` under the fields' names, and read back typed through `job`;
the same rules hold for those keys in `details`, and an order from before them still reads."""

from typing import Any

import pytest

from tests.support.client import Client, gid
from tests.support.database import table_snapshot
from tests.support.orders import update
from tests.support.shop import Shop

CREATE = """mutation($i: CreateWorkOrderInput!) { createWorkOrder(input: $i) {
  workOrder { details jobLine
    job { product quantity size stock colours finishing notes } }
  userErrors { code field message } } }"""
READ = """query($id: ID!) { workOrder(id: $id) {
  jobLine detailLines { label value } job { product quantity } } }"""
UPDATE = """mutation($i: UpdateWorkOrderInput!) { updateWorkOrder(input: $i) {
  workOrder { details job { product quantity notes } } userErrors { code field message } } }"""
JOB = {
    "product": "Business cards",
    "quantity": 500,
    "size": "85 x 55 mm",
    "stock": "350 g silk",
    "colours": "4/4",
    "finishing": "Rounded corners",
    "notes": "Deliver to the back door.",
}


async def create(api: Client, shop: Shop, **fields: Any) -> Any:
    given = {"customerId": gid("Customer", shop.customer_id), "departmentCodes": ["print"]}
    body = await api.as_(shop.tokens["sam"])(CREATE, {"i": given | fields})
    return body["createWorkOrder"]


@pytest.mark.parametrize("quantity", [0, "abc", -3, 1.5, "12x", 10_000_001, True])
async def test_a_quantity_that_is_no_whole_number_from_one_is_refused_at_its_field(
    api: Client, shop: Shop, quantity: Any
) -> None:
    before = await table_snapshot(shop.engine)
    done = await create(api, shop, job={"product": "Flyers", "quantity": quantity})
    assert done["workOrder"] is None
    assert done["userErrors"] == [
        {
            "code": "INVALID_INPUT",
            "field": "job.quantity",
            "message": "Give the quantity as a whole number from 1 to 10,000,000.",
        }
    ]
    assert await table_snapshot(shop.engine) == before


async def test_every_bad_field_of_the_job_is_named_in_one_answer_and_nothing_is_written(
    api: Client, shop: Shop
) -> None:
    before = await table_snapshot(shop.engine)
    done = await create(
        api,
        shop,
        job={"product": "F" * 5000, "quantity": "abc", "colours": "4/4" * 40, "notes": "n" * 4001},
        details={"quantity": -3},
        dueAt="1999-12-31T00:00:00Z",
    )
    assert done["workOrder"] is None
    assert [(e["code"], e["field"]) for e in done["userErrors"]] == [
        ("INVALID_INPUT", "details.quantity"),
        ("INVALID_INPUT", "job.product"),
        ("INVALID_INPUT", "job.quantity"),
        ("INVALID_INPUT", "job.colours"),
        ("INVALID_INPUT", "job.notes"),
        ("INVALID_INPUT", "dueAt"),
    ]
    messages = [e["message"] for e in done["userErrors"]]
    assert "Shorten the product to at most 200 characters." in messages
    assert "Shorten the colours to at most 100 characters." in messages
    assert "Shorten the notes to at most 4000 characters." in messages
    assert await table_snapshot(shop.engine) == before


async def test_a_valid_job_is_kept_in_the_details_beside_the_shops_own_and_reads_back_typed(
    api: Client, shop: Shop
) -> None:
    done = await create(
        api,
        shop,
        job=JOB | {"quantity": " 500 ", "product": "  Business cards "},
        details={"product": "Flyers", "paperGrain": "long"},
    )
    assert done["userErrors"] == []
    order = done["workOrder"]
    # The job wins over a details key of its name; the shop's own key stays.
    assert order["details"] == {"product": "Business cards", "paperGrain": "long"} | {
        k: v for k, v in JOB.items() if k != "product"
    }
    assert order["job"] == JOB
    assert order["jobLine"] == "500 x Business cards"


async def test_the_job_keys_of_details_follow_the_same_rules(api: Client, shop: Shop) -> None:
    before = await table_snapshot(shop.engine)
    done = await create(api, shop, details={"product": 7, "quantity": "abc", "notes": "ok"})
    assert [(e["field"], e["message"]) for e in done["userErrors"]] == [
        ("details.product", "Write the product as text."),
        ("details.quantity", "Give the quantity as a whole number from 1 to 10,000,000."),
    ]
    assert await table_snapshot(shop.engine) == before


async def test_an_order_from_before_the_rules_reads_what_is_valid(api: Client, shop: Shop) -> None:
    order = await shop.order(["print"], details={"product": "Flyers", "quantity": "abc"})
    body = await api.as_(shop.tokens["sam"])(READ, {"id": gid("WorkOrder", order)})
    assert body["workOrder"]["job"] == {"product": "Flyers", "quantity": None}
    assert body["workOrder"]["jobLine"] == "Flyers"
    assert {"label": "Quantity", "value": "abc"} in body["workOrder"]["detailLines"]


async def test_a_correction_gives_the_job_whole_and_keeps_the_shops_own_details(
    api: Client, shop: Shop
) -> None:
    order = await shop.order(
        ["print"], details={"product": "Flyers", "quantity": "abc", "paperGrain": "long"}
    )
    refused = await update(api, shop, order, job={"quantity": 0, "notes": "x" * 4001})
    assert [e["field"] for e in refused["userErrors"]] == ["job.quantity", "job.notes"]
    done = await update(api, shop, order, job={"product": "Posters A2", "quantity": "250"})
    assert done["userErrors"] == []
    read = await api.as_(shop.tokens["sam"])(READ, {"id": gid("WorkOrder", order)})
    assert read["workOrder"]["job"] == {"product": "Posters A2", "quantity": 250}
    assert {"label": "Paper grain", "value": "long"} in read["workOrder"]["detailLines"]


async def test_the_job_is_given_whole_a_details_job_key_it_leaves_out_goes(
    api: Client, shop: Shop
) -> None:
    done = await create(
        api, shop, job={"product": "Menus"}, details={"size": "A4", "paperGrain": "long"}
    )
    assert done["userErrors"] == []
    assert done["workOrder"]["details"] == {"paperGrain": "long", "product": "Menus"}
