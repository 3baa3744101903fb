"""Two server processes on one database: a move made through either reaches the
subscribers of the other."""

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import (
    START,
    Client,
    Shop,
    cursor_now,
    free_port,
    gid,
    print_tasks,
    subscriber,
    take,
)

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.e2e


@pytest.fixture
def second_server(database_url: str) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database_url}
    proc = subprocess.Popen(
        [sys.executable, "-m", "pressroom.cli", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines = []
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.append(line)
        if "Application startup complete" in line:
            break
    else:
        pytest.fail("second server did not start:\n" + "".join(lines))
    try:
        yield f"http://127.0.0.1:{port}/graphql"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)


async def test_moves_cross_between_processes(
    api: Client, server: str, second_server: str, shop: Shop
) -> None:
    first, second = api, Client(api.http, second_server)
    tasks = await print_tasks(shop, 2)
    token = shop.tokens["pat"]
    variables = {"department": "print", "after": await cursor_now(second, token)}
    async with subscriber(second_server, token, "graphql-transport-ws", variables) as on_second:
        await first.as_(token)(START, {"i": {"taskId": gid("DepartmentTask", tasks[0])}})
        [event] = await take(on_second, 1)
    assert event["queueEvents"]["task"]["id"] == gid("DepartmentTask", tasks[0])

    variables = {"department": "print", "after": await cursor_now(first, token)}
    async with subscriber(server, token, "graphql-ws", variables) as on_first:
        await second.as_(token)(START, {"i": {"taskId": gid("DepartmentTask", tasks[1])}})
        [event] = await take(on_first, 1)
    assert event["queueEvents"]["task"]["id"] == gid("DepartmentTask", tasks[1])
