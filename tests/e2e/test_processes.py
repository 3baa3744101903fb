"""Two server processes on one database: a move made through either reaches the
subscribers of the other."""

from collections.abc import Iterator

import pytest
from gql.transport.exceptions import TransportQueryError

from tests.support.client import Client, gid
from tests.support.servers import serving
from tests.support.shop import Shop
from tests.support.subscriptions import START, cursor_now, print_tasks, subscriber, take

pytestmark = pytest.mark.e2e


@pytest.fixture
def second_server(database_url: str) -> Iterator[str]:
    """`pressroom serve` in a process of its own, on the test database."""
    with serving(None, database_url=database_url) as (base, _):
        yield f"{base}/graphql"


async def test_moves_cross_between_processes(
    api: Client, server: str, second_server: str, shop: Shop
) -> None:
    first, second = api, Client(api.http, second_server)
    tasks = await print_tasks(shop, 4)
    token = shop.tokens["pat"]

    async def start(via: Client, task: int) -> None:
        await via.as_(token)(START, {"i": {"taskId": gid("DepartmentTask", task)}})

    variables = {"department": "print", "after": await cursor_now(second, token)}
    async with subscriber(second_server, token, "graphql-transport-ws", variables) as on_second:
        # Replayed or live: once it is in, the subscription is in the second process's feed.
        await start(first, tasks[0])
        [joined] = await take(on_second, 1)
        await start(first, tasks[1])
        [event] = await take(on_second, 1)
    assert joined["queueEvents"]["task"]["id"] == gid("DepartmentTask", tasks[0])
    assert event["queueEvents"]["task"]["id"] == gid("DepartmentTask", tasks[1])

    variables = {"department": "print", "after": await cursor_now(first, token)}
    async with subscriber(server, token, "graphql-ws", variables) as on_first:
        await start(second, tasks[2])
        [joined] = await take(on_first, 1)
        await start(second, tasks[3])
        [event] = await take(on_first, 1)
    assert joined["queueEvents"]["task"]["id"] == gid("DepartmentTask", tasks[2])
    assert event["queueEvents"]["task"]["id"] == gid("DepartmentTask", tasks[3])


async def test_a_membership_change_made_on_one_process_ends_a_subscription_on_the_other(
    api: Client, second_server: str, shop: Shop
) -> None:
    first, second = api, Client(api.http, second_server)
    before, after = await print_tasks(shop, 2)
    token = shop.tokens["pat"]
    variables = {"department": "print", "after": await cursor_now(second, token)}
    async with subscriber(second_server, token, "graphql-transport-ws", variables) as on_second:
        # An event received first shows the subscription started (it was not refused at
        # the start) and is in the second process's feed when the change commits.
        await first.as_(token)(START, {"i": {"taskId": gid("DepartmentTask", before)}})
        [joined] = await take(on_second, 1)
        removed = await first.as_(shop.tokens["ada"])(
            "mutation($i: SetUserDepartmentsInput!) { setUserDepartments(input: $i) {"
            " userErrors { code } } }",
            {"i": {"userId": gid("User", shop.users["pat"]), "departmentCodes": []}},
        )
        assert removed["setUserDepartments"]["userErrors"] == []
        # A move committed after the change must not reach Pat: the error comes first.
        await first.as_(shop.tokens["pia"])(START, {"i": {"taskId": gid("DepartmentTask", after)}})
        [ended] = await take(on_second, 1)
    assert joined["queueEvents"]["task"]["id"] == gid("DepartmentTask", before)
    assert isinstance(ended, TransportQueryError), ended
    assert ended.errors is not None
    assert ended.errors[0]["extensions"]["code"] == "FORBIDDEN"
