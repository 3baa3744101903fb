"""Proofs and the approval gate, for the tests of proofs and of the customer's page: which
departments need an approved proof and which follow which, an order that requires one, a
version added by the upload's writer (without the file checks in front of it), decisions
by Sales through the API, and the task and history rows that show them."""

import io
import json
from datetime import datetime
from typing import Any

import httpx
from PIL import Image
from sqlalchemy import text

from api.ids import decode_text
from db import clock, proofs
from db.engine import unit_of_work
from db.proofs import NewProof
from tests.support.client import Client, gid
from tests.support.shop import Shop

UPLOAD = """mutation U($input: UploadProofInput!) { uploadProof(input: $input) {
  proof { id version fileName mediaType sizeBytes status downloadUrl previewUrl
          uploadedBy { name } }
  userErrors { code message field } } }"""
NEEDS = """mutation($i: SetDepartmentNeedsApprovedProofInput!) {
  setDepartmentNeedsApprovedProof(input: $i) {
    department { code needsApprovedProof } userErrors { code field message } } }"""
FOLLOWS = """mutation($i: SetDepartmentFollowsInput!) {
  setDepartmentFollows(input: $i) { userErrors { code } } }"""
CREATE = """mutation($i: CreateWorkOrderInput!) {
  createWorkOrder(input: $i) { workOrder { id proofRequired } userErrors { code } } }"""


APPROVE = """mutation($i: ApproveProofInput!) {
  approveProof(input: $i) { changed proof { version status decidedThrough decidedByName
    decidedBy { name } } userErrors { code field message } } }"""
CHANGES = """mutation($i: RequestProofChangesInput!) {
  requestProofChanges(input: $i) { changed workOrder { id }
    userErrors { code field message } } }"""
START = """mutation($i: StartTaskInput!) {
  startTask(input: $i) { changed userErrors { code message } } }"""
FINISH = """mutation($i: FinishTaskInput!) {
  finishTask(input: $i) { changed userErrors { code } } }"""
ORDER = """query($id: ID!) { node(id: $id) { ... on WorkOrder {
  version proofRequired tasks { department { code } status availableAt inQueue awaitsProof }
  } } }"""


async def proof_departments(api: Client, shop: Shop, *codes: str) -> None:
    for code in codes:
        body = await api.as_(shop.tokens["ada"])(
            NEEDS, {"i": {"departmentCode": code, "needsApprovedProof": True}}
        )
        assert body["setDepartmentNeedsApprovedProof"]["department"]["needsApprovedProof"]


async def chained(api: Client, shop: Shop) -> None:
    """Design → Print → Finishing: Design makes what Print and Finishing wait for."""
    for code, follows in (("print", "design"), ("finishing", "print")):
        body = await api.as_(shop.tokens["ada"])(
            FOLLOWS, {"i": {"departmentCode": code, "followsCodes": [follows]}}
        )
        assert body["setDepartmentFollows"]["userErrors"] == []


async def proofed_order(api: Client, shop: Shop, codes: list[str]) -> int:
    body = await api.as_(shop.tokens["sam"])(
        CREATE,
        {
            "i": {
                "customerId": gid("Customer", shop.customer_id),
                "departmentCodes": codes,
                "details": {"product": "Posters"},
                "proofRequired": True,
            }
        },
    )
    made = body["createWorkOrder"]
    assert made["userErrors"] == [] and made["workOrder"]["proofRequired"] is True
    pk = decode_text(made["workOrder"]["id"], "WorkOrder")
    assert pk is not None
    return pk


async def add_version(shop: Shop, order: int, at: datetime | None = None) -> int:
    """The next proof version, by the upload's writer (stamped `at` when given); returns its
    number."""
    async with unit_of_work(shop.engine) as conn:
        if at is not None:
            await clock.stamp_as_of(conn, at)
        new = NewProof(
            work_order_id=order,
            file_name="proof.png",
            media_type="image/png",
            size_bytes=4,
            sha256=b"\x00" * 32,
            width=1,
            height=1,
            uploaded_by=shop.users["sam"],
            any_order=True,
        )
        row = await proofs.add_version(conn, new, io.BytesIO(b"\x89PNG"), b"\x89PNG")
    return row.version


async def scalar(shop: Shop, sql: str, **params: Any) -> Any:
    async with shop.engine.connect() as conn:
        return await conn.scalar(text(sql), params)


async def order_tasks(api: Client, shop: Shop, order: int) -> dict[str, dict[str, Any]]:
    body = await api.as_(shop.tokens["ada"])(ORDER, {"id": gid("WorkOrder", order)})
    return {t["department"]["code"]: t for t in body["node"]["tasks"]}


async def approve(
    api: Client, shop: Shop, order: int, version: int, who: str = "sam"
) -> dict[str, Any]:
    body = await api.as_(shop.tokens[who])(
        APPROVE,
        {"i": {"workOrderId": gid("WorkOrder", order), "version": version, "approverName": "Ann"}},
    )
    payload: dict[str, Any] = body["approveProof"]
    return payload


async def ask_changes(
    api: Client, shop: Shop, order: int, version: int, comment: str = "Bigger logo"
) -> dict[str, Any]:
    body = await api.as_(shop.tokens["sam"])(
        CHANGES,
        {
            "i": {
                "workOrderId": gid("WorkOrder", order),
                "version": version,
                "comment": comment,
                "approverName": "Ann",
            }
        },
    )
    payload: dict[str, Any] = body["requestProofChanges"]
    return payload


def image(kind: str, size: tuple[int, int] = (640, 400)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 30, 40)).save(out, format=kind)
    return out.getvalue()


async def upload_graphql(
    http: httpx.AsyncClient, server: str, token: str, order: str, name: str, data: bytes
) -> tuple[int, dict[str, Any]]:
    """uploadProof as a multipart request: its answer's status, and the userErrors (or the
    top-level errors) as [{code, message}], or the proof."""
    operations = {"query": UPLOAD, "variables": {"input": {"workOrderId": order, "file": None}}}
    response = await http.post(
        server,
        headers={"authorization": f"Bearer {token}"},
        data={
            "operations": json.dumps(operations),
            "map": json.dumps({"0": ["variables.input.file"]}),
        },
        # The declared type is a lie on purpose: only the bytes count.
        files={"0": (name, data, "application/pdf")},
    )
    assert response.status_code < 500, response.text
    body = response.json()
    if body.get("errors") or body.get("data") is None:
        return response.status_code, {
            "errors": [
                {"code": e["extensions"]["code"], "message": e["message"]} for e in body["errors"]
            ]
        }
    answer = body["data"]["uploadProof"]
    if answer["userErrors"]:
        return response.status_code, {"errors": answer["userErrors"]}
    return response.status_code, {"proof": answer["proof"]}
