"""Proof files over plain HTTP, for staff with a bearer token: `POST /orders/{id}/proofs`
adds a version (a multipart form with the file as its `file` field; uploadProof is the
same through GraphQL), `GET /proofs/{id}/file` and `GET /proofs/{id}/preview` send a
version's bytes and its PNG preview, streamed from the database a part at a time."""

from urllib.parse import quote

from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from api.errors import error_response, try_again
from api.ids import decode_text, encode_id
from api.links import proof_url
from api.proof_files import ExaminersBusy, new_proof
from api.rules import STAFF, UPLOADS_PROOFS
from api.services import Services
from db.engine import reading, unit_of_work
from db.proofs import Part, add_version, proofs, stream
from db.rows import ProofRow
from domain.errors import DomainError, ErrorCode, NotAllowed
from routes.endpoints import Endpoint, guarded

# A proof is the customer's file, not the app's: shown, it may run nothing, load nothing
# and reach nothing (a PDF or an SVG smuggled in as one would otherwise run as this site).
SANDBOX = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'"
ONE_FILE = "Send the file alone, as the multipart form field 'file'."
# The HTTP status of each refusal of an upload (400 for the rest).
STATUS = {
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.WORK_ORDER_CLOSED: 409,
    ErrorCode.UNSUPPORTED_FILE: 415,
    ErrorCode.DAMAGED_FILE: 422,
    ErrorCode.FILE_TOO_LARGE: 413,
}


def _disposition(kind: str, name: str) -> str:
    """RFC 6266: an ASCII name for old clients, the real one (RFC 5987) for the rest."""
    fallback = "".join(
        c if c.isascii() and c.isprintable() and c not in '"\\' else "_" for c in name
    )
    return f"{kind}; filename=\"{fallback}\"; filename*=UTF-8''{quote(name, safe='')}"


def proof_response(engine: AsyncEngine, proof: ProofRow, part: Part) -> Response:
    """A version's file (as an attachment) or its preview (a PNG, inline), streamed, under a
    sandboxing policy: never run or guessed at as a page of this site."""
    if part is Part.FILE:
        media_type, disposition = proof.media_type, _disposition("attachment", proof.file_name)
        length = {"content-length": str(proof.size_bytes)}
    else:
        stem = proof.file_name.rsplit(".", 1)[0]
        media_type, disposition = "image/png", _disposition("inline", f"{stem}-preview.png")
        length = {}
    return StreamingResponse(
        stream(engine, proof.id, part),
        media_type=media_type,
        headers={
            "content-disposition": disposition,
            "content-security-policy": SANDBOX,
            "x-content-type-options": "nosniff",
            "cache-control": "no-store",
            **length,
        },
    )


def routes(services: Services) -> list[Route]:
    async def upload(request: Request) -> Response:
        given = request.path_params["id"]
        work_order_id = decode_text(given, "WorkOrder")
        if work_order_id is None:
            return error_response(f"No work order has the id {given!r}.", 404, "NOT_FOUND")
        try:
            form = await request.form(max_files=1, max_fields=0)
        except HTTPException as error:
            return error_response(f"{error.detail} {ONE_FILE}", 400, "INVALID_INPUT")
        try:
            file = form.get("file")
            if not isinstance(file, UploadFile):
                return error_response(ONE_FILE, 400, "INVALID_INPUT")
            examined = await services.examiner.examine(
                file.file, file.filename, services.proof_max_bytes
            )
            async with unit_of_work(services.engine) as conn:
                row = await add_version(
                    conn,
                    new_proof(examined, work_order_id, request.state.viewer),
                    file.file,
                    examined.preview,
                )
        except ExaminersBusy as busy:
            return try_again("Too many proofs are being checked; try again.", busy.retry_after)
        except NotAllowed as refused:
            return error_response(str(refused), 403, "FORBIDDEN")
        except DomainError as error:
            return error_response(error.message, STATUS.get(error.code, 400), error.code)
        finally:
            await form.close()
        if services.feed is not None:
            services.feed.poke()
        return JSONResponse(_answer(services, row), status_code=201)

    def sender(part: Part) -> Endpoint:
        async def send(request: Request) -> Response:
            given = request.path_params["id"]
            pk = decode_text(given, "Proof")
            found = []
            if pk is not None:
                async with reading(services.engine) as conn:
                    found = await proofs(conn, [pk])
            if not found:
                return error_response(f"No proof has the id {given!r}.", 404, "NOT_FOUND")
            return proof_response(services.engine, found[0], part)

        return guarded(services, STAFF, send)

    return [
        Route("/orders/{id}/proofs", guarded(services, UPLOADS_PROOFS, upload), methods=["POST"]),
        Route("/proofs/{id}/file", sender(Part.FILE)),
        Route("/proofs/{id}/preview", sender(Part.PREVIEW)),
    ]


def _answer(services: Services, row: ProofRow) -> dict[str, object]:
    return {
        "proof": {
            "id": encode_id("Proof", row.id),
            "version": row.version,
            "fileName": row.file_name,
            "mediaType": row.media_type,
            "sizeBytes": row.size_bytes,
            "status": row.status,
            "downloadUrl": proof_url(services.public_url, row.id, "file"),
            "previewUrl": proof_url(services.public_url, row.id, "preview"),
        }
    }
