"""The database restarts under a running server: the event listener reconnects by itself,
readiness is back, and a subscriber keeps receiving every event. (That readiness drops
while the listener is down is tests/integration/test_liveness.py's.)"""

import asyncio
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from db import admin, embedded, migrate, people
from db.engine import create_engine, unit_of_work
from domain.enums import DepartmentKind, TokenKind
from pressroom.app import create_app
from pressroom.settings import Settings
from tests.support.servers import config_for, free_port, serve
from tests.support.subscriptions import subscriber, take

pytestmark = pytest.mark.e2e


@pytest.fixture
async def own_database() -> AsyncIterator[tuple[Path, str]]:
    """A PostgreSQL of this test's own, so restarting it disturbs no other test. Not under
    pytest's directory: another pytest session makes that one its user's alone again, and
    PostgreSQL's own user must still reach its data to restart it."""
    with tempfile.TemporaryDirectory(prefix="pressroom-restart-") as workdir:
        data_dir = Path(workdir) / "pgdata"
        url = embedded.with_database(await asyncio.to_thread(embedded.start, data_dir), "restart")
        await admin.ensure_database(url)
        await migrate.upgrade(url)
        yield data_dir, url
        await asyncio.to_thread(embedded.stop, data_dir)


async def test_server_survives_a_database_restart(own_database: tuple[Path, str]) -> None:
    data_dir, url = own_database
    engine = create_engine(url)
    async with unit_of_work(engine) as conn:
        ids = {}
        for code, kind in [
            ("print", DepartmentKind.PRODUCTION),
            ("delivery", DepartmentKind.DELIVERY),
        ]:
            ids[code] = (await people.create_department(conn, code, code, kind, code == "print")).id
        sales = await people.create_department(conn, "sales", "Sales", DepartmentKind.SALES, False)
        user = await people.create_user(
            conn,
            email="pat@x.test",
            name="Pat",
            password=None,
            is_admin=False,
            department_ids=[ids["print"], sales.id],
        )
        token = (
            await people.issue_token(
                conn, kind=TokenKind.SESSION, name="t", user_id=user.user.id, ttl_seconds=3600
            )
        ).token
    await engine.dispose()

    port = free_port()
    settings = Settings(feed_poll_seconds=0.2)
    app = create_app(settings, url=url)
    server, serving = await serve(config_for(app, settings, port))
    feed = app.state.services.feed
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(
            base_url=base, headers={"authorization": f"Bearer {token}"}
        ) as http:

            async def gql(query: str, variables: dict[str, Any] | None = None) -> Any:
                body = (
                    await http.post("/graphql", json={"query": query, "variables": variables or {}})
                ).json()
                assert "errors" not in body, body
                return body["data"]

            async def order() -> str:
                customer = await gql(
                    'mutation { createCustomer(input: {name: "C"}) { customer { id } } }'
                )
                made = await gql(
                    "mutation($i: CreateWorkOrderInput!) { createWorkOrder(input: $i) {"
                    " workOrder { tasks { id department { code } } } } }",
                    {
                        "i": {
                            "customerId": customer["createCustomer"]["customer"]["id"],
                            "departmentCodes": ["print"],
                            "details": {"product": "Flyers"},
                        }
                    },
                )
                tasks = made["createWorkOrder"]["workOrder"]["tasks"]
                return str(next(t["id"] for t in tasks if t["department"]["code"] == "print"))

            start = "mutation($i: StartTaskInput!) { startTask(input: $i) { changed } }"
            first, second = await order(), await order()
            cursor = (await gql('{ queue(department: "print") { eventCursor } }'))["queue"][
                "eventCursor"
            ]
            variables = {"department": "print", "after": cursor}
            async with subscriber(
                f"{base}/graphql", token, "graphql-transport-ws", variables
            ) as got:
                await gql(start, {"i": {"taskId": first}})
                [event] = await take(got, 1)
                assert event["queueEvents"]["task"]["id"] == first

                connects = feed.stats.listener_connects
                await asyncio.to_thread(embedded.restart, data_dir)
                # The listener notices its connection died and reconnects by itself.
                async with asyncio.timeout(30):
                    while True:
                        feed.listener_changed.clear()
                        if feed.listening and feed.stats.listener_connects > connects:
                            break
                        await feed.listener_changed.wait()
                assert (await http.get("/readyz")).json()["ok"] is True

                await gql(start, {"i": {"taskId": second}})
                [event] = await take(got, 1)
                assert event["queueEvents"]["task"]["id"] == second
    finally:
        server.should_exit = True
        await serving
