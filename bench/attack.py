"""The attack as a bench runs it: the payments inbox and the account the attackers knock
at, made through the API, and their process (`python -m bench.attackers`) started with its
spec, then stopped and asked for its figures."""

import asyncio
import contextlib
import json
import os
import sys
import tempfile
from typing import Any

import httpx

from bench import dashboard_seed, fixture
from bench.shop import Shop

VICTIM = "victim@bench.test"
INBOX = "bank"
SIGN_IN = fixture.web_operation("screens/signin.js", "SIGN_IN")
SETUP = """
mutation Setup($inbox: CreatePaymentInboxInput!, $user: CreateUserInput!) {
  createPaymentInbox(input: $inbox) { inbox { id } userErrors { code message } }
  createUser(input: $user) { user { id } userErrors { code message } }
}"""


def attack_spec(url: str, seconds: float) -> dict[str, Any]:
    """What the attackers' process is told: the server's GraphQL URL, how long it may run
    at most, and the inbox and the account it knocks at."""
    return {"url": url, "seconds": seconds, "inbox": INBOX, "victim": VICTIM, "sign_in": SIGN_IN}


async def set_up_targets(url: str, http_url: str, shop: Shop, reads: str) -> None:
    """The payments inbox the attackers knock at, and the account whose password they
    guess, made through the API (the server's at `http_url`) as the shop's admin."""
    token = await dashboard_seed.admin_token(url, shop)
    variables = {
        "inbox": {"name": INBOX, "currency": "GBP"},
        "user": {
            "email": VICTIM,
            "name": "Victim",
            "password": "the real one, long enough",
            "departmentCodes": [reads],
        },
    }
    async with httpx.AsyncClient(timeout=30, trust_env=False) as client:
        response = await client.post(
            http_url,
            json={"query": SETUP, "variables": variables},
            headers={"authorization": f"Bearer {token}"},
        )
    body = response.json()
    data = body.get("data") or {}
    if body.get("errors") or any(data[f]["userErrors"] for f in data):
        raise RuntimeError(f"setting up the inbox and the victim failed: {body}")


class AttackerProcess:
    """`python -m bench.attackers`: started, then stopped and asked for its figures."""

    def __init__(self) -> None:
        self.process: asyncio.subprocess.Process | None = None
        self.spec = tempfile.NamedTemporaryFile(  # noqa: SIM115 (removed in stop)
            "w", prefix="pressroom-bench-attack-", suffix=".json", delete=False
        )

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    async def start(self, spec: dict[str, Any]) -> None:
        json.dump(spec, self.spec)
        self.spec.close()
        self.process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.attackers",
            "--spec",
            self.spec.name,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=fixture.ROOT,
            limit=1 << 26,  # the result carries every answer time
        )
        started = await self._line(30)
        if started.get("kind") != "started":
            raise RuntimeError(f"the attackers did not start: {started}")

    async def _line(self, within: float) -> dict[str, Any]:
        assert self.process is not None and self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), within)
        if not line:
            return {"kind": "ended", "body": f"exit status {await self.process.wait()}"}
        message: dict[str, Any] = json.loads(line)
        return message

    async def stop(self) -> dict[str, Any]:
        """Its figures (or {"failed": why}); the process is gone afterwards."""
        process = self.process
        result: dict[str, Any] = {"failed": "not started"}
        if process is not None and process.stdin is not None:
            with contextlib.suppress(OSError, RuntimeError):
                process.stdin.write(b"stop\n")
                await process.stdin.drain()
            try:
                message = await self._line(60)
                result = message["body"] if message["kind"] == "result" else {"failed": message}
            except (TimeoutError, ValueError) as error:
                result = {"failed": repr(error)}
            try:
                await asyncio.wait_for(process.wait(), 10)
            except TimeoutError:
                process.kill()
                await process.wait()
        with contextlib.suppress(OSError):
            os.unlink(self.spec.name)
        return result
