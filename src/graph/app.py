"""The Starlette application: /graphql, /healthz, /readyz, /metrics."""

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from graphql import GraphQLError
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.http import GraphQLHTTPResponse
from strawberry.types import ExecutionResult

from graph.auth import bearer, load_viewer
from graph.context import Context, Services
from graph.errors import TopLevelCode
from graph.schema import schema

log = logging.getLogger("pressroom.app")

MAX_BODY_BYTES = 256 * 1024
ReadyCheck = Callable[[], Awaitable[dict[str, bool]]]


class PressroomGraphQL(GraphQL[Context, None]):
    def __init__(self, services: Services) -> None:
        super().__init__(schema, graphql_ide=None)
        self.services = services

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> Context:
        token = bearer(request.headers.get("authorization"))
        return Context(self.services, await load_viewer(self.services, token))

    async def process_result(
        self, request: Request | WebSocket, result: ExecutionResult
    ) -> GraphQLHTTPResponse:
        data: GraphQLHTTPResponse = {"data": result.data}
        if result.errors:
            data["errors"] = [_format(e) for e in result.errors]
        return data


def _format(error: GraphQLError) -> dict[str, Any]:
    formatted: dict[str, Any] = dict(error.formatted)
    extensions = formatted.setdefault("extensions", {})
    # Errors that never reached a resolver are about the request itself.
    extensions.setdefault("code", TopLevelCode.BAD_REQUEST.value)
    return formatted


class BodyLimit:
    """Refuse oversized request bodies before anything parses them."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            length = dict(scope["headers"]).get(b"content-length")
            if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
                response = JSONResponse(
                    {
                        "errors": [
                            {
                                "message": f"Request body is larger than {MAX_BODY_BYTES} bytes.",
                                "extensions": {"code": TopLevelCode.BAD_REQUEST.value},
                            }
                        ]
                    },
                    status_code=413,
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(services: Services, ready: ReadyCheck, lifespan: Any = None) -> Starlette:
    graphql = PressroomGraphQL(services)

    async def healthz(request: Request) -> Response:
        return JSONResponse({"ok": True})

    async def readyz(request: Request) -> Response:
        checks = await ready()
        ok = all(checks.values())
        return JSONResponse({"ok": ok, **checks}, status_code=200 if ok else 503)

    async def metrics(request: Request) -> Response:
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    app = Starlette(
        routes=[
            Route("/graphql", graphql, methods=["GET", "POST"]),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", metrics),
        ],
        lifespan=lifespan,
    )
    app.add_middleware(BodyLimit)
    return app
