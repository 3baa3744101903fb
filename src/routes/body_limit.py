"""A cap on request bodies, applied before anything parses them."""

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import error_response

MAX_BODY_BYTES = 256 * 1024


class BodyLimit:
    """Refuse oversized request bodies before anything parses them, whether they
    announce their length or arrive chunked."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
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


def _too_large() -> Response:
    # Made only when needed: rendering it cost every request 5 us.
    return error_response(f"Request body is larger than {MAX_BODY_BYTES} bytes.", 413)
