"""A cap on request bodies, applied before anything parses them."""

import re

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import error_response
from api.proof_files import too_large

MAX_BODY_BYTES = 256 * 1024
# Where proof files are uploaded: a multipart request to /graphql (the GraphQL multipart
# request specification) and the plain upload route.
UPLOAD_PATHS = re.compile(r"/graphql|/orders/[^/]+/proofs")


class BodyLimit:
    """Refuse oversized request bodies before anything parses them, whether they
    announce their length or arrive chunked. A proof's upload may be as large as a proof
    (`upload_bytes`) and what comes with it; it must announce its length, so that one too
    large is refused before any of it is read, and none is held here."""

    def __init__(self, app: ASGIApp, upload_bytes: int = 0) -> None:
        self.app = app
        self.upload_bytes = upload_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        length = headers.get(b"content-length")
        if self._upload(scope, headers):
            limit = self.upload_bytes + MAX_BODY_BYTES
            if length is None:
                await _length_required()(scope, receive, send)
            elif not length.isdigit() or int(length) > limit:
                await _upload_too_large(self.upload_bytes)(scope, receive, send)
            else:
                await self.app(scope, receive, send)
            return
        if length is not None:
            if not length.isdigit() or int(length) > MAX_BODY_BYTES:
                await _too_large()(scope, receive, send)
                return
            await self.app(scope, receive, send)
            return
        # No length given: read up to the limit here, then hand the body on.
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, receive, send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                await _too_large()(scope, receive, send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _upload(self, scope: Scope, headers: dict[bytes, bytes]) -> bool:
        return (
            self.upload_bytes > 0
            and scope["method"] == "POST"
            and headers.get(b"content-type", b"").lower().startswith(b"multipart/form-data")
            and UPLOAD_PATHS.fullmatch(scope["path"]) is not None
        )


def _too_large() -> Response:
    # Made only when needed: rendering it cost every request 5 us.
    return error_response(f"Request body is larger than {MAX_BODY_BYTES} bytes.", 413)


def _upload_too_large(upload_bytes: int) -> Response:
    return error_response(f"{too_large(upload_bytes)} Nothing was stored.", 413)


def _length_required() -> Response:
    return error_response(
        "A file upload must say its size (Content-Length), so that one too large is "
        "refused before it is sent.",
        411,
    )
