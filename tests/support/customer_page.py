"""What the tests of customer links and their page share: a link made (and revoked) by
Sales through the API or made straight through src/db, its pk, and the hardening headers
every answer of the page carries."""

from typing import Any

import httpx

from api.ids import decode_text
from db import customer_links
from db.engine import unit_of_work
from tests.support.client import Client, gid
from tests.support.shop import Shop

CREATE = """mutation($i: CreateCustomerLinkInput!) { createCustomerLink(input: $i) {
  secret url link { id expiresAt works revokedAt lastUsedAt createdBy { name } }
  userErrors { code field message } } }"""
REVOKE = """mutation($i: RevokeCustomerLinkInput!) { revokeCustomerLink(input: $i) {
  link { id works revokedAt } userErrors { code field message } } }"""


async def make_link(api: Client, shop: Shop, order: int, **extra: Any) -> dict[str, Any]:
    made = await api.as_(shop.tokens["sam"])(
        CREATE, {"i": {"workOrderId": gid("WorkOrder", order), **extra}}
    )
    answer: dict[str, Any] = made["createCustomerLink"]
    assert answer["userErrors"] == []
    return answer


def hardened(response: httpx.Response) -> None:
    headers = response.headers
    assert headers["cache-control"] == "no-store"
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["x-content-type-options"] == "nosniff"
    policy = headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy
    assert "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy


def customer_links_pk(made: dict[str, Any]) -> int:
    pk = decode_text(made["link"]["id"], "CustomerLink")
    assert pk is not None
    return pk


async def link_for(shop: Shop, order: int) -> str:
    async with unit_of_work(shop.engine) as conn:
        made = await customer_links.create(conn, order, created_by=shop.users["sam"])
    return f"/c/{made.secret}"
