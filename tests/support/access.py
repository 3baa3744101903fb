"""What the access and paging tests share: one request that must never be a 500 nor a
masked error, the error codes of an answer, statements run as they are, a display token
issued through src/db, a work order cancelled by Sales, and a node's pk read from its
global id.
"""

import base64
from typing import Any

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from db import people
from db.engine import unit_of_work
from domain.enums import TokenKind
from tests.support.client import Client, gid
from tests.support.shop import Shop


async def post(
    api: Client, token: str | None, query: str, variables: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One request; never a 500, never a stack trace, never a masked unexpected error."""
    headers = {"authorization": f"Bearer {token}"} if token else {}
    response: httpx.Response = await api.http.post(
        api.url, json={"query": query, "variables": variables or {}}, headers=headers
    )
    assert response.status_code < 500, response.text[:500]
    assert "Traceback" not in response.text
    assert "INTERNAL_SERVER_ERROR" not in response.text, response.text[:500]
    body: dict[str, Any] = response.json()
    return body


CANCEL = """mutation($id: ID!, $reason: String!) {
  cancelWorkOrder(input: {workOrderId: $id, reason: $reason}) { userErrors { code } } }"""


async def cancel(api: Client, shop: Shop, order: int, reason: str) -> None:
    """Sales cancels `order` through the API, which takes it."""
    body = await post(
        api, shop.tokens["sam"], CANCEL, {"id": gid("WorkOrder", order), "reason": reason}
    )
    assert body["data"]["cancelWorkOrder"]["userErrors"] == []


def codes(body: dict[str, Any]) -> list[str]:
    return [e["extensions"]["code"] for e in body.get("errors") or []]


async def sql(engine: AsyncEngine, statement: str, **params: Any) -> list[Any]:
    async with engine.begin() as conn:
        result = await conn.execute(text(statement), params)
        return list(result.all()) if result.returns_rows else []


async def display_token(shop: Shop, *codes_: str) -> str:
    async with unit_of_work(shop.engine) as conn:
        issued = await people.issue_token(
            conn,
            kind=TokenKind.DISPLAY,
            name="wall",
            user_id=shop.users["ada"],
            ttl_seconds=None,
            department_ids=[shop.departments[c] for c in codes_],
        )
    return issued.token


def pk(node: dict[str, Any]) -> int:
    return int(base64.b64decode(node["id"]).decode().split(":")[1])
