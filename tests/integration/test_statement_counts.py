"""A dashboard page costs the same number of SQL statements, and of asyncio tasks, for 5
work orders as for 50: its relations are fetched ahead, so its fields resolve at once."""

import asyncio
from collections.abc import Coroutine
from typing import Any

from db.engine import unit_of_work
from db.reads import tasks_of_work_orders
from db.tasks import Actor, transition_task
from domain.enums import TaskAction
from graph.auth import load_viewer
from graph.context import Context, Services
from graph.schema import schema
from tests.support import DASHBOARD_PAGE as PAGE
from tests.support import Shop, counting


async def run_page(shop: Shop, first: int) -> tuple[list[str], int]:
    """The page's statements, and how many asyncio tasks its execution made."""
    services = Services(shop.engine, 3600)
    viewer = await load_viewer(services, shop.tokens["ada"])
    loop = asyncio.get_running_loop()
    made = 0

    def counting_tasks(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any]) -> Any:
        nonlocal made
        made += 1
        return asyncio.Task(coro, loop=loop)

    loop.set_task_factory(counting_tasks)  # type: ignore[arg-type]
    try:
        with counting(shop.engine) as statements:
            result = await schema.execute(
                PAGE, variable_values={"first": first}, context_value=Context(services, viewer)
            )
    finally:
        loop.set_task_factory(None)
    assert result.errors is None, result.errors
    assert result.data is not None
    assert len(result.data["workOrders"]["edges"]) == first
    return statements, made


async def test_page_of_5_and_of_50_cost_the_same_statements_and_tasks(shop: Shop) -> None:
    for n in range(50):
        order = await shop.order(["print", "finishing"] if n % 2 else ["design"])
        if n % 3 == 0:
            # Some tasks picked up, so pickers and history are on the page too.
            worker = "pat" if n % 2 else "dee"
            async with unit_of_work(shop.engine) as conn:
                task = (await tasks_of_work_orders(conn, [order]))[0]
                await transition_task(
                    conn, task.id, TaskAction.START, Actor(shop.users[worker], False)
                )
    small, small_tasks = await run_page(shop, 5)
    large, large_tasks = await run_page(shop, 50)
    assert len(small) == len(large)
    # orders, customers, users, history x2, tasks, departments, memberships (+ auth not counted)
    assert len(large) <= 10, large
    # A task per loader batch, none per field (a field awaiting its loader would be one).
    assert large_tasks == small_tasks, (small_tasks, large_tasks)
    assert large_tasks <= 30, large_tasks
