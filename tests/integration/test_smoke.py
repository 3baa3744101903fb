from tests.support import Client, Shop, gid


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
