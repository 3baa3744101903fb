"""Proof files through both doors (uploadProof as a GraphQL multipart request, and
`POST /orders/{id}/proofs`): judged by their bytes, refused with a specific error and
nothing stored when bad, kept byte for byte when good with a PNG preview, sent back with
headers that keep them from running as the site; a new version withdraws the one waiting
for a decision; only Sales, admins and the departments that make an order's proofs may
add them."""

import asyncio
import functools
import io
import struct
import zlib
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from fpdf import FPDF
from PIL import Image
from sqlalchemy import text

from db.cancellation import cancel_work_order
from db.engine import unit_of_work
from tests.support.client import Client, gid, site
from tests.support.database import table_snapshot
from tests.support.proofs import image, upload_graphql
from tests.support.shop import Shop
from tests.support.subscriptions import cursor_now, subscriber, take

MB = 1024 * 1024
PROOFS = """query P($id: ID!) { node(id: $id) { ... on WorkOrder {
  proofs { version status fileName } latestProof { version status } } } }"""


@dataclass
class World:
    shop: Shop
    order: str  # Design and Print (Print waits for an approved proof), and delivery
    order_pk: int

    def token(self, who: str) -> str:
        return self.shop.tokens[who]


@pytest.fixture
async def world(shop: Shop) -> World:
    order = await shop.order(["design", "print"])
    async with unit_of_work(shop.engine) as conn:
        await conn.execute(
            text("UPDATE departments SET needs_approved_proof = true WHERE code = 'print'")
        )
    return World(shop, gid("WorkOrder", order), order)


# ---------------------------------------------------------------------------------------------
# Files.


def pdf(pages: int = 1) -> bytes:
    doc = FPDF()
    for n in range(pages):
        doc.add_page()
        doc.set_font("helvetica", size=28)
        doc.cell(80, 20, f"Proof page {n + 1}")
    return bytes(doc.output())


def turned_jpeg() -> bytes:
    """A 3,200 x 2,000 photo whose EXIF says to turn it a quarter clockwise (orientation
    6, as a phone held upright writes it): shown upright, 2,000 wide and 3,200 high."""
    out = io.BytesIO()
    exif = Image.Exif()
    exif[0x0112] = 6
    Image.new("RGB", (3200, 2000), (20, 90, 200)).save(out, format="JPEG", exif=exif)
    return out.getvalue()


def png_of_size(width: int, height: int) -> bytes:
    """A one-colour, one-bit PNG of `width` x `height`, written row by row through zlib
    so that even billions of pixels take little memory here and little room on disk."""
    row = b"\x00" + b"\x00" * ((width + 7) // 8)
    packer = zlib.compressobj(9)
    data = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
    )


@functools.cache
def bomb() -> bytes:
    return png_of_size(50_000, 50_000)


# ---------------------------------------------------------------------------------------------
# The two doors.


async def upload_http(
    http: httpx.AsyncClient, server: str, token: str, order: str, name: str, data: bytes
) -> tuple[int, dict[str, Any]]:
    response = await http.post(
        f"{site(server)}/orders/{order}/proofs",
        headers={"authorization": f"Bearer {token}"},
        files={"file": (name, data, "image/png")},
    )
    assert response.status_code < 500, response.text
    body = response.json()
    if "errors" in body:
        return response.status_code, {
            "errors": [
                {"code": e["extensions"]["code"], "message": e["message"]} for e in body["errors"]
            ]
        }
    return response.status_code, body


DOORS = {"graphql": upload_graphql, "http": upload_http}


# ---------------------------------------------------------------------------------------------
# Refusals.

BAD = {
    "a PNG named .pdf": (
        "artwork.pdf", lambda: image("PNG"), "UNSUPPORTED_FILE",
        "named 'artwork.pdf', but its content is a PNG image",
    ),
    "a text file named .pdf": (
        "notes.pdf", lambda: b"Please print 500 flyers\n" * 10, "UNSUPPORTED_FILE",
        "not a PDF, PNG or JPEG",
    ),
    "a 50,000 x 50,000 PNG": (
        "bomb.png", bomb, "FILE_TOO_LARGE", "a proof may have at most 40,000,000 pixels",
    ),
    "a 7,000 x 7,000 PNG": (
        "big.png", lambda: png_of_size(7000, 7000), "FILE_TOO_LARGE",
        "The image is 7,000 x 7,000 pixels; a proof may have at most 40,000,000 pixels",
    ),
    "a truncated PDF": (
        "cut.pdf", lambda: pdf(3)[: len(pdf(3)) * 2 // 3], "DAMAGED_FILE",
        "The PDF is incomplete (it does not end with %%EOF)",
    ),
    "a truncated PNG": (
        "cut.png", lambda: image("PNG")[:300], "DAMAGED_FILE",
        "starts as a PNG image but cannot be decoded",
    ),
    "a truncated JPEG": (
        "cut.jpg", lambda: image("JPEG")[:600], "DAMAGED_FILE",
        "starts as a JPEG image but cannot be decoded",
    ),
    "a PDF a little over the limit": (
        "big.pdf", lambda: pdf() + b"%" * (25 * MB), "FILE_TOO_LARGE",
        "larger than 25 MB, the most a proof may be",
    ),
}  # fmt: skip
HTTP_STATUS = {"UNSUPPORTED_FILE": 415, "DAMAGED_FILE": 422, "FILE_TOO_LARGE": 413}


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("case", BAD)
async def test_a_bad_file_is_refused_in_words_and_nothing_is_stored(
    http: httpx.AsyncClient, server: str, world: World, case: str, door: str
) -> None:
    name, make, code, words = BAD[case]
    data = make()
    before = await table_snapshot(world.shop.engine)
    status, answer = await DOORS[door](http, server, world.token("dee"), world.order, name, data)
    [error] = answer["errors"]
    assert error["code"] == code, answer
    assert words in error["message"], error["message"]
    if door == "http":
        assert status == HTTP_STATUS[code]
    else:
        assert error["field"] == "file"
    assert await table_snapshot(world.shop.engine) == before


async def _raw_upload(port: int, path: str, token: str, headers: str, body: bytes) -> bytes:
    """Sends a request's head and the first bytes of its body, and reads what the server
    answers without waiting for the rest."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(
            f"POST {path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer {token}\r\n"
            f"content-type: multipart/form-data; boundary=b\r\n{headers}\r\n".encode()
            + body
        )
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
        return head + await reader.readexactly(length)
    finally:
        writer.close()


@pytest.mark.parametrize("path", ["/graphql", "/orders/{order}/proofs"])
async def test_a_26_mb_upload_is_refused_before_its_body_is_read(
    server: str, world: World, path: str
) -> None:
    """Its Content-Length says too much: refused with the first kilobyte sent, the other
    26 MB never. An upload that does not say its length is refused the same way."""
    port = urlsplit(server).port
    assert port is not None
    before = await table_snapshot(world.shop.engine)
    target = path.format(order=world.order)
    answer = await _raw_upload(
        port, target, world.token("dee"), f"content-length: {26 * MB}\r\n", b"--b\r\n" + b"x" * 1024
    )
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"larger than 25 MB, the most a proof may be" in answer
    answer = await _raw_upload(
        port, target, world.token("dee"), "transfer-encoding: chunked\r\n", b"400\r\n" + b"x" * 1024
    )
    assert answer.startswith(b"HTTP/1.1 411"), answer[:200]
    assert b"must say its size (Content-Length)" in answer
    assert await table_snapshot(world.shop.engine) == before


@pytest.mark.parametrize(
    ("files", "words"),
    [
        ({"picture": ("a.png", b"...", "image/png")}, "Send the file alone"),
        ({"file": ("a.png", b"...", "image/png"), "more": ("b.png", b"...", "image/png")},
         "Too many files"),
    ],
)  # fmt: skip
async def test_a_plain_upload_without_one_file_field_is_refused_in_words(
    http: httpx.AsyncClient, server: str, world: World, files: dict[str, Any], words: str
) -> None:
    before = await table_snapshot(world.shop.engine)
    response = await http.post(
        f"{site(server)}/orders/{world.order}/proofs",
        headers={"authorization": f"Bearer {world.token('dee')}"},
        files=files,
    )
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["extensions"]["code"] == "INVALID_INPUT"
    assert words in error["message"]
    assert await table_snapshot(world.shop.engine) == before


async def test_an_upload_to_a_cancelled_order_is_refused(
    http: httpx.AsyncClient, server: str, world: World
) -> None:
    async with unit_of_work(world.shop.engine) as conn:
        await cancel_work_order(conn, world.order_pk, world.shop.users["sam"], "Withdrawn.")
    before = await table_snapshot(world.shop.engine)
    _, answer = await upload_graphql(
        http, server, world.token("sam"), world.order, "a.png", image("PNG")
    )
    assert [e["code"] for e in answer["errors"]] == ["WORK_ORDER_CLOSED"]
    assert await table_snapshot(world.shop.engine) == before


# ---------------------------------------------------------------------------------------------
# Good files.


async def fetch(http: httpx.AsyncClient, url: str, token: str) -> httpx.Response:
    response = await http.get(url, headers={"authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["cache-control"] == "no-store"
    policy = response.headers["content-security-policy"]
    assert "sandbox" in policy and "default-src 'none'" in policy
    return response


GOOD = {
    "PDF": ("Proof — Café.pdf", pdf, "application/pdf", None),
    "PNG": ("poster.png", lambda: image("PNG", (3000, 2000)), "image/png", (1600, 1067)),
    "JPEG": ("photo.JPG", lambda: image("JPEG", (800, 600)), "image/jpeg", (800, 600)),
    "JPEG turned": ("upright.jpg", turned_jpeg, "image/jpeg", (1000, 1600)),
}


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("kind", GOOD)
async def test_a_good_file_is_kept_byte_for_byte_with_a_preview(
    http: httpx.AsyncClient, server: str, world: World, api: Client, kind: str, door: str
) -> None:
    name, make, media_type, preview_size = GOOD[kind]
    data = make()
    status, answer = await DOORS[door](http, server, world.token("dee"), world.order, name, data)
    assert status == (201 if door == "http" else 200)
    proof = answer["proof"]
    assert (proof["version"], proof["fileName"], proof["mediaType"], proof["sizeBytes"]) == (
        1, name, media_type, len(data),
    )  # fmt: skip
    assert proof["status"] == "PENDING"
    if door == "graphql":
        assert proof["uploadedBy"] == {"name": "Dee"}
    node = await api.as_(world.token("pat"))(
        "query($id: ID!) { node(id: $id) { ... on Proof { version mediaType } } }",
        {"id": proof["id"]},
    )
    assert node["node"] == {"version": 1, "mediaType": media_type}
    token = world.token("pat")  # any staff member reads them
    file = await fetch(http, proof["downloadUrl"], token)
    assert file.content == data
    assert file.headers["content-type"].startswith(media_type)
    assert file.headers["content-disposition"].startswith("attachment;")
    assert "filename*=UTF-8''" in file.headers["content-disposition"]
    preview = await fetch(http, proof["previewUrl"], token)
    assert preview.headers["content-type"] == "image/png"
    shown = Image.open(io.BytesIO(preview.content))
    assert shown.format == "PNG"
    if preview_size is not None:
        assert shown.size == preview_size
    else:
        # The PDF's first page, A4 upright: its longer edge is the preview's.
        assert shown.size[1] == 1600 and shown.size[0] < 1600
        assert shown.convert("L").getextrema()[0] < 100, "the page's text is drawn"


async def test_a_file_is_read_back_in_parts_of_a_megabyte(
    http: httpx.AsyncClient, server: str, world: World
) -> None:
    """A file of several parts comes back whole and in order."""
    data = pdf() + b"%" + bytes(range(256)) * (3 * MB // 256) + b"\n%%EOF\n"
    _, answer = await upload_http(http, server, world.token("sam"), world.order, "many.pdf", data)
    async with world.shop.engine.connect() as conn:
        parts = (
            await conn.execute(
                text(
                    "SELECT count(*), max(octet_length(data)) FROM proof_chunks WHERE part = 'FILE'"
                )
            )
        ).one()
    assert tuple(parts) == (4, MB)
    file = await fetch(http, answer["proof"]["downloadUrl"], world.token("sam"))
    assert file.content == data


async def test_a_new_version_withdraws_the_one_waiting_for_a_decision(
    http: httpx.AsyncClient, server: str, world: World, api: Client
) -> None:
    token = world.token("dee")
    for name in ("v1.png", "v2.png"):
        await upload_graphql(http, server, token, world.order, name, image("PNG"))
    found = (await api.as_(token)(PROOFS, {"id": world.order}))["node"]
    assert found["proofs"] == [
        {"version": 2, "status": "PENDING", "fileName": "v2.png"},
        {"version": 1, "status": "WITHDRAWN", "fileName": "v1.png"},
    ]
    assert found["latestProof"] == {"version": 2, "status": "PENDING"}
    # A decided version stays decided: only one still waiting is withdrawn.
    async with unit_of_work(world.shop.engine) as conn:
        await conn.execute(
            text(
                "UPDATE proofs SET status = 'APPROVED', decided_at = now(), "
                "decided_through = 'CUSTOMER', decided_by_name = 'Zoë' WHERE version = 2"
            )
        )
    await upload_graphql(http, server, token, world.order, "v3.png", image("PNG"))
    found = (await api.as_(token)(PROOFS, {"id": world.order}))["node"]
    assert [p["status"] for p in found["proofs"]] == ["PENDING", "APPROVED", "WITHDRAWN"]
    async with world.shop.engine.connect() as conn:
        events = (
            await conn.execute(
                text(
                    "SELECT payload->>'version', payload->>'withdrawnVersion' FROM events "
                    "WHERE type = 'PROOF_UPLOADED' AND work_order_id = :o ORDER BY id"
                ),
                {"o": world.order_pk},
            )
        ).all()
    assert [tuple(e) for e in events] == [("1", None), ("2", "1"), ("3", None)]


ORDER_EVENTS = """subscription($order: ID!, $after: String) {
  workOrderEvents(workOrderId: $order, after: $after) {
    kind workOrder { latestProof { version status } } } }"""


async def test_an_upload_is_an_event_of_its_order(
    http: httpx.AsyncClient, server: str, world: World, api: Client
) -> None:
    """The order's subscribers hear of each version (screens show it at once), and the
    order's gates are settled with it."""
    token = world.token("sam")
    after = await cursor_now(api, world.token("pat"))
    variables = {"order": world.order, "after": after}
    async with subscriber(server, token, "graphql-transport-ws", variables, ORDER_EVENTS) as got:
        for name in ("v1.png", "v2.png"):
            await upload_http(http, server, token, world.order, name, image("PNG"))
        events = [e["workOrderEvents"] for e in await take(got, 2)]
    assert [e["kind"] for e in events] == ["PROOF_UPLOADED", "PROOF_UPLOADED"]
    # Each is read as the order now is: version 2 waits for a decision.
    assert events[-1]["workOrder"]["latestProof"] == {"version": 2, "status": "PENDING"}


async def test_uploads_at_once_get_one_version_each(
    http: httpx.AsyncClient, server: str, world: World, api: Client
) -> None:
    answers = await asyncio.gather(
        *(
            upload_http(http, server, world.token(who), world.order, f"{who}.png", image("PNG"))
            for who in ("dee", "sam", "ada")
        )
    )
    assert sorted(a["proof"]["version"] for _, a in answers) == [1, 2, 3]
    found = (await api.as_(world.token("sam"))(PROOFS, {"id": world.order}))["node"]
    assert [p["status"] for p in found["proofs"]] == ["PENDING", "WITHDRAWN", "WITHDRAWN"]


# ---------------------------------------------------------------------------------------------
# Who may.


@pytest.mark.parametrize("door", DOORS)
async def test_who_may_upload(
    http: httpx.AsyncClient, server: str, world: World, door: str
) -> None:
    """Design (on the order, not waiting for a proof), Sales and admins may; Print (which
    waits for the proof), Finishing (not on the order), Accounts and wall displays may not,
    and their refusal stores nothing."""
    upload = DOORS[door]
    wall = await world.shop.display(["design"])
    before = await table_snapshot(world.shop.engine)
    for token in [world.token("pat"), world.token("fin"), world.token("abe"), wall]:
        status, answer = await upload(http, server, token, world.order, "a.png", image("PNG"))
        if door == "http":
            assert status == 403, answer
        else:
            assert [e["code"] for e in answer["errors"]] == ["FORBIDDEN"], answer
    assert await table_snapshot(world.shop.engine) == before
    versions = []
    for who in ("dee", "sam", "ada"):
        _, answer = await upload(http, server, world.token(who), world.order, "a.png", image("PNG"))
        versions.append(answer["proof"]["version"])
    assert versions == [1, 2, 3]


async def test_proof_files_need_a_token(http: httpx.AsyncClient, server: str, world: World) -> None:
    _, answer = await upload_http(
        http, server, world.token("dee"), world.order, "a.png", image("PNG")
    )
    for url in (answer["proof"]["downloadUrl"], answer["proof"]["previewUrl"]):
        response = await http.get(url)
        assert response.status_code == 401
    missing = await http.get(
        f"{site(server)}/proofs/{gid('Proof', 999999)}/file",
        headers={"authorization": f"Bearer {world.token('dee')}"},
    )
    assert missing.status_code == 404
