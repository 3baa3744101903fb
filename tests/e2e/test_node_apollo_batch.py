"""Apollo Client's BatchHttpLink (npm `@apollo/client`) under Node against the real
server, which does not batch: whatever the batch's size, with Apollo's default Accept or
`application/json` alone, every operation fails with a ServerError of status 400 whose
body says batching is not supported."""

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from graph.view import NO_BATCHING
from tests.support.shop import Shop

pytestmark = pytest.mark.e2e

SCRIPT = Path(__file__).resolve().parent / "node" / "batch.mjs"
WITHIN = 60  # seconds the Node client may take for one batch


async def batch(node: str, server: str, token: str, operations: int, accept: str) -> Any:
    proc = await asyncio.create_subprocess_exec(
        node,
        str(SCRIPT),
        server,
        token,
        str(operations),
        accept,
        cwd=SCRIPT.parent,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(WITHIN):
            out, err = await proc.communicate()
    except TimeoutError:
        proc.kill()
        await proc.communicate()
        pytest.fail(f"batch.mjs did not finish within {WITHIN}s")
    assert proc.returncode == 0, f"batch.mjs exited {proc.returncode}:\n{err.decode()}"
    return json.loads(out)


@pytest.mark.parametrize("accept", ["", "application/json"], ids=["apollo-default", "json"])
@pytest.mark.parametrize("operations", [1, 3])
async def test_batch_http_link_reports_that_batching_is_not_supported(
    node: str, server: str, shop: Shop, operations: int, accept: str
) -> None:
    outcomes = await batch(node, server, shop.tokens["ada"], operations, accept)
    assert len(outcomes) == operations
    for outcome in outcomes:
        assert outcome["error"] == "ServerError", outcome
        assert outcome["statusCode"] == 400
        assert outcome["message"] == "Response not successful: Received status code 400"
        assert json.loads(outcome["body"]) == {
            "errors": [{"message": NO_BATCHING, "extensions": {"code": "BAD_REQUEST"}}]
        }
