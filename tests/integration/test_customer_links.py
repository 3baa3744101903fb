"""Customer links (`/c/{secret}`): made by Sales with the secret shown once and kept as a
hash; bad input refused in words, making nothing; revoked and expired links get a page
saying so (and how to reach the shop); a link reaches its own order and nothing else, and
its page names no id but its own address."""

import hashlib
import re
from datetime import UTC, datetime, timedelta

import httpx
from sqlalchemy import text

from db.engine import unit_of_work
from tests.support.client import Client, gid, site
from tests.support.customer_page import CREATE, REVOKE, customer_links_pk, hardened, make_link
from tests.support.shop import Shop

LINKS = """query($id: ID!) { workOrder(id: $id) { ... on WorkOrder {
  customerLinks { id works expiresAt lastUsedAt } } } }"""


async def test_sales_make_a_link_whose_secret_is_kept_only_as_its_hash(
    api: Client, shop: Shop, server: str, http: httpx.AsyncClient
) -> None:
    order = await shop.order(["design", "print"], details={"product": "Flyers A5", "quantity": 500})
    made = await make_link(api, shop, order)
    secret = made["secret"]
    assert made["url"] == f"{site(server)}/c/{secret}"
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", secret)
    assert made["link"]["works"] is True and made["link"]["expiresAt"] is None
    assert made["link"]["createdBy"] == {"name": "Sam"}
    async with shop.engine.connect() as conn:
        stored = (await conn.execute(text("SELECT * FROM customer_links"))).one()
    assert stored.secret_hash == hashlib.sha256(secret.encode()).digest()
    assert secret not in repr(tuple(stored))

    page = await http.get(made["url"])
    assert page.status_code == 200
    hardened(page)
    body = page.text
    assert "Order WO-" in body and "500 x Flyers A5" in body
    assert '<p class="stage" id="stage">Received</p>' in body
    # No person's name: not the Sales person who made the link, nor the customer's.
    assert "Sam" not in body and "ACME" not in body

    # Who may: Sales and admins; not the floor, for making or for listing.
    refused = await api.as_(shop.tokens["pat"]).raw(
        CREATE, {"i": {"workOrderId": gid("WorkOrder", order)}}
    )
    assert refused["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    listed = await api.as_(shop.tokens["ada"])(LINKS, {"id": gid("WorkOrder", order)})
    [link] = listed["workOrder"]["customerLinks"]
    assert link["lastUsedAt"] is not None, "opening the page marks the link used"
    floor = await api.as_(shop.tokens["pat"]).raw(LINKS, {"id": gid("WorkOrder", order)})
    assert floor["errors"][0]["extensions"]["code"] == "FORBIDDEN"


async def test_bad_input_is_refused_in_words_and_makes_nothing(api: Client, shop: Shop) -> None:
    order = await shop.order(["print"])
    sam = api.as_(shop.tokens["sam"])
    past = (datetime.now(UTC) - timedelta(days=1)).isoformat()
    cases = [
        ({"workOrderId": gid("WorkOrder", order), "expiresAt": past}, "INVALID_INPUT", "expiresAt"),
        ({"workOrderId": gid("WorkOrder", order + 1000)}, "NOT_FOUND", "workOrderId"),
        ({"workOrderId": gid("Customer", shop.customer_id)}, "NOT_FOUND", "workOrderId"),
    ]
    for given, code, field in cases:
        answer = (await sam(CREATE, {"i": given}))["createCustomerLink"]
        assert answer["secret"] is None
        assert [(e["code"], e["field"]) for e in answer["userErrors"]] == [(code, field)]
    async with shop.engine.connect() as conn:
        assert await conn.scalar(text("SELECT count(*) FROM customer_links")) == 0


async def test_a_revoked_link_says_so_and_how_to_reach_the_shop(
    api: Client, shop: Shop, http: httpx.AsyncClient
) -> None:
    order = await shop.order(["print"])
    made = await make_link(api, shop, order)
    other = await make_link(api, shop, order)
    sam = api.as_(shop.tokens["sam"])
    revoked = (await sam(REVOKE, {"i": {"id": made["link"]["id"]}}))["revokeCustomerLink"]
    assert revoked["link"]["works"] is False and revoked["link"]["revokedAt"] is not None
    again = (await sam(REVOKE, {"i": {"id": made["link"]["id"]}}))["revokeCustomerLink"]
    assert [e["code"] for e in again["userErrors"]] == ["INVALID_TRANSITION"]

    for url in (made["url"], made["url"] + "/state"):
        page = await http.get(url)
        assert page.status_code == 410
        hardened(page)
        assert "This link was withdrawn" in page.text
        assert "Please contact Print shop." in page.text and "ask us for a new one" in page.text
        assert "WO-" not in page.text, "nothing of the order"
    assert (await http.get(other["url"])).status_code == 200, "the order's other link works"


async def test_an_expired_link_says_so(api: Client, shop: Shop, http: httpx.AsyncClient) -> None:
    order = await shop.order(["print"])
    soon = await make_link(api, shop, order, expiresAt="2099-01-01T00:00:00Z")
    by_default = await make_link(api, shop, order)
    assert soon["link"]["expiresAt"].startswith("2099-01-01")
    async with unit_of_work(shop.engine) as conn:
        await conn.execute(
            text(
                "UPDATE customer_links SET expires_at = now() - interval '1 second' WHERE id = :id"
            ),
            {"id": customer_links_pk(soon)},
        )
    page = await http.get(soon["url"])
    assert page.status_code == 410 and "This link has expired" in page.text
    hardened(page)

    # Without an expiry of its own: 60 days after the order completes.
    await shop.complete(order)
    assert (await http.get(by_default["url"])).status_code == 200
    for days_ago, status in ((59, 200), (61, 410)):
        async with unit_of_work(shop.engine) as conn:
            await conn.execute(
                text(
                    "UPDATE work_orders SET last_completed_at = now() - make_interval(days => :d)"
                ),
                {"d": days_ago},
            )
        assert (await http.get(by_default["url"])).status_code == status
    listed = await api.as_(shop.tokens["sam"])(LINKS, {"id": gid("WorkOrder", order)})
    works = {link["id"]: link["works"] for link in listed["workOrder"]["customerLinks"]}
    assert works == {soon["link"]["id"]: False, by_default["link"]["id"]: False}


async def test_a_link_reaches_its_own_order_and_nothing_else(
    api: Client, shop: Shop, server: str, http: httpx.AsyncClient
) -> None:
    mine = await shop.order(["print"], order_number="MINE-1")
    theirs = await shop.order(["print"], order_number="THEIRS-2")
    made = await make_link(api, shop, mine)
    base = site(server)
    # Another order's id, however it is put, reaches nothing of it.
    for url in (
        f"{made['url']}?id={gid('WorkOrder', theirs)}",
        f"{made['url']}/../{gid('WorkOrder', theirs)}",
        f"{base}/c/{gid('WorkOrder', theirs)}",
        f"{base}/c/{theirs}",
    ):
        page = await http.get(url)
        assert "THEIRS-2" not in page.text, url
    page = (await http.get(made["url"])).text
    assert "MINE-1" in page and "THEIRS-2" not in page
    # The page holds no id of anything: its own address is the only one it names.
    assert gid("WorkOrder", mine) not in page
    assert set(re.findall(r'(?:href|src|data-state)="([^"]+)"', page)) == {
        "/static/customer/customer.css",
        "/static/customer/customer.js",
        f"/c/{made['secret']}/state",
    }
