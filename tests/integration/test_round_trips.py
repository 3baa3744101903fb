"""What a task's move sends to the database, as the server's pooled connections send it:
a start is its one statement, with no BEGIN or COMMIT around it; a finish is one
transaction, its move and the settlement of the work order; over HTTP, as a client sends
them, nothing more. A settling move refuses to run outside a transaction."""

import asyncio
import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

from api.auth import load_viewer
from db.engine import reading, unit_of_work
from db.queries import fetch_native
from db.tasks import Actor, transition_task
from domain.enums import TaskAction
from graph.context import Context
from graph.schema import schema
from graph.services import SchemaServices
from tests.support.client import Client, gid
from tests.support.shop import Shop
from tests.support.subscriptions import FINISH, START, print_tasks

MOVE = """mutation($id: ID!) {
  %s(input: {taskId: $id}) { changed task { status } userErrors { code } }
}"""


# asyncpg reads the catalog the first time a connection meets a type: once a connection,
# not once a move, in three statements (the JIT turned off around the read). Not counted:
# which connection of the pool a request gets, warm or not, is not the move's doing.
INTROSPECTION = re.compile(r"typeinfo_tree|current_setting\('jit'\)|set_config\('jit'")


def any_task() -> bool:
    return True


def in_http_request() -> bool:
    """Whether the running task is uvicorn's for an HTTP request (not a background loop's)."""
    task = asyncio.current_task()
    return task is not None and task.get_coro().__qualname__ == "RequestResponseCycle.run_asgi"  # type: ignore[union-attr]


@contextmanager
def sent(engine: AsyncEngine, by: Callable[[], bool] = any_task) -> Iterator[list[str]]:
    """The statements sent on `engine`'s connections meanwhile, in order, each as BEGIN,
    COMMIT, ROLLBACK or "statement": those asyncpg runs itself (BEGIN, COMMIT,
    `fetch_native`), through its query loggers, and SQLAlchemy's, which asyncpg runs as
    prepared statements that its loggers do not see. asyncpg hands a query to its loggers
    with `call_soon` once it is done; SQLAlchemy's are recorded the same way as they
    start, so the list keeps the order of one connection's statements. Only connections
    checked out, and statements run, where `by` holds."""
    loop = asyncio.get_running_loop()
    statements: list[str] = []
    drivers: list[Any] = []

    def record(query: str) -> None:
        word = query.split(None, 1)[0].rstrip(";").upper()
        statements.append(word if word in ("BEGIN", "COMMIT", "ROLLBACK") else "statement")

    def logged_by_asyncpg(entry: Any) -> None:
        if not INTROSPECTION.search(entry.query):
            record(entry.query)

    def run_by_sqlalchemy(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        if by():
            loop.call_soon(record, statement)

    def attach(dbapi_connection: Any, connection_record: Any, proxy: Any) -> None:
        if not by():
            return
        driver = dbapi_connection.driver_connection
        driver.add_query_logger(logged_by_asyncpg)
        drivers.append(driver)

    event.listen(engine.sync_engine.pool, "checkout", attach)
    event.listen(engine.sync_engine, "before_cursor_execute", run_by_sqlalchemy)
    try:
        yield statements
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", run_by_sqlalchemy)
        event.remove(engine.sync_engine.pool, "checkout", attach)
        for driver in drivers:
            driver.remove_query_logger(logged_by_asyncpg)


async def recorded() -> None:
    """Returns once every statement `sent` was handed is recorded: a callback queued now
    runs after those queued before it."""
    done = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().call_soon(done.set_result, None)
    await done


async def move(context: Context, field: str, task: int) -> dict[str, Any]:
    result = await schema.execute(
        MOVE % field, variable_values={"id": gid("DepartmentTask", task)}, context_value=context
    )
    assert result.errors is None, result.errors
    assert result.data is not None
    payload: dict[str, Any] = result.data[field]
    return payload


# (who, mutation, the task's status after it, changed, what was sent). The work order has
# a print task, which gates delivery.
MOVES = [
    ("pat", "startTask", "STARTED", True, ["statement"]),
    # Already holds: read back (state, then the task) and judged, nothing written, still
    # no transaction.
    ("pat", "startTask", "STARTED", False, ["statement", "statement", "statement"]),
    # The move, the settlement's read, the delivery gate opening.
    ("pat", "finishTask", "COMPLETED", True, ["BEGIN", *["statement"] * 3, "COMMIT"]),
]


async def test_a_start_is_one_statement_and_a_finish_one_transaction(shop: Shop) -> None:
    [task] = await print_tasks(shop, 1)
    services = SchemaServices(shop.engine, 3600)
    for who, field, status, changed, expected in MOVES:
        context = Context(services, await load_viewer(services, shop.tokens[who]))
        with sent(shop.engine) as statements:
            payload = await move(context, field, task)
            await recorded()
        assert payload == {"changed": changed, "task": {"status": status}, "userErrors": []}
        assert statements == expected, (field, changed)


async def test_a_settling_move_outside_a_transaction_is_refused_and_changes_nothing(
    shop: Shop,
) -> None:
    [task] = await print_tasks(shop, 1)
    pat = Actor(shop.users["pat"], False)
    async with unit_of_work(shop.engine, transaction=False) as conn:
        await transition_task(conn, task, TaskAction.START, pat)
    with pytest.raises(RuntimeError, match="needs a transaction"):
        async with unit_of_work(shop.engine, transaction=False) as conn:
            await transition_task(conn, task, TaskAction.FINISH, pat)
    async with reading(shop.engine) as conn:
        [row] = await fetch_native(conn, "tasks_by_id", ids=[task])
    assert row.status == "STARTED"


async def test_over_http_a_start_and_a_finish_send_nothing_more(
    running_app: tuple[str, Any], api: Client, shop: Shop
) -> None:
    """The request around the move (the token's viewer, the document, the cost, the
    answer) reads nothing once the viewer is known: what the HTTP requests' own tasks send
    is the moves' statements alone (the server's background loops share its pool)."""
    [task] = await print_tasks(shop, 1)
    engine = running_app[1].state.services.engine
    pat = api.as_(shop.tokens["pat"])
    assert (await pat("{ me { name } }"))["me"]["name"] == "Pat"
    variables = {"i": {"taskId": gid("DepartmentTask", task)}}
    for field, mutation, expected in (
        ("startTask", START, ["statement"]),
        ("finishTask", FINISH, ["BEGIN", *["statement"] * 3, "COMMIT"]),
    ):
        with sent(engine, in_http_request) as statements:
            assert (await pat(mutation, variables))[field]["changed"] is True
            await recorded()
        # As a count: in plain execution SQLAlchemy's adapter sends BEGIN as the first
        # statement starts, which its hook has already seen.
        assert Counter(statements) == Counter(expected), field
