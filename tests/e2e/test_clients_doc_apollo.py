"""docs/clients.md's Apollo Client module, taken from the page as it is written, runs under
Node against the real server (tests/e2e/node/clients_apollo.mjs drives it): the queue's
pages merge in the cache in queue order, queries go by hash once registered, the
subscription over graphql-ws delivers the start made through the module's mutation, and
a second member's start comes back as the ALREADY_TAKEN user error."""

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.clients_doc import named
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e

SCRIPT = Path(__file__).resolve().parent / "node" / "clients_apollo.mjs"
WITHIN = 60  # seconds the Node client may take


def module(folder: Path) -> Path:
    """The page's pressroom.js in a folder of its own, resolving tests/e2e/node's packages."""
    folder.mkdir()
    (folder / "package.json").write_text('{"type": "module"}\n')
    (folder / "node_modules").symlink_to(SCRIPT.parent / "node_modules")
    written = folder / "pressroom.js"
    written.write_text(named("pressroom.js"))
    return written


async def drive(node: str, *arguments: str) -> Any:
    proc = await asyncio.create_subprocess_exec(
        node,
        str(SCRIPT),
        *arguments,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(WITHIN):
            out, err = await proc.communicate()
    except TimeoutError:
        proc.kill()
        await proc.communicate()
        pytest.fail(f"clients_apollo.mjs did not finish within {WITHIN}s")
    assert proc.returncode == 0, f"clients_apollo.mjs exited {proc.returncode}:\n{err.decode()}"
    return json.loads(out)


async def test_the_pages_apollo_module_pages_follows_and_starts_against_the_server(
    node: str, server: str, shop: Shop, tmp_path: Path
) -> None:
    for number in ["A-1", "A-2", "A-3"]:
        await shop.order(["print"], order_number=number)
    ran = await drive(
        node,
        str(module(tmp_path / "client")),
        server,
        "print",
        shop.tokens["pat"],
        shop.tokens["pia"],
    )

    queue = ran["queue"]
    assert [e["node"]["workOrder"]["orderNumber"] for e in queue["edges"]] == ["A-1", "A-2", "A-3"]
    assert queue["totalCount"] == 3
    assert queue["pageInfo"]["hasNextPage"] is False

    first = queue["edges"][0]["node"]["id"]
    assert ran["event"]["kind"] == "TASK_CHANGED"
    assert ran["event"]["task"]["id"] == first
    assert ran["event"]["task"]["status"] == "STARTED"
    assert ran["started"]["changed"] is True
    assert ran["started"]["task"]["status"] == "STARTED"
    assert ran["again"]["changed"] is False
    assert ran["again"]["refused"] is None
    assert ran["refused"]["refused"]["code"] == "ALREADY_TAKEN"
    assert ran["refused"]["task"] is None

    # Each document goes by hash: the first time alone (PERSISTED_QUERY_NOT_FOUND), then
    # with its text, which registers it; the queue's second page sends the hash alone.
    reads = [
        (r["method"], r["query"]) for r in ran["requests"] if r["operationName"] == "ApolloQueue"
    ]
    assert reads == [("GET", False), ("POST", True), ("GET", False)]
    assert all(len(r["hash"]) == 64 for r in ran["requests"])
