"""Apollo Client (npm `@apollo/client`) with its persisted-queries link on, under Node,
against the real server: the first request sends the hash alone, is answered
PERSISTED_QUERY_NOT_FOUND, and the link sends the text with it; from then on the hash
alone runs. By GET (`useGETForHashedQueries`) and by POST, as a person; anonymous callers
do not register, so each of their queries sends the text again."""

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.support.shop import Shop

pytestmark = pytest.mark.e2e

SCRIPT = Path(__file__).resolve().parent / "node" / "apollo.mjs"
WITHIN = 60  # seconds the Node client may take to run its three queries


async def apollo(node: str, server: str, token: str, method: str, document: str) -> Any:
    proc = await asyncio.create_subprocess_exec(
        node,
        str(SCRIPT),
        server,
        token,
        method,
        document,
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
        pytest.fail(f"apollo.mjs did not finish within {WITHIN}s")
    assert proc.returncode == 0, f"apollo.mjs exited {proc.returncode}:\n{err.decode()}"
    return json.loads(out)


def fresh(document: str) -> str:
    """A document this server has not seen (Apollo hashes the printed document, which
    keeps no comments: an alias makes it new)."""
    return document.replace("{ me {", "{ me { n" + uuid.uuid4().hex[:8] + ": name", 1)


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_apollos_persisted_queries_link_registers_then_sends_the_hash_alone(
    node: str, server: str, shop: Shop, method: str
) -> None:
    ran = await apollo(
        node, server, shop.tokens["pat"], method, fresh("query Mine { me { name } }")
    )
    assert [r["me"]["name"] for r in ran["results"]] == ["Pat"] * 3
    requests = ran["requests"]
    [hashed] = {r["hash"] for r in requests}
    assert len(hashed) == 64
    assert [(r["method"], r["query"]) for r in requests] == [
        (method, False),  # the hash alone: PERSISTED_QUERY_NOT_FOUND
        ("POST", True),  # the link sends the text with it: it runs, and is registered
        (method, False),
        (method, False),
    ]


async def test_anonymous_callers_send_the_text_each_time(node: str, server: str) -> None:
    document = "query Plain { __typename t" + uuid.uuid4().hex[:8] + ": __typename }"
    ran = await apollo(node, server, "", "POST", document)
    assert [r["__typename"] for r in ran["results"]] == ["Query"] * 3
    assert [r["query"] for r in ran["requests"]] == [False, True] * 3
