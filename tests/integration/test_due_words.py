"""What an order's due date says: a due date already passed is taken, at creation and at a
reschedule, with a DUE_IN_PAST warning (none for a date to come); a completed order says
when it was completed (`completedAt`) and its ticket, in the app and as a PDF, how it
ended ("done on time", "done 16 h 0 min late"), a cancelled one that it was cancelled."""

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from tests.support.client import Client, gid, site
from tests.support.shop import Shop
from tests.support.tickets import read, ticket_pdf

CREATE = """mutation($i: CreateWorkOrderInput!) { createWorkOrder(input: $i) {
  workOrder { id dueAt isLate } userErrors { code message } warnings { code message } } }"""
RESCHEDULE = """mutation($i: RescheduleWorkOrderInput!) { rescheduleWorkOrder(input: $i) {
  changed workOrder { dueAt isLate } userErrors { code message } warnings { code message } } }"""
CANCEL = """mutation($i: CancelWorkOrderInput!) { cancelWorkOrder(input: $i) {
  userErrors { code } } }"""
ORDER = """query($id: ID!) { workOrder(id: $id) {
  status dueAt isLate completedAt ticket { due } } }"""
LATE = [{"code": "DUE_IN_PAST", "message": "This order is already late: its due date has passed."}]


def at(hours: float) -> datetime:
    return (datetime.now(UTC) + timedelta(hours=hours)).replace(microsecond=0)


def new_order(shop: Shop, due: datetime) -> dict[str, Any]:
    return {
        "i": {
            "customerId": gid("Customer", shop.customer_id),
            "departmentCodes": ["print"],
            "details": {"product": "Flyers"},
            "dueAt": due.isoformat(),
        }
    }


async def test_an_order_taken_with_its_due_date_passed_is_made_and_said_late(
    api: Client, shop: Shop
) -> None:
    sam = api.as_(shop.tokens["sam"])
    late = (await sam(CREATE, new_order(shop, at(-3))))["createWorkOrder"]
    assert late["userErrors"] == [] and late["warnings"] == LATE
    assert late["workOrder"]["isLate"] is True
    ahead = (await sam(CREATE, new_order(shop, at(3))))["createWorkOrder"]
    assert ahead["userErrors"] == [] and ahead["warnings"] == []
    assert ahead["workOrder"]["isLate"] is False
    for made in (late, ahead):
        seen = await sam(ORDER, {"id": made["workOrder"]["id"]})
        assert seen["workOrder"]["status"] == "ACTIVE"


async def test_a_reschedule_to_a_passed_date_is_made_and_said_late(api: Client, shop: Shop) -> None:
    sam = api.as_(shop.tokens["sam"])
    order = gid("WorkOrder", await shop.order(["print"], due_at=at(24)))
    for due, warnings, late in ((at(-2), LATE, True), (at(48), [], False)):
        asked = {"workOrderId": order, "dueAt": due.isoformat(), "priority": "NORMAL"}
        done = (await sam(RESCHEDULE, {"i": asked}))["rescheduleWorkOrder"]
        assert done["userErrors"] == [] and done["changed"] is True
        assert done["warnings"] == warnings
        assert datetime.fromisoformat(done["workOrder"]["dueAt"]) == due
        assert done["workOrder"]["isLate"] is late


async def test_a_closed_order_says_how_it_ended_not_how_long_is_left(
    api: Client, shop: Shop, http: httpx.AsyncClient, server: str
) -> None:
    due_late, due_ahead = at(-16), at(5)
    done_late = await shop.order(["print"], due_at=due_late, at=at(-20))
    done_on_time = await shop.order(["print"], due_at=due_ahead)
    cancelled = await shop.order(["print"], due_at=due_late)
    active = await shop.order(["print"], due_at=due_ahead)
    for order in (done_late, done_on_time):
        await shop.complete(order)
    cancel = {"i": {"workOrderId": gid("WorkOrder", cancelled), "reason": "Gone."}}
    assert (await api.as_(shop.tokens["sam"])(CANCEL, cancel))["cancelWorkOrder"] == {
        "userErrors": []
    }
    paper = {
        done_late: f"Due {due_late:%Y-%m-%d %H:%M} UTC · done 16 h 0 min late",
        done_on_time: f"Due {due_ahead:%Y-%m-%d %H:%M} UTC · done on time",
        cancelled: f"Due {due_late:%Y-%m-%d %H:%M} UTC · cancelled",
        active: f"Due {due_ahead:%Y-%m-%d %H:%M} UTC",
    }
    pat = api.as_(shop.tokens["pat"])
    for order, line in paper.items():
        seen = (await pat(ORDER, {"id": gid("WorkOrder", order)}))["workOrder"]
        assert seen["ticket"]["due"] == line
        assert seen["isLate"] is False
        response = await ticket_pdf(http, site(server), gid("WorkOrder", order), shop.tokens["pat"])
        text, _, _ = read(response.content)
        assert line in text.replace("\n", " ")
        if order in (done_late, done_on_time):
            assert datetime.fromisoformat(seen["completedAt"]) >= due_late + timedelta(hours=16)
        else:
            assert seen["completedAt"] is None
