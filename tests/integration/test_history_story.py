"""An order's history tells its story: a move the system makes (a gate opening because
what it waited for is done, a task waiting again, the order completing) is Pressroom's
(bySystem, no actor), not the person whose action caused it; a task in its queue from its
first moment has no "can start" entry; one action is one entry of the person's; a details
change lists the parts that changed, in words."""

from typing import Any

from db.orders import GATE_CLOSED_REASON, GATE_OPENED_REASON
from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop

ENTRY = "action department { code } bySystem actor { name } reason changes { label before after }"
ORDER = f"""query($id: ID!) {{ node(id: $id) {{ ... on WorkOrder {{
  history {{ {ENTRY} }}
  tasks {{ department {{ code }} history {{ action actor {{ name }} }} }} }} }} }}"""
CREATE = f"""mutation($i: CreateWorkOrderInput!) {{ createWorkOrder(input: $i) {{
  workOrder {{ id history {{ {ENTRY} }} }} userErrors {{ code field message }} }} }}"""
FOLLOWS = """mutation($i: SetDepartmentFollowsInput!) {
  setDepartmentFollows(input: $i) { userErrors { code } } }"""
ADD = """mutation($i: AddWorkOrderDepartmentInput!) { addWorkOrderDepartment(input: $i) {
  userErrors { code } } }"""
REMOVE = """mutation($i: RemoveWorkOrderDepartmentInput!) { removeWorkOrderDepartment(input: $i) {
  userErrors { code } } }"""
UPDATE = """mutation($i: UpdateWorkOrderInput!) { updateWorkOrder(input: $i) {
  workOrder { version } userErrors { code } } }"""
MOVES = {
    verb: f"mutation($i: {verb[0].upper()}{verb[1:]}Input!) {{ {verb}(input: $i) "
    "{ userErrors { code } } }"
    for verb in ("startTask", "finishTask")
}
VERSION = """query($id: ID!) { node(id: $id) { ... on WorkOrder { version } } }"""


def entry(
    action: str,
    *,
    department: str | None = None,
    by: str | None = None,
    reason: str | None = None,
    changes: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One history entry as ENTRY reads it; no `by`: Pressroom's."""
    return {
        "action": action,
        "department": {"code": department} if department else None,
        "bySystem": by is None,
        "actor": {"name": by} if by else None,
        "reason": reason,
        "changes": changes or [],
    }


async def route(api: Client, shop: Shop, pairs: list[tuple[str, list[str]]]) -> None:
    for code, follows in pairs:
        body = await api.as_(shop.tokens["ada"])(
            FOLLOWS, {"i": {"departmentCode": code, "followsCodes": follows}}
        )
        assert body["setDepartmentFollows"]["userErrors"] == []


async def story(api: Client, shop: Shop, order: int) -> dict[str, Any]:
    found: dict[str, Any] = (
        await api.as_(shop.tokens["sam"])(ORDER, {"id": gid("WorkOrder", order)})
    )["node"]
    return found


async def move(api: Client, shop: Shop, who: str, verb: str, task: int) -> None:
    body = await api.as_(shop.tokens[who])(
        MOVES[verb], {"i": {"taskId": gid("DepartmentTask", task)}}
    )
    assert body[verb]["userErrors"] == []


async def test_a_new_order_has_no_entry_for_a_task_that_waits_for_nothing(
    api: Client, shop: Shop
) -> None:
    await route(api, shop, [("print", ["design"])])
    sam = api.as_(shop.tokens["sam"])
    customer = gid("Customer", shop.customer_id)
    routed = await sam(
        CREATE,
        {"i": {"customerId": customer, "departmentCodes": ["design", "print"],
               "details": {"product": "Flyers"}}},
    )  # fmt: skip
    assert routed["createWorkOrder"]["userErrors"] == []
    # Design starts at once, Print and Delivery wait: nothing opened, nothing to tell.
    assert routed["createWorkOrder"]["workOrder"]["history"] == []
    # Delivery waits for nothing either: in its queue from the start, no entry.
    delivers = await sam(
        CREATE, {"i": {"customerId": customer, "departmentCodes": [], "deliveryOnly": True}}
    )
    assert delivers["createWorkOrder"]["workOrder"]["history"] == []


async def test_finishing_design_opens_print_by_pressroom_not_by_the_designer(
    api: Client, shop: Shop
) -> None:
    await route(api, shop, [("print", ["design"])])
    order = await shop.order(["design", "print"])
    design = (await task_ids(shop.engine, order))["design"]
    await move(api, shop, "dee", "startTask", design)
    await move(api, shop, "dee", "finishTask", design)
    told = await story(api, shop, order)
    assert told["history"] == [entry("OPEN_GATE", department="print", reason=GATE_OPENED_REASON)]
    # The designer's own entries are the task's moves.
    tasks = {t["department"]["code"]: t["history"] for t in told["tasks"]}
    assert tasks["design"] == [
        {"action": "START", "actor": {"name": "Dee"}},
        {"action": "FINISH", "actor": {"name": "Dee"}},
    ]


async def test_adding_a_department_is_one_entry_and_what_waits_again_is_pressroom_s(
    api: Client, shop: Shop
) -> None:
    await route(api, shop, [("print", ["design"])])
    order = await shop.order(["print"])
    assert (await story(api, shop, order))["history"] == []
    body = await api.as_(shop.tokens["sam"])(
        ADD, {"i": {"workOrderId": gid("WorkOrder", order), "departmentCode": "design"}}
    )
    assert body["addWorkOrderDepartment"]["userErrors"] == []
    # Design waits for nothing: no "Design can start". Print waits for it now.
    assert (await story(api, shop, order))["history"] == [
        entry("DEPARTMENT_ADDED", department="design", by="Sam"),
        entry("CLOSE_GATE", department="print", reason=GATE_CLOSED_REASON),
    ]


async def test_removing_a_department_is_one_entry_of_the_person_s(api: Client, shop: Shop) -> None:
    await route(api, shop, [("print", ["design"])])
    order = await shop.order(["design", "print"])
    body = await api.as_(shop.tokens["sam"])(
        REMOVE,
        {"i": {"workOrderId": gid("WorkOrder", order), "departmentCode": "design",
               "reason": "Customer supplies the artwork"}},
    )  # fmt: skip
    assert body["removeWorkOrderDepartment"]["userErrors"] == []
    told = await story(api, shop, order)
    # Sam's entry first, then what the system did because of it.
    assert told["history"] == [
        entry("DEPARTMENT_REMOVED", department="design", by="Sam",
              reason="Customer supplies the artwork"),
        entry("OPEN_GATE", department="print", reason=GATE_OPENED_REASON),
    ]  # fmt: skip
    # The task's own history keeps its move; the timeline tells the action once.
    tasks = {t["department"]["code"]: t["history"] for t in told["tasks"]}
    assert tasks["design"] == [{"action": "REMOVE", "actor": {"name": "Sam"}}]


async def test_a_details_change_lists_the_parts_that_changed_in_words(
    api: Client, shop: Shop
) -> None:
    order = await shop.order(
        ["print"], details={"product": "Flyers", "quantity": 500, "paperType": "gloss",
                            "notes": "Rush"}
    )  # fmt: skip
    sam = api.as_(shop.tokens["sam"])
    version = (await sam(VERSION, {"id": gid("WorkOrder", order)}))["node"]["version"]
    body = await sam(
        UPDATE,
        {"i": {"workOrderId": gid("WorkOrder", order), "expectedVersion": version,
               "details": {"product": "Flyers", "quantity": 1000, "paperType": "matt",
                           "colours": "4/4"},
               "needsTransport": True}},
    )  # fmt: skip
    assert body["updateWorkOrder"]["userErrors"] == []
    assert (await story(api, shop, order))["history"] == [
        entry(
            "DETAILS_CHANGED",
            by="Sam",
            changes=[
                {"label": "Colours", "before": None, "after": "4/4"},
                {"label": "Notes", "before": "Rush", "after": None},
                {"label": "Paper type", "before": "gloss", "after": "matt"},
                {"label": "Quantity", "before": "500", "after": "1000"},
                {"label": "Transport", "before": "no", "after": "yes"},
            ],
        )
    ]
