"""The Starlette application: its routes (/graphql, /healthz, /readyz, /metrics, the wall
display, static files) and middleware."""

import hmac
from collections.abc import Awaitable, Callable
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST
from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from graph.auth import bearer
from graph.body_limit import BodyLimit
from graph.context import Services
from graph.errors import error_response
from graph.graphiql import STATIC_DIR, ServeGraphiQLToBrowsers
from graph.live import LiveConnections
from graph.metrics import Metrics
from graph.view import PressroomGraphQL
from graph.ws_guard import WebsocketGuard

ReadyCheck = Callable[[], Awaitable[dict[str, bool]]]


def create_app(
    services: Services,
    live: LiveConnections,
    ready: ReadyCheck,
    lifespan: Any = None,
    keep_alive_seconds: float = 15,
    connection_init_timeout_seconds: float = 10,
    metrics_token: str | None = None,
) -> Starlette:
    graphql = PressroomGraphQL(services, live, keep_alive_seconds, connection_init_timeout_seconds)
    services.metrics = metrics = Metrics(services, live)

    async def healthz(request: Request) -> Response:
        return JSONResponse({"ok": True})

    async def readyz(request: Request) -> Response:
        checks = await ready()
        ok = all(checks.values())
        return JSONResponse({"ok": ok, **checks}, status_code=200 if ok else 503)

    async def display(request: Request) -> Response:
        return FileResponse(STATIC_DIR / "display" / "display.html")

    async def exposition(request: Request) -> Response:
        if metrics_token is not None and not hmac.compare_digest(
            bearer(request.headers.get("authorization")) or "", metrics_token
        ):
            return error_response("/metrics needs 'Authorization: Bearer <metrics token>'.", 401)
        return Response(metrics.exposition(), media_type=CONTENT_TYPE_LATEST)

    app = Starlette(
        routes=[
            Route(
                "/graphql",
                ServeGraphiQLToBrowsers(graphql) if services.exposure.graphiql else graphql,
                methods=["GET", "POST", "OPTIONS"],
            ),
            WebSocketRoute("/graphql", graphql),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", exposition),
            Route("/display/{department}", display),
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        ],
        lifespan=lifespan,
    )
    app.add_middleware(BodyLimit)
    app.add_middleware(WebsocketGuard, init_timeout_seconds=connection_init_timeout_seconds)
    if services.exposure.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(services.exposure.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["authorization", "content-type", "x-request-id"],
            expose_headers=["x-request-id", "retry-after"],
            max_age=600,
        )
    return app
