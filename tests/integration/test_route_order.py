"""Route order, one rule everywhere: the departments list, an order's tasks (alone and on
a page) and what its delivery waits for, the departments it can be given, its job ticket
(API and PDF) and Insights list a department after those it follows, ties by name,
delivery last - in a shop whose creation order, codes and names disagree with its route."""

import io
from datetime import UTC, datetime, timedelta

import httpx
import pypdf
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from db import customers, people
from db.engine import unit_of_work
from domain.enums import DepartmentKind
from tests.support.client import Client, gid
from tests.support.shop import Shop

# Created in this order (ids against the route), codes alphabetically against it, names
# by neither.
DEPARTMENTS = [
    ("a-finishing", "Finishing", DepartmentKind.PRODUCTION),
    ("b-binding", "Binding", DepartmentKind.PRODUCTION),
    ("m-print", "Print", DepartmentKind.PRODUCTION),
    ("a-delivery", "Delivery", DepartmentKind.DELIVERY),
    ("a-sales", "Sales", DepartmentKind.SALES),
    ("z-design", "Design", DepartmentKind.PRODUCTION),
]
# Design -> Print -> Binding and Finishing (a tie, by name).
FOLLOWS = {"m-print": ["z-design"], "b-binding": ["m-print"], "a-finishing": ["m-print"]}
ROUTE = ["Design", "Print", "Binding", "Finishing", "Delivery"]

SET_FOLLOWS = """mutation($i: SetDepartmentFollowsInput!) {
  setDepartmentFollows(input: $i) { userErrors { message } } }"""
ADD = """mutation($i: AddWorkOrderDepartmentInput!) {
  addWorkOrderDepartment(input: $i) { userErrors { message } } }"""
DEPARTMENT_LIST = "query { departments { name } }"
ORDER = """query($id: ID!) { workOrder(id: $id) {
  tasks { department { name } waitingFor { name } } addableDepartments { name }
  ticket { departments { name } } } }"""
PAGE = """query { workOrders(first: 10) { edges { node {
  orderNumber tasks { department { name } } } } } }"""
FLOW = """query($from: DateTime!, $to: DateTime!) {
  flowSummary(from: $from, to: $to) { departments { department { name } } } }"""


@pytest.fixture
async def routed(clean_db: AsyncEngine, api: Client) -> Shop:
    shop = Shop(clean_db)
    async with unit_of_work(clean_db) as conn:
        for code, name, kind in DEPARTMENTS:
            shop.departments[code] = (await people.create_department(conn, code, name, kind)).id
    await shop.add_user("sam", ["a-sales"])
    await shop.add_user("pat", ["m-print"])
    await shop.add_user("ada", [], is_admin=True)
    async with unit_of_work(clean_db) as conn:
        made = await customers.create_customer(conn, "ACME", shop.users["sam"])
    shop.customer_id = made.customer.id
    for code, follows in FOLLOWS.items():
        answer = await api.as_(shop.tokens["ada"])(
            SET_FOLLOWS, {"i": {"departmentCode": code, "followsCodes": follows}}
        )
        assert answer["setDepartmentFollows"]["userErrors"] == []
    return shop


def names(found: list[dict[str, dict[str, str]]], key: str = "department") -> list[str]:
    return [item[key]["name"] for item in found]


async def test_the_departments_list_the_route_then_delivery_then_the_office(
    routed: Shop, api: Client
) -> None:
    listed = await api.as_(routed.tokens["sam"])(DEPARTMENT_LIST)
    assert [d["name"] for d in listed["departments"]] == [*ROUTE, "Sales"]


async def test_an_orders_tasks_and_ticket_alone_and_on_a_page(routed: Shop, api: Client) -> None:
    sam = api.as_(routed.tokens["sam"])
    order = await routed.order(["a-finishing", "b-binding", "m-print"])
    found = (await sam(ORDER, {"id": gid("WorkOrder", order)}))["workOrder"]
    assert names(found["tasks"]) == ["Print", "Binding", "Finishing", "Delivery"]
    assert [d["name"] for d in found["ticket"]["departments"]] == names(found["tasks"])
    delivery = found["tasks"][-1]["waitingFor"]
    assert [d["name"] for d in delivery] == ["Print", "Binding", "Finishing"]
    # A page reads its orders' tasks ahead, by another statement: the same order.
    await routed.order(["a-finishing"])
    page = (await sam(PAGE))["workOrders"]["edges"]
    assert [names(e["node"]["tasks"]) for e in page] == [
        ["Finishing", "Delivery"],
        ["Print", "Binding", "Finishing", "Delivery"],
    ]


async def test_the_departments_an_order_can_be_given(routed: Shop, api: Client) -> None:
    order = gid("WorkOrder", await routed.order([]))
    found = (await api.as_(routed.tokens["sam"])(ORDER, {"id": order}))["workOrder"]
    assert [d["name"] for d in found["addableDepartments"]] == ROUTE[:-1]


async def test_insights_list_the_departments_in_route_order(routed: Shop, api: Client) -> None:
    now = datetime.now(UTC)
    window = {"from": (now - timedelta(days=1)).isoformat(), "to": now.isoformat()}
    flow = (await api.as_(routed.tokens["sam"])(FLOW, window))["flowSummary"]["departments"]
    assert names(flow) == ROUTE


async def test_design_added_to_an_order_heads_its_ticket(
    routed: Shop, api: Client, http: httpx.AsyncClient, server: str
) -> None:
    order = gid("WorkOrder", await routed.order(["m-print"]))
    sam = api.as_(routed.tokens["sam"])
    added = await sam(ADD, {"i": {"workOrderId": order, "departmentCode": "z-design"}})
    assert added["addWorkOrderDepartment"]["userErrors"] == []
    found = (await sam(ORDER, {"id": order}))["workOrder"]
    assert [d["name"] for d in found["ticket"]["departments"]] == ["Design", "Print", "Delivery"]
    assert names(found["tasks"]) == ["Design", "Print", "Delivery"]

    response = await http.get(
        f"{server.removesuffix('/graphql')}/orders/{order}/ticket.pdf",
        headers={"authorization": f"Bearer {routed.tokens['pat']}"},
    )
    assert response.status_code == 200
    text = pypdf.PdfReader(io.BytesIO(response.content)).pages[0].extract_text()
    boxes = text.split("Departments", 1)[1].split("\n")
    assert [line.strip() for line in boxes if line.strip() in ROUTE] == [
        "Design",
        "Print",
        "Delivery",
    ]
