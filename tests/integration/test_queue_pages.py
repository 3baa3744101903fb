"""`queue` through the real HTTP API: available PENDING tasks (oldest available first), then
STARTED ones (oldest start first), cancelled ones absent; the delivery queue following the
gate; pages without gaps or duplicates.
"""

from typing import Any

from tests.support.access import cancel, pk, post
from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop

QUEUE = """
query($d: String!, $first: Int, $after: String) {
  queue(department: $d, first: $first, after: $after) {
    eventCursor
    edges { cursor node { id status availableAt workOrder { orderNumber } } }
    pageInfo { hasNextPage endCursor }
  }
}
"""
MOVE = (
    "mutation($t: ID!, $r: String!) {{ {name}(input: {{taskId: $t{reason}}}) "
    "{{ changed userErrors {{ code message }} }} }}"
)


async def move(api: Client, token: str, name: str, task: int, reason: str | None = None) -> None:
    query = MOVE.format(name=name, reason=", reason: $r" if reason else "")
    if not reason:
        query = query.replace("$t: ID!, $r: String!", "$t: ID!")
    variables: dict[str, Any] = {"t": gid("DepartmentTask", task)}
    if reason:
        variables["r"] = reason
    body = await post(api, token, query, variables)
    assert "errors" not in body, body
    assert body["data"][name] == {"changed": True, "userErrors": []}


async def queue_ids(api: Client, token: str, dept: str) -> list[int]:
    body = await post(api, token, QUEUE, {"d": dept, "first": 100})
    assert "errors" not in body, body
    assert body["data"]["queue"]["eventCursor"]
    return [pk(e["node"]) for e in body["data"]["queue"]["edges"]]


async def test_queue_order_pending_then_started_cancelled_absent(api: Client, shop: Shop) -> None:
    orders = [await shop.order(["print"]) for _ in range(5)]
    print_task = [(await task_ids(shop.engine, o))["print"] for o in orders]
    assert await queue_ids(api, shop.tokens["pat"], "print") == print_task

    # Starting moves a task behind every pending one; STARTED tasks go in order of start.
    await move(api, shop.tokens["pia"], "startTask", print_task[3])
    await move(api, shop.tokens["pat"], "startTask", print_task[0])
    assert await queue_ids(api, shop.tokens["pat"], "print") == [
        print_task[1],
        print_task[2],
        print_task[4],
        print_task[3],
        print_task[0],
    ]
    # Cancelling takes the order's tasks out (pending and started alike).
    for order in (orders[2], orders[3]):
        await cancel(api, shop, order, "Off.")
    # Completed tasks leave the queue too.
    await move(api, shop.tokens["ada"], "completeTask", print_task[4], "Done elsewhere.")
    assert await queue_ids(api, shop.tokens["pat"], "print") == [print_task[1], print_task[0]]


async def test_delivery_queue_follows_the_gate_oldest_available_first(
    api: Client, shop: Shop
) -> None:
    gated = await shop.order(["print", "finishing"])  # created first: lower task ids
    design_only = await shop.order(["design"])  # no gating task: gate open at creation
    print_and_design = await shop.order(["print", "design"])
    g, d, pd = [await task_ids(shop.engine, o) for o in (gated, design_only, print_and_design)]

    assert await queue_ids(api, shop.tokens["dan"], "delivery") == [d["delivery"]]

    # One of two gating tasks done: the gate stays closed.
    await move(api, shop.tokens["ada"], "completeTask", g["print"], "Printed.")
    assert await queue_ids(api, shop.tokens["dan"], "delivery") == [d["delivery"]]
    # Design does not gate: completing print alone opens print_and_design's gate.
    await move(api, shop.tokens["ada"], "completeTask", pd["print"], "Printed.")
    assert await queue_ids(api, shop.tokens["dan"], "delivery") == [d["delivery"], pd["delivery"]]
    # The last gating task: gated's delivery becomes available last, so it comes last,
    # although its task id is the lowest.
    await move(api, shop.tokens["ada"], "completeTask", g["finishing"], "Finished.")
    assert g["delivery"] < d["delivery"] < pd["delivery"]
    assert await queue_ids(api, shop.tokens["dot"], "delivery") == [
        d["delivery"],
        pd["delivery"],
        g["delivery"],
    ]
    # Reopening a gating task closes the gate again: the delivery task leaves the queue.
    await move(api, shop.tokens["ada"], "reopenTask", g["finishing"], "Misfolded.")
    assert await queue_ids(api, shop.tokens["dan"], "delivery") == [d["delivery"], pd["delivery"]]


async def test_queue_first_page_and_has_next_page(api: Client, shop: Shop) -> None:
    orders = [await shop.order(["print"]) for _ in range(3)]
    tasks = [(await task_ids(shop.engine, o))["print"] for o in orders]
    body = await post(api, shop.tokens["pat"], QUEUE, {"d": "print", "first": 2})
    conn = body["data"]["queue"]
    assert [pk(e["node"]) for e in conn["edges"]] == tasks[:2]
    assert conn["pageInfo"]["hasNextPage"] is True
    assert conn["pageInfo"]["endCursor"] == conn["edges"][-1]["cursor"]
    body = await post(api, shop.tokens["pat"], QUEUE, {"d": "print", "first": 3})
    assert body["data"]["queue"]["pageInfo"]["hasNextPage"] is False


async def test_queue_pages_without_gaps_or_duplicates(api: Client, shop: Shop) -> None:
    orders = [await shop.order(["print"]) for _ in range(5)]
    tasks = [(await task_ids(shop.engine, o))["print"] for o in orders]
    await move(api, shop.tokens["pia"], "startTask", tasks[1])
    await move(api, shop.tokens["pat"], "startTask", tasks[0])
    expected = [tasks[2], tasks[3], tasks[4], tasks[1], tasks[0]]
    assert await queue_ids(api, shop.tokens["pat"], "print") == expected

    seen: list[int] = []
    after: str | None = None
    for _ in range(10):
        body = await post(
            api, shop.tokens["pat"], QUEUE, {"d": "print", "first": 2, "after": after}
        )
        assert "errors" not in body, body
        conn = body["data"]["queue"]
        seen += [pk(e["node"]) for e in conn["edges"]]
        if not conn["pageInfo"]["hasNextPage"]:
            break
        after = conn["pageInfo"]["endCursor"]
    assert seen == expected
