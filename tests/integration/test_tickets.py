"""Job tickets: the PDF (`/orders/{id}/ticket.pdf`) carries the job in words, read back by
text extraction, and a QR code that decodes to the order's page; A4 or Letter; the same
address and departments in `WorkOrder.ticket`; PRESSROOM_PUBLIC_URL and the shop's time
zone honoured; refusals in words. A ticket is one page whatever its order holds, rendered
off the event loop a bounded number at once, by a PDF library imported at the first one."""

import asyncio
import io
import subprocess
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pypdf
import pypdfium2
import pytest

from api.services import Services
from db import customers
from db.corrections import remove_department
from db.engine import unit_of_work
from db.tasks import Actor
from domain.contacts import Contact
from domain.enums import WorkOrderPriority
from routes import tickets
from tests.support.client import Client, gid, site
from tests.support.database import counting
from tests.support.servers import serving
from tests.support.shop import Shop
from tests.support.subscriptions import display_token
from tests.support.tickets import read, ticket_pdf

ROOT = Path(__file__).resolve().parents[2]
DUE = datetime(2027, 3, 4, 13, 30, tzinfo=UTC)
DETAILS = {"product": "Flyers A5", "quantity": 500, "paperType": "gloss", "sides": 2.0}
TICKET = """query T($id: ID!) { workOrder(id: $id) {
  detailLines { label value } ticket { url qrSvg departments { name } } } }"""


async def a_job(shop: Shop) -> int:
    """A rush job of Print and Finishing (Design removed from it) for a customer whose name
    is beyond Latin-1."""
    async with unit_of_work(shop.engine) as conn:
        customer = await customers.create_customer(
            conn, "Café Zoë — Łódź", shop.users["sam"], Contact()
        )
    shop.customer_id = customer.customer.id
    order = await shop.order(
        ["design", "print", "finishing"], details=DETAILS, due_at=DUE,
        priority=WorkOrderPriority.RUSH,
    )  # fmt: skip
    async with unit_of_work(shop.engine) as conn:
        await remove_department(
            conn, order, "design", "Artwork supplied.", None,
            Actor(shop.users["sam"], False, is_sales=True),
        )  # fmt: skip
    return order


async def tickets_pdf(
    http: httpx.AsyncClient, base: str, ids: str, token: str | None, **params: str
) -> httpx.Response:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return await http.get(f"{base}/tickets.pdf", params={"ids": ids, **params}, headers=headers)


def pages_of(pdf: bytes) -> list[str]:
    """Each page's text, read by another PDF library than the one the tests read tickets by."""
    document = pypdfium2.PdfDocument(pdf)
    try:
        return [page.get_textpage().get_text_bounded() for page in document]
    finally:
        document.close()


async def test_the_pdf_says_the_job_and_its_qr_code_opens_the_order(
    shop: Shop, http: httpx.AsyncClient, server: str
) -> None:
    order = gid("WorkOrder", await a_job(shop))
    response = await ticket_pdf(http, site(server), order, shop.tokens["pat"])
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/pdf"
    text, codes, size = read(response.content)
    url = f"{site(server)}/orders/{order}"
    assert codes == [url]
    for words in [
        "WO-000001", "RUSH", "Café Zoë — Łódź", "500 x Flyers A5", "Due 2027-03-04 13:30 UTC",
        "Paper type", "gloss", "Sides", "Print", "Finishing", "Delivery", url,
    ]:  # fmt: skip
        assert words in text, words
    assert "Design" not in text
    assert size == pytest.approx((595.3, 841.9), abs=0.1)  # A4


async def test_letter_is_the_other_paper(shop: Shop, http: httpx.AsyncClient, server: str) -> None:
    order = gid("WorkOrder", await a_job(shop))
    response = await ticket_pdf(http, site(server), order, shop.tokens["sam"], paper="letter")
    _, codes, size = read(response.content)
    assert size == (612.0, 792.0)
    assert codes == [f"{site(server)}/orders/{order}"]


async def test_the_api_gives_the_same_address_and_departments(
    shop: Shop, api: Client, server: str
) -> None:
    order = gid("WorkOrder", await a_job(shop))
    found = (await api.as_(shop.tokens["pat"])(TICKET, {"id": order}))["workOrder"]
    assert found["ticket"]["url"] == f"{site(server)}/orders/{order}"
    # In route order: this shop's departments follow none, so by name; delivery last.
    assert [d["name"] for d in found["ticket"]["departments"]] == ["Finishing", "Print", "Delivery"]
    assert found["ticket"]["qrSvg"].startswith("<svg")
    # In the order PostgreSQL keeps a JSON object's keys (shorter first), as `details`.
    assert found["detailLines"] == [
        {"label": "Sides", "value": "2"},
        {"label": "Product", "value": "Flyers A5"},
        {"label": "Quantity", "value": "500"},
        {"label": "Paper type", "value": "gloss"},
    ]


@pytest.mark.parametrize(
    ("who", "order", "params", "status", "message"),
    [
        (None, "mine", {}, 401, "Sign in first"),
        ("display", "mine", {}, 403, "Wall display tokens"),
        ("pat", "nope", {}, 404, "No work order has the id 'nope'"),
        ("pat", "customer", {}, 404, "No work order has the id"),
        ("pat", "mine", {"paper": "a3"}, 400, "Choose A4 or Letter paper"),
    ],
)  # fmt: skip
async def test_refusals_say_why(
    shop: Shop, api: Client, http: httpx.AsyncClient, server: str,
    who: str | None, order: str, params: dict[str, str], status: int, message: str,
) -> None:  # fmt: skip
    mine = gid("WorkOrder", await a_job(shop))
    token = None
    if who == "display":
        token = (await display_token(api, shop, ["print"]))["secret"]
    elif who:
        token = shop.tokens[who]
    path = {"mine": mine, "nope": "nope", "customer": gid("Customer", shop.customer_id)}[order]
    response = await ticket_pdf(http, site(server), path, token, **params)
    assert response.status_code == status
    assert message in response.json()["errors"][0]["message"]


async def test_a_selection_prints_in_one_pdf_a_ticket_a_page_in_the_order_chosen(
    shop: Shop, http: httpx.AsyncClient, server: str
) -> None:
    first = gid("WorkOrder", await a_job(shop))
    others = [gid("WorkOrder", await shop.order(codes)) for codes in (["print"], ["design"])]
    chosen = [others[1], first, others[0]]
    # A repeated id is printed once.
    response = await tickets_pdf(
        http, site(server), ",".join([*chosen, first]), shop.tokens["pat"], paper="letter"
    )
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/pdf"
    assert response.headers["content-disposition"] == (
        'inline; filename="Job-tickets-WO-000003-and-2-more.pdf"'
    )
    pages = pages_of(response.content)
    assert len(pages) == 3
    numbers = ["WO-000003", "WO-000001", "WO-000002"]
    for page, number, order in zip(pages, numbers, chosen, strict=True):
        assert number in page
        assert f"/orders/{order}" in page
    assert "Café Zoë — Łódź" in pages[1]
    assert "RUSH" in pages[1] and "RUSH" not in pages[0] + pages[2]
    assert pypdfium2.PdfDocument(response.content)[0].get_size() == (612.0, 792.0)
    one = await ticket_pdf(http, site(server), first, shop.tokens["pat"])
    assert one.headers["content-disposition"] == 'inline; filename="Job-ticket-WO-000001.pdf"'
    assert len(pages_of(one.content)) == 1


async def test_a_selection_costs_the_same_reads_whatever_its_size(shop: Shop) -> None:
    ids = [await shop.order(["print", "finishing"]) for _ in range(12)]
    services = Services(shop.engine, 3600)
    counts = []
    for chosen in (ids[:1], ids):
        with counting(shop.engine) as statements:
            found = await tickets.load_tickets(services, chosen)
        assert sorted(found) == sorted(chosen)
        counts.append(len(statements))
    assert counts[0] == counts[1]


@pytest.mark.parametrize(
    ("who", "ids", "params", "status", "message"),
    [
        (None, "mine", {}, 401, "Sign in first"),
        ("display", "mine", {}, 403, "Wall display tokens"),
        ("pat", "", {}, 400, "Choose the work orders to print"),
        ("pat", " , ,", {}, 400, "Choose the work orders to print"),
        ("pat", "too many", {}, 400, "Choose at most 50 work orders for one PDF (51 were"),
        ("pat", "mine,nope", {}, 404, "No work order has the id 'nope'."),
        ("pat", "nope,mine,customer", {}, 404, "No work order has these ids: 'nope', 'Q3"),
        ("pat", "mine", {"paper": "a3"}, 400, "Choose A4 or Letter paper"),
    ],
)  # fmt: skip
async def test_a_selections_refusals_say_why(
    shop: Shop, api: Client, http: httpx.AsyncClient, server: str,
    who: str | None, ids: str, params: dict[str, str], status: int, message: str,
) -> None:  # fmt: skip
    mine = gid("WorkOrder", await a_job(shop))
    token = None
    if who == "display":
        token = (await display_token(api, shop, ["print"]))["secret"]
    elif who:
        token = shop.tokens[who]
    named = {"mine": mine, "nope": "nope", "customer": gid("Customer", shop.customer_id)}
    given = ",".join(
        [gid("WorkOrder", n) for n in range(1000, 1051)] if ids == "too many"
        else [named.get(i, i) for i in ids.split(",")]
    )  # fmt: skip
    with counting(shop.engine) as statements:
        response = await tickets_pdf(http, site(server), given, token, **params)
    assert response.status_code == status
    assert message in response.json()["errors"][0]["message"]
    if status == 400:
        assert [s for s in statements if "work_order" in s] == []


async def test_the_public_address_and_the_shops_time_zone(
    shop: Shop, database_url: str, http: httpx.AsyncClient
) -> None:
    order = gid("WorkOrder", await a_job(shop))
    settings = {"PRESSROOM_PUBLIC_URL": "https://floor.example.com/shop",
                "PRESSROOM_TIME_ZONE": "Europe/Berlin"}  # fmt: skip
    with serving(None, database_url=database_url, settings=settings) as (base, log):
        response = await ticket_pdf(http, base, order, shop.tokens["pat"])
        body: Any = (
            await http.post(
                base + "/graphql",
                json={"query": TICKET, "variables": {"id": order}},
                headers={"authorization": f"Bearer {shop.tokens['pat']}"},
            )
        ).json()
    text, codes, _ = read(response.content)
    url = f"https://floor.example.com/shop/orders/{order}"
    assert codes == [url]
    assert body["data"]["workOrder"]["ticket"]["url"] == url
    assert "Due 2027-03-04 14:30 CET" in text
    # fpdf2's font subsetting (fontTools) logs each of its steps at INFO: not in our log.
    assert not [line for line in log if "fontTools" in line]


@pytest.mark.parametrize(
    "details",
    [
        {"product": "Flyers", "notes": "\n" * 16384},
        {"product": "Flyers", "notes": "Fold twice. " * 1500},
        {"product": "Flyers"} | {f"line{i}": f"value {i}" for i in range(300)},
    ],
    ids=["newlines", "long-text", "many-details"],
)
async def test_a_ticket_is_one_page_whatever_the_order_holds(
    shop: Shop, http: httpx.AsyncClient, server: str, details: dict[str, str]
) -> None:
    order = gid("WorkOrder", await shop.order(["print", "finishing"], details=details))
    response = await ticket_pdf(http, site(server), order, shop.tokens["pat"])
    pages = pypdf.PdfReader(io.BytesIO(response.content)).pages
    assert len(pages) == 1
    text = pages[0].extract_text()
    # The cut says where the rest is, and what comes after the details is all there.
    assert "the rest is on the order page" in text
    for words in ["Departments", "Print", "Finishing", "Delivery", f"/orders/{order}"]:
        assert words in text, words


async def test_a_long_product_wraps_within_its_one_page(
    shop: Shop, http: httpx.AsyncClient, server: str
) -> None:
    # 300 characters: an order from before the job's caps.
    product = ("Concertina folded leaflet " * 12)[:300]
    details = {"product": product, "quantity": 500}
    order = gid("WorkOrder", await shop.order(["print"], details=details))
    response = await ticket_pdf(http, site(server), order, shop.tokens["pat"])
    document = pypdfium2.PdfDocument(response.content)
    assert len(document) == 1
    text = document[0].get_textpage().get_text_range()
    assert product[-20:] in text.replace("\r\n", " ")
    for words in ["Departments", "Print", "Delivery", f"/orders/{order}"]:
        assert words in text, words


async def test_tickets_render_off_the_event_loop_a_bounded_number_at_once(
    shop: Shop, http: httpx.AsyncClient, server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    order = gid("WorkOrder", await a_job(shop))
    render = tickets.pdf
    release = threading.Event()
    on_the_loop: list[bool] = []

    def held(selection: list[tickets.Ticket], paper: str) -> bytes:
        try:
            asyncio.get_running_loop()
            on_the_loop.append(True)
        except RuntimeError:
            on_the_loop.append(False)
        # Only a bound on a failing run: the renders are released once the rest are refused.
        release.wait(timeout=10)
        return render(selection, paper)

    monkeypatch.setattr(tickets, "pdf", held)
    admitted, extra = tickets.RENDERERS + tickets.WAITING, 3
    pending = {
        asyncio.create_task(ticket_pdf(http, site(server), order, shop.tokens["pat"]))
        for _ in range(admitted + extra)
    }
    refused: list[httpx.Response] = []
    while len(refused) < extra:
        done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        refused += [task.result() for task in done]
    release.set()
    printed = await asyncio.gather(*pending)
    assert [r.status_code for r in refused] == [503] * extra
    assert all(r.headers["retry-after"] == str(tickets.RETRY_AFTER_SECONDS) for r in refused)
    assert refused[0].json()["errors"][0]["extensions"]["code"] == "SERVICE_UNAVAILABLE"
    assert [r.status_code for r in printed] == [200] * admitted
    assert on_the_loop == [False] * admitted


async def test_links_never_follow_the_host_a_request_names(
    shop: Shop, database_url: str, http: httpx.AsyncClient, server: str
) -> None:
    """A client names any Host it likes: a ticket printed through it would send the floor's
    phones to that site. Links start with PRESSROOM_PUBLIC_URL, which in development is
    this machine's address on serve's port when unset."""
    order = gid("WorkOrder", await a_job(shop))
    forged = {"host": "phish.example", "authorization": f"Bearer {shop.tokens['pat']}"}
    response = await http.get(f"{site(server)}/orders/{order}/ticket.pdf", headers=forged)
    body = (await http.post(server, json={"query": TICKET, "variables": {"id": order}},
                            headers=forged)).json()  # fmt: skip
    url = f"{site(server)}/orders/{order}"
    assert read(response.content)[1] == [url]
    assert body["data"]["workOrder"]["ticket"]["url"] == url
    with serving(None, database_url=database_url) as (base, _):
        response = await http.get(f"{base}/orders/{order}/ticket.pdf", headers=forged)
    assert read(response.content)[1] == [f"{base}/orders/{order}"]


def test_a_server_imports_the_pdf_library_at_its_first_ticket_not_at_start() -> None:
    """fpdf2 and its font tools are a quarter of a second of a core in every process the
    app starts in; tickets are printed now and then."""
    start = "import sys, pressroom.app; print(sorted({'fpdf', 'fontTools'} & set(sys.modules)))"
    loaded = subprocess.run(
        [sys.executable, "-c", start], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert loaded.stdout.strip() == "[]", loaded.stderr
