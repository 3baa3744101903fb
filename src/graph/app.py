"""The Starlette application: /graphql, /healthz, /readyz, /metrics."""

import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from cross_web import HTTPException
from graphql import GraphQLError
from prometheus_client import CONTENT_TYPE_LATEST, Gauge, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.http import GraphQLHTTPResponse
from strawberry.types import ExecutionResult
from strawberry.types.unset import UnsetType

from db.feed import EventFeed
from graph.auth import bearer, load_viewer
from graph.context import Context, Services
from graph.errors import TopLevelCode
from graph.graphiql import STATIC_DIR, ServeGraphiQLToBrowsers
from graph.live import LiveConnections
from graph.schema import schema

log = logging.getLogger("pressroom.app")

MAX_BODY_BYTES = 256 * 1024
MAX_SUBSCRIPTIONS_PER_CONNECTION = 20
ReadyCheck = Callable[[], Awaitable[dict[str, bool]]]


class PressroomGraphQL(GraphQL[Context, None]):
    def __init__(
        self,
        services: Services,
        live: LiveConnections,
        keep_alive_seconds: float,
        connection_init_timeout_seconds: float,
    ) -> None:
        super().__init__(
            schema,
            graphql_ide=None,
            # Legacy graphql-ws clients get "ka" keep-alives; both protocols also get
            # websocket pings from uvicorn, so dead wall displays are noticed.
            keep_alive=True,
            keep_alive_interval=keep_alive_seconds,
            connection_init_wait_timeout=timedelta(seconds=connection_init_timeout_seconds),
            max_subscriptions_per_connection=MAX_SUBSCRIPTIONS_PER_CONNECTION,
        )
        self.services = services
        self.live = live

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> Context:
        if isinstance(request, WebSocket):
            # Authenticated from the connection_init payload, in on_ws_connect.
            return Context(self.services, None, websocket=request)
        token = bearer(request.headers.get("authorization"))
        return Context(self.services, await load_viewer(self.services, token), over_http=True)

    async def on_ws_connect(self, context: Context) -> UnsetType | dict[str, object] | None:
        params = context.connection_params or {}
        raw = params.get("authorization") or params.get("Authorization")
        if raw is None:
            return None
        token = bearer(raw) if isinstance(raw, str) and " " in raw else raw
        viewer = await load_viewer(self.services, token if isinstance(token, str) else None)
        if viewer is None:
            raise ConnectionRejectionError({"message": "Invalid or revoked token."})
        context.viewer = viewer
        if context.websocket is not None:
            self.live.add(viewer.token_id, context.websocket)
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        try:
            response = await self.run(Request(scope=scope, receive=receive))
        except HTTPException as error:
            # Malformed requests get the same JSON error shape as every other failure.
            response = error_response(error.reason, error.status_code)
        await response(scope, receive, send)

    def decode_json(self, data: str | bytes) -> object:
        try:
            return super().decode_json(data)
        except RecursionError:
            raise HTTPException(400, "Request body is nested too deeply.") from None

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


def error_response(message: str, status_code: int) -> JSONResponse:
    return JSONResponse(
        {"errors": [{"message": message, "extensions": {"code": TopLevelCode.BAD_REQUEST.value}}]},
        status_code=status_code,
    )


class BodyLimit:
    """Refuse oversized request bodies before anything parses them, whether they
    announce their length or arrive chunked."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = error_response(f"Request body is larger than {MAX_BODY_BYTES} bytes.", 413)
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None:
            if not length.isdigit() or int(length) > MAX_BODY_BYTES:
                await too_large(scope, receive, send)
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
                await too_large(scope, receive, send)
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


class FeedMetrics:
    """Gauges of the live feed, defined once per process; they read whichever app's
    feed was registered last (one per process outside tests)."""

    def __init__(self) -> None:
        self.services: Services | None = None
        self.live: LiveConnections | None = None
        self._gauge(
            "pressroom_event_listener_up",
            "1 while the LISTEN connection is up.",
            lambda feed: feed.listening,
        )
        self._gauge(
            "pressroom_event_subscribers",
            "Live subscriptions in this process.",
            lambda feed: feed.broadcast.subscriber_count(),
        )
        self._gauge(
            "pressroom_event_held_back_seconds",
            "Age of the oldest open writing transaction, which delays event delivery.",
            lambda feed: feed.stats.held_back_seconds,
        )
        self._gauge(
            "pressroom_event_delivery_lag_seconds",
            "Commit-to-read delay of the newest event delivered.",
            lambda feed: feed.stats.delivery_lag_seconds,
        )
        self._gauge(
            "pressroom_events_delivered",
            "Events read from the log by this process.",
            lambda feed: feed.stats.delivered,
        )
        Gauge("pressroom_live_connections", "Authenticated websocket connections.").set_function(
            lambda: float(self.live.count()) if self.live else 0.0
        )

    def _gauge(self, name: str, doc: str, read: Callable[[EventFeed], Any]) -> None:
        def value() -> float:
            feed = self.services.feed if self.services else None
            return float(read(feed)) if feed is not None else 0.0

        Gauge(name, doc).set_function(value)


FEED_METRICS = FeedMetrics()


def create_app(
    services: Services,
    live: LiveConnections,
    ready: ReadyCheck,
    lifespan: Any = None,
    keep_alive_seconds: float = 15,
    connection_init_timeout_seconds: float = 10,
) -> Starlette:
    graphql = PressroomGraphQL(services, live, keep_alive_seconds, connection_init_timeout_seconds)
    FEED_METRICS.services, FEED_METRICS.live = services, live

    async def healthz(request: Request) -> Response:
        return JSONResponse({"ok": True})

    async def readyz(request: Request) -> Response:
        checks = await ready()
        ok = all(checks.values())
        return JSONResponse({"ok": ok, **checks}, status_code=200 if ok else 503)

    async def display(request: Request) -> Response:
        return FileResponse(STATIC_DIR / "display" / "display.html")

    async def metrics(request: Request) -> Response:
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    app = Starlette(
        routes=[
            Route("/graphql", ServeGraphiQLToBrowsers(graphql), methods=["GET", "POST"]),
            WebSocketRoute("/graphql", graphql),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", metrics),
            Route("/display/{department}", display),
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        ],
        lifespan=lifespan,
    )
    app.add_middleware(BodyLimit)
    return app
