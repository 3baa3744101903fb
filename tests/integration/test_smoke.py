from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop


async def test_worker_starts_task_and_sees_it_in_queue(api: Client, shop: Shop) -> None:
    order = await shop.order(["print"])
    data = await api.as_(shop.tokens["pat"])(
        "query($id: ID!) { workOrder(id: $id) { tasks { id department { code } } } }",
        {"id": gid("WorkOrder", order)},
    )
    task = next(t for t in data["workOrder"]["tasks"] if t["department"]["code"] == "print")
    moved = await api.as_(shop.tokens["pat"])(
        """mutation($i: StartTaskInput!) { startTask(input: $i) {
            changed task { status pickedUpBy { name } } userErrors { code } } }""",
        {"i": {"taskId": task["id"]}},
    )
    assert moved["startTask"]["changed"] is True
    assert moved["startTask"]["task"]["pickedUpBy"]["name"] == "Pat"
    history = await api.as_(shop.tokens["pat"])(
        "query($id: ID!) { node(id: $id) { ... on DepartmentTask { history {"
        " action actor { name } task { id status } } } } }",
        {"id": task["id"]},
    )
    assert history["node"]["history"] == [
        {
            "action": "START",
            "actor": {"name": "Pat"},
            "task": {"id": task["id"], "status": "STARTED"},
        }
    ]


async def test_an_orders_progress_counts_its_completed_tasks(api: Client, shop: Shop) -> None:
    order = await shop.order(["print", "design"])
    tasks = await task_ids(shop.engine, order)
    pat = api.as_(shop.tokens["pat"])
    read = "query($id: ID!) { workOrder(id: $id) { progress { done total } } }"
    assert (await pat(read, {"id": gid("WorkOrder", order)}))["workOrder"]["progress"] == {
        "done": 0,
        "total": 3,
    }
    for move in ("start", "finish"):
        name = f"{move}Task"
        moved = await pat(
            f"mutation($i: {move.title()}TaskInput!) {{ {name}(input: $i) {{ changed }} }}",
            {"i": {"taskId": gid("DepartmentTask", tasks["print"])}},
        )
        assert moved[name]["changed"] is True
    done = await pat(read, {"id": gid("WorkOrder", order)})
    assert done["workOrder"]["progress"] == {"done": 1, "total": 3}
