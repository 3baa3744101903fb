"""A dashboard page costs the same number of SQL statements for 5 work orders as for 50."""

from db.engine import unit_of_work
from db.reads import tasks_of_work_orders
from db.tasks import Actor, transition_task
from domain.enums import TaskAction
from graph.auth import load_viewer
from graph.context import Context, Services
from graph.schema import schema
from tests.support import DASHBOARD_PAGE as PAGE
from tests.support import Shop, counting


async def run_page(shop: Shop, first: int) -> list[str]:
    services = Services(shop.engine, 3600)
    viewer = await load_viewer(services, shop.tokens["ada"])
    with counting(shop.engine) as statements:
        result = await schema.execute(
            PAGE, variable_values={"first": first}, context_value=Context(services, viewer)
        )
    assert result.errors is None, result.errors
    assert result.data is not None
    assert len(result.data["workOrders"]["edges"]) == first
    return statements


async def test_page_of_5_and_of_50_cost_the_same_statements(shop: Shop) -> None:
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
    small = await run_page(shop, 5)
    large = await run_page(shop, 50)
    assert len(small) == len(large)
    # orders, customers, users, history x2, tasks, departments, memberships (+ auth not counted)
    assert len(large) <= 10, large
