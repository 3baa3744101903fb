"""A dashboard page costs the same number of SQL statements, and of asyncio tasks, for 5
work orders as for 50: its relations are fetched ahead, so its fields resolve at once."""

import asyncio
from collections.abc import Coroutine
from contextvars import ContextVar
from typing import Any

from graphql import FieldNode, parse, print_ast
from sqlalchemy import text

from api.auth import load_viewer
from bench.dashboard_page import DASHBOARD_PAGE as PAGE
from db.engine import unit_of_work
from db.tasks import Actor, transition_task
from domain.enums import TaskAction
from graph.context import Context
from graph.schema import schema
from graph.services import SchemaServices
from tests.support.client import gid
from tests.support.database import counting, task_ids
from tests.support.shop import Shop

# Set while the page executes: tasks made in its context (copied into its own tasks) are
# the page's.
IN_PAGE: ContextVar[bool] = ContextVar("in_page", default=False)


async def run_page(shop: Shop, first: int) -> tuple[list[str], int]:
    """The page's statements, and how many asyncio tasks its execution made."""
    services = SchemaServices(shop.engine, 3600)
    viewer = await load_viewer(services, shop.tokens["ada"])
    loop = asyncio.get_running_loop()
    made = 0

    def counting_tasks(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any]) -> Any:
        nonlocal made
        # Only the page's: the loop is the session's, and what an earlier test left running
        # (an app's background loops) makes tasks of its own meanwhile, from its own context.
        made += IN_PAGE.get()
        return asyncio.Task(coro, loop=loop)

    loop.set_task_factory(counting_tasks)  # type: ignore[arg-type]
    marked = IN_PAGE.set(True)
    try:
        with counting(shop.engine) as statements:
            result = await schema.execute(
                PAGE, variable_values={"first": first}, context_value=Context(services, viewer)
            )
    finally:
        IN_PAGE.reset(marked)
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
            department, worker = ("print", "pat") if n % 2 else ("design", "dee")
            task = (await task_ids(shop.engine, order))[department]
            async with unit_of_work(shop.engine) as conn:
                await transition_task(
                    conn, task, TaskAction.START, Actor(shop.users[worker], False)
                )
    # Once first: what a process sets up the first time it serves a page (the plain
    # execution pass runs this after other tests, or first) is no task of the page's.
    await run_page(shop, 5)
    small, small_tasks = await run_page(shop, 5)
    large, large_tasks = await run_page(shop, 50)
    assert len(small) == len(large)
    # The page, then everything it shows in one statement (the viewer is not counted).
    assert len(large) <= 3, large
    # A task per loader batch, none per field (a field awaiting its loader would be one).
    assert large_tasks == small_tasks, (small_tasks, large_tasks)
    assert large_tasks <= 30, large_tasks


def one_order_query() -> str:
    """The page's selection of a work order, asked of one order through `workOrder(id:)`,
    which reads each relation by itself (no look-ahead)."""
    node = next(
        field
        for field in _fields(parse(PAGE))
        if isinstance(field, FieldNode) and field.name.value == "node"
    )
    assert node.selection_set is not None
    return f"query($id: ID!) {{ workOrder(id: $id) {print_ast(node.selection_set)} }}"


def _fields(node: Any) -> Any:
    for child in getattr(getattr(node, "selection_set", None), "selections", None) or ():
        yield child
        yield from _fields(child)
    for definition in getattr(node, "definitions", ()):
        yield from _fields(definition)


async def test_the_page_read_ahead_shows_what_each_order_shows_by_itself(shop: Shop) -> None:
    await shop.add_user("sue", ["sales", "print"])
    for n in range(12):
        order = await shop.order(["print", "finishing"] if n % 2 else ["design"])
        department, worker = ("print", "pat") if n % 2 else ("design", "dee")
        task = (await task_ids(shop.engine, order))[department]
        async with unit_of_work(shop.engine) as conn:
            if n % 3 == 0:
                actor = Actor(shop.users[worker], False)
                await transition_task(conn, task, TaskAction.START, actor)
            if n % 6 == 3:
                # Pat's print task, started above, finished: completed tasks on the page too.
                actor = Actor(shop.users["pat"], False)
                await transition_task(conn, task, TaskAction.FINISH, actor)
    async with shop.engine.connect() as conn:
        ids = dict((await conn.execute(text("SELECT order_number, id FROM work_orders"))).all())
    services = SchemaServices(shop.engine, 3600)
    for who in ("ada", "sue", "pat"):
        context = Context(services, await load_viewer(services, shop.tokens[who]))
        page = await schema.execute(PAGE, variable_values={"first": 50}, context_value=context)
        assert page.data is not None, page.errors
        nodes = [e["node"] for e in page.data["workOrders"]["edges"]]
        assert len(nodes) == 12
        shown = [t["status"] for node in nodes for t in node["tasks"]]
        assert {"PENDING", "STARTED", "COMPLETED"} <= set(shown), shown
        for index, node in enumerate(nodes):
            alone = await schema.execute(
                one_order_query(),
                variable_values={"id": gid("WorkOrder", ids[node["orderNumber"]])},
                context_value=Context(services, context.viewer),
            )
            assert alone.data is not None, alone.errors
            assert alone.data["workOrder"] == node, (who, node["orderNumber"])
            # The same refusals (a worker sees no quote), at the same places.
            page_errors = [
                (e.path[4:], e.extensions)
                for e in page.errors or []
                if e.path is not None and e.path[2] == index
            ]
            alone_errors = [(e.path[1:], e.extensions) for e in alone.errors or [] if e.path]
            assert page_errors == alone_errors, (who, page_errors, alone_errors)
