"""The GraphQL over HTTP specification's server audit (npm `graphql-http`, the
specification's reference implementation) against the real server: every audit passes,
the SHOULDs (warnings) as well as the MUSTs."""

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

SCRIPT = Path(__file__).resolve().parent / "node" / "audit.mjs"
WITHIN = 120  # seconds the whole audit (some sixty requests) may take


async def audit(node: str, server: str) -> list[dict[str, Any]]:
    # The server runs in this event loop: the audit must not block it.
    proc = await asyncio.create_subprocess_exec(
        node,
        str(SCRIPT),
        server,
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
        pytest.fail(f"the audit did not finish within {WITHIN}s")
    assert proc.returncode == 0, f"audit.mjs exited {proc.returncode}:\n{err.decode()}"
    results: list[dict[str, Any]] = json.loads(out)
    return results


async def test_every_graphql_over_http_audit_passes(node: str, server: str) -> None:
    results = await audit(node, server)
    assert results, "the audit ran no audit"
    failing = [
        f"{r['status']}: {r['id']} {r['name']}: {r['reason']}"
        for r in results
        if r["status"] != "ok"
    ]
    passed = len(results) - len(failing)
    assert not failing, f"{passed} of {len(results)} audits pass; the others:\n" + "\n".join(
        failing
    )
