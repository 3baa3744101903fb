"""The customer's page of a link (`/c/{secret}`): its stage follows the order ("In design"
while the departments that make the proof work), it lists the proof versions without naming
anyone and sends the order's own proofs sandboxed; the customer approves or asks for
changes there, and a refused decision says why, keeps what was typed and writes nothing; an
unreachable database gets a page saying so; the page speaks the shop's language, English
where that language has no words."""

import hashlib
import io
import re
import secrets
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from PIL import Image
from sqlalchemy import text
from starlette.applications import Starlette

from api.services import Services
from db import people
from db.engine import create_engine, unit_of_work
from domain.enums import DepartmentKind
from routes import customer_page
from routes.customer_policy import CustomerPagePolicy
from tests.support.client import Client, gid, site
from tests.support.customer_page import (
    REVOKE,
    customer_links_pk,
    hardened,
    link_for,
    make_link,
)
from tests.support.database import table_snapshot, task_ids
from tests.support.proofs import FOLLOWS, chained, proof_departments
from tests.support.servers import app_from, free_port
from tests.support.shop import Shop
from tests.support.subscriptions import START

DECIDED = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


async def test_the_state_follows_the_order(
    api: Client, shop: Shop, http: httpx.AsyncClient
) -> None:
    order = await shop.order(["design", "print"])
    made = await make_link(api, shop, order)
    first = (await http.get(made["url"] + "/state")).json()
    assert first["stage"] == "Received"
    again = (await http.get(made["url"] + "/state")).json()
    assert again["fingerprint"] == first["fingerprint"], "nothing changed"
    tasks = await task_ids(shop.engine, order)
    await api.as_(shop.tokens["dee"])(
        START, {"i": {"taskId": gid("DepartmentTask", tasks["design"])}}
    )
    moved = await http.get(made["url"] + "/state")
    hardened(moved)
    assert moved.json()["stage"] == "In design"
    assert moved.json()["fingerprint"] != first["fingerprint"]
    page = (await http.get(made["url"])).text
    assert f'data-fingerprint="{moved.json()["fingerprint"]}"' in page


@pytest.mark.parametrize("shop_routing", ["design gates delivery", "packing after print"])
async def test_in_design_is_the_work_of_the_departments_that_make_the_proof(
    api: Client, shop: Shop, http: httpx.AsyncClient, shop_routing: str
) -> None:
    """Design → Print, and Print waits for an approved proof: Design makes the proof, so
    its work reads "In design" even where it gates delivery too, and a department after
    Print (Packing, needing no proof) reads "In production"."""
    async with unit_of_work(shop.engine) as conn:
        packing = await people.create_department(
            conn, "packing", "Packing", DepartmentKind.PRODUCTION, False
        )
        shop.departments["packing"] = packing.id
        if shop_routing == "design gates delivery":
            await conn.execute(
                text("UPDATE departments SET gates_delivery = true WHERE code = 'design'")
            )
    await proof_departments(api, shop, "print")
    await chained(api, shop)
    body = await api.as_(shop.tokens["ada"])(
        FOLLOWS, {"i": {"departmentCode": "packing", "followsCodes": ["print"]}}
    )
    assert body["setDepartmentFollows"]["userErrors"] == []
    await shop.add_user("pam", ["packing"])
    if shop_routing == "design gates delivery":
        order = await shop.order(["design", "print"])
        worker, code = "dee", "design"
    else:
        order = await shop.order(["design", "print", "packing"])
        await shop.complete(order, ["design", "print"])
        worker, code = "pam", "packing"
    made = await make_link(api, shop, order)
    tasks = await task_ids(shop.engine, order)

    started = await api.as_(shop.tokens[worker])(
        START, {"i": {"taskId": gid("DepartmentTask", tasks[code])}}
    )

    assert started["startTask"]["changed"] is True
    expected = "In design" if code == "design" else "In production"
    assert (await http.get(made["url"] + "/state")).json()["stage"] == expected


async def add_proof(shop: Shop, order: int, version: int, status: str, **decided: Any) -> None:
    """A proof version's row as the files and the gate leave it (its bytes are theirs)."""
    columns = {
        "work_order_id": order,
        "version": version,
        "file_name": f"flyer-v{version}.pdf",
        "media_type": "application/pdf",
        "size_bytes": 1_234_567,
        "sha256": hashlib.sha256(b"%d" % version).digest(),
        "uploaded_by": shop.users["dee"],
        "status": status,
        **decided,
    }
    names = ", ".join(columns)
    values = ", ".join(f":{c}" for c in columns)
    async with unit_of_work(shop.engine) as conn:
        await conn.execute(text(f"INSERT INTO proofs ({names}) VALUES ({values})"), columns)


async def test_the_page_lists_the_proof_versions_without_naming_anyone(
    api: Client, shop: Shop, http: httpx.AsyncClient
) -> None:
    order = await shop.order(["design", "print"])
    made = await make_link(api, shop, order)
    decided = {"decided_at": DECIDED, "decided_through": "CUSTOMER", "decided_by_name": "Jane"}
    await add_proof(shop, order, 1, "WITHDRAWN")
    await add_proof(shop, order, 2, "CHANGES_REQUESTED", comment="Bigger logo", **decided)
    await add_proof(shop, order, 3, "PENDING")
    page = (await http.get(made["url"])).text
    assert '<p class="stage" id="stage">Waiting for your approval</p>' in page
    versions = re.findall(r'<h3 id="version-\d">(Version \d)</h3>', page)
    assert versions == ["Version 3", "Version 2", "Version 1"], "newest first"
    assert "Replaced by a newer version" in page
    assert 'Changes requested on <time datetime="2026-12-01T10:00:00+00:00"' in page
    assert "Your comments: Bigger logo" in page
    assert "Download Version 3 (PDF, 1.2 MB)" in page
    assert f'src="/c/{made["secret"]}/proofs/3/preview"' in page
    # Neither who decided nor who uploaded: the page names no one but the shop.
    assert "Jane" not in page and "Dee" not in page


def png(width: int = 60, height: int = 40) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


async def upload(http: httpx.AsyncClient, server: str, shop: Shop, order: int, body: bytes) -> None:
    answer = await http.post(
        f"{site(server)}/orders/{gid('WorkOrder', order)}/proofs",
        files={"file": ("flyer proof.png", body, "image/png")},
        headers={"authorization": f"Bearer {shop.tokens['sam']}"},
    )
    assert answer.status_code == 201, answer.text


async def test_a_link_sends_its_own_orders_proofs_sandboxed(
    api: Client, shop: Shop, server: str, http: httpx.AsyncClient
) -> None:
    mine, theirs = await shop.order(["design", "print"]), await shop.order(["design", "print"])
    made = await make_link(api, shop, mine)
    body = png()
    await upload(http, server, shop, mine, body)
    await upload(http, server, shop, theirs, png(10, 10))
    await upload(http, server, shop, theirs, png(12, 12))

    file = await http.get(made["url"] + "/proofs/1/file")
    assert file.status_code == 200 and file.content == body
    assert file.headers["content-type"] == "image/png"
    assert file.headers["content-disposition"].startswith('attachment; filename="flyer proof.png"')
    preview = await http.get(made["url"] + "/proofs/1/preview")
    assert preview.status_code == 200 and preview.headers["content-type"] == "image/png"
    assert preview.headers["content-disposition"].startswith("inline;")
    assert Image.open(io.BytesIO(preview.content)).size == (60, 40)
    for answer in (file, preview):
        assert answer.headers["cache-control"] == "no-store"
        assert answer.headers["referrer-policy"] == "no-referrer"
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["content-security-policy"].startswith("sandbox")
    # Version 2 is the other order's only: this link has none.
    missing = await http.get(made["url"] + "/proofs/2/file")
    assert missing.status_code == 404 and "No such version" in missing.text
    hardened(missing)


async def proof_rows(shop: Shop) -> list[Any]:
    async with shop.engine.connect() as conn:
        found = await conn.execute(text("SELECT * FROM proofs ORDER BY work_order_id, version"))
        return list(found)


async def events_of(shop: Shop, kind: str) -> int:
    async with shop.engine.connect() as conn:
        return int(
            await conn.scalar(text("SELECT count(*) FROM events WHERE type = :k"), {"k": kind})
        )


async def test_the_customer_approves_through_the_link(
    api: Client, shop: Shop, server: str, http: httpx.AsyncClient
) -> None:
    order = await shop.order(["design", "print"])
    made = await make_link(api, shop, order)
    await upload(http, server, shop, order, png())
    page = (await http.get(made["url"])).text
    assert f'action="/c/{made["secret"]}/proofs/1/approve"' in page
    # A double click: two posts, one decision.
    answers = [
        await http.post(made["url"] + "/proofs/1/approve", data={"name": "Jane Doe"})
        for _ in range(2)
    ]
    assert [a.status_code for a in answers] == [303, 303]
    assert answers[0].headers["location"] == f"/c/{made['secret']}?done=approved"
    [proof] = await proof_rows(shop)
    assert (proof.status, proof.decided_through, proof.decided_by_name) == (
        "APPROVED", "CUSTOMER", "Jane Doe"
    )  # fmt: skip
    assert proof.customer_link_id == customer_links_pk(made) and proof.decided_by is None
    assert await events_of(shop, "PROOF_APPROVED") == 1
    shown = await http.get(made["url"] + "?done=approved")
    hardened(shown)
    assert "Thank you: your approval is recorded." in shown.text
    assert "Approved on <time" in shown.text and "Jane" not in shown.text
    assert "/proofs/1/approve" not in shown.text, "a decided version asks nothing more"


async def test_a_refused_decision_says_why_keeps_what_was_typed_and_writes_nothing(
    api: Client, shop: Shop, server: str, http: httpx.AsyncClient
) -> None:
    order = await shop.order(["design", "print"])
    made = await make_link(api, shop, order)
    await upload(http, server, shop, order, png())
    # Opened once: a link is marked used at most once a minute, so what follows writes nothing.
    assert (await http.get(made["url"])).status_code == 200
    before = await table_snapshot(shop.engine)
    sneaky = "<script>alert(1)</script>"
    no_comment = await http.post(made["url"] + "/proofs/1/changes", data={"name": sneaky})
    assert no_comment.status_code == 422
    hardened(no_comment)
    assert "Please say what should change" in no_comment.text
    assert (
        "&lt;script&gt;alert(1)&lt;/script&gt;" in no_comment.text and sneaky not in no_comment.text
    )
    no_name = await http.post(made["url"] + "/proofs/1/approve", data={"name": "  "})
    assert no_name.status_code == 422 and "Please give your name" in no_name.text
    neither = await http.post(made["url"] + "/proofs/1/changes", data={"name": " "})
    assert neither.status_code == 422
    assert "Please say what should change" in neither.text
    assert "Please give your name" in neither.text
    assert await table_snapshot(shop.engine) == before

    # A newer version withdraws the first: deciding on it is refused, the newer one waits.
    await upload(http, server, shop, order, png(30, 30))
    stale = await http.post(made["url"] + "/proofs/1/approve", data={"name": "Jane"})
    assert stale.status_code == 409 and "A newer version has arrived" in stale.text
    missing = await http.post(made["url"] + "/proofs/7/approve", data={"name": "Jane"})
    assert missing.status_code == 404
    changes = await http.post(
        made["url"] + "/proofs/2/changes", data={"name": "Jane", "comment": "Bigger logo"}
    )
    assert changes.status_code == 303
    statuses = [(p.version, p.status, p.comment) for p in await proof_rows(shop)]
    assert statuses == [(1, "WITHDRAWN", None), (2, "CHANGES_REQUESTED", "Bigger logo")]
    again = await http.post(made["url"] + "/proofs/2/approve", data={"name": "Jane"})
    assert again.status_code == 409 and "already decided" in again.text
    assert "Jane" not in again.text.replace('value="Jane"', "")

    # A revoked link decides nothing.
    await upload(http, server, shop, order, png(40, 40))
    await api.as_(shop.tokens["sam"])(REVOKE, {"i": {"id": made["link"]["id"]}})
    before = await table_snapshot(shop.engine)
    gone = await http.post(made["url"] + "/proofs/3/approve", data={"name": "Jane"})
    assert gone.status_code == 410
    assert await table_snapshot(shop.engine) == before


async def test_an_unreachable_database_gets_a_page_saying_so() -> None:
    """Never a stack or a blank: the page asks the customer to come back."""
    nowhere = create_engine(f"postgresql://pressroom@127.0.0.1:{free_port()}/pressroom")
    try:
        services = Services(engine=nowhere, session_ttl_seconds=60)
        app = Starlette(routes=customer_page.routes(services, CustomerPagePolicy(), "en-GB"))
        transport = httpx.ASGITransport(app=app, client=("192.0.2.1", 1234))
        async with httpx.AsyncClient(transport=transport, base_url="http://pressroom") as client:
            answer = await client.get(f"/c/{secrets.token_urlsafe(32)}")
    finally:
        await nowhere.dispose()
    assert answer.status_code == 503 and answer.headers["retry-after"] == "30"
    hardened(answer)
    assert "Your order cannot be shown right now" in answer.text


async def test_the_page_speaks_the_shops_language(
    database_url: str, shop: Shop, server: str, http: httpx.AsyncClient
) -> None:
    order = await shop.order(["design", "print"], details={"product": "Flyers A5", "quantity": 500})
    link = await link_for(shop, order)
    async with app_from(database_url, "192.0.2.40", locale="de-DE") as german:
        received = await german.get(link)
        await upload(http, server, shop, order, png(40, 40))
        waiting = await german.get(link)
        state = (await german.get(link + "/state")).json()
        refused = await german.post(link + "/proofs/1/changes", data={"name": "Jane"})
        unknown = await german.get(f"/c/{secrets.token_urlsafe(32)}")
    assert received.status_code == 200
    assert '<html lang="de">' in received.text
    assert "<h1>Auftrag WO-" in received.text
    assert ">Wo Ihr Auftrag gerade ist</h2>" in received.text
    assert '<p class="stage" id="stage">Eingegangen</p>' in received.text
    assert "Fragen? Bitte wenden Sie sich an Print shop." in received.text
    assert '<p class="stage" id="stage">Wartet auf Ihre Freigabe</p>' in waiting.text
    for said in ("Version 1 freigeben", "Änderungen anfordern", "Ihr Name",
                 "Was soll geändert werden?", "Version 1 herunterladen (PNG, 1 kB)",
                 "Zuletzt aktualisiert"):  # fmt: skip
        assert said in waiting.text, said
    # The page's script gets its words with the page.
    assert "Ihr Auftrag hat sich geändert" in waiting.text
    assert state["stage"] == "Wartet auf Ihre Freigabe"
    assert refused.status_code == 422
    assert "Bitte sagen Sie uns, was geändert werden soll" in refused.text
    assert unknown.status_code == 404
    assert "Dieser Link funktioniert nicht" in unknown.text


async def test_a_language_without_words_reads_english(database_url: str, shop: Shop) -> None:
    link = await link_for(shop, await shop.order(["print"]))
    async with app_from(database_url, "192.0.2.41", locale="ja-JP") as client:
        page = await client.get(link)
    assert page.status_code == 200
    assert '<html lang="en">' in page.text
    assert ">Where your job is</h2>" in page.text
    assert '<p class="stage" id="stage">Received</p>' in page.text
    # Its times are still written in the shop's locale.
    assert 'lang="ja-JP"' in page.text
