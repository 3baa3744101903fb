"""The Starlette application: its routes (/graphql, /healthz, /readyz, /version, /metrics,
the wall display, static files) and middleware."""

import base64
import hashlib
import hmac
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.auth import bearer
from api.errors import error_response
from api.in_flight import CountRequests
from api.manifest import WEB_DIR
from api.services import Services
from api.version import VERSION
from routes import customer_page, exports, payment_inbox, proofs, tickets
from routes.body_limit import BodyLimit
from routes.customer_policy import CustomerPagePolicy
from routes.graphiql import STATIC_DIR, ServeGraphiQLToBrowsers
from routes.inbox_policy import InboxPolicy
from routes.offline import service_worker
from routes.ws_guard import SOCKETS_PER_ADDRESS, SOCKETS_PER_TOKEN, WebsocketGuard

ReadyCheck = Callable[[], Awaitable[dict[str, bool]]]

# The shop's own single-page app and the wall display (src/web, see its README, at
# WEB_DIR): the shell at / and at every path no other route takes (history-API routing),
# its files under /app/, its service worker at /sw.js (routes/offline.py). They load only
# this host's files and talk only to /graphql.


def _web_policy(page: bytes) -> str:
    """A CSP allowing this host's files and, by hash, the page's own import map only."""
    hashes = [
        "'sha256-" + base64.b64encode(hashlib.sha256(body).digest()).decode() + "'"
        for body in re.findall(rb'<script type="importmap">(.*?)</script>', page, re.S)
    ]
    return "; ".join(
        [
            "default-src 'self'",
            " ".join(["script-src 'self'", *hashes]),
            "style-src 'self'",
            # Proof previews are read with the session's token and shown as blob: URLs.
            "img-src 'self' data: blob:",
            "font-src 'self'",
            "connect-src 'self'",
            # The app's service worker (/sw.js) and its manifest, so a tablet can install it.
            "worker-src 'self'",
            "manifest-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
            "form-action 'none'",
        ]
    )


# The shop's locale, for the app and the wall to write and read amounts and dates in
# (PRESSROOM_LOCALE), and its time zone, the one every time on them is shown in
# (PRESSROOM_TIME_ZONE): written into the page, so no screen waits for a query to know them.
LOCALE_META = b'<meta name="pressroom-locale" content="en-GB">'
ZONE_META = b'<meta name="pressroom-time-zone" content="UTC">'


def _web_page(path: Path, locale: str, zone: str) -> Callable[[Request], Awaitable[Response]]:
    page = path.read_bytes()
    for meta, default, value in ((LOCALE_META, b"en-GB", locale), (ZONE_META, b"UTC", zone)):
        assert meta in page, f"{path.name} carries the meta element {meta!r}"
        page = page.replace(meta, meta.replace(default, value.encode()))
    headers = {
        "Cache-Control": "no-cache",
        "Content-Security-Policy": _web_policy(page),
        "X-Content-Type-Options": "nosniff",
        # Display links carry their token in the query string.
        "Referrer-Policy": "no-referrer",
    }

    async def serve(request: Request) -> Response:
        return HTMLResponse(page, headers=headers)

    return serve


class _WebFiles:
    """src/web's files, revalidated on every load (so an upgrade shows at once)."""

    def __init__(self) -> None:
        self.files = StaticFiles(directory=WEB_DIR)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["Cache-Control"] = "no-cache"
                headers["X-Content-Type-Options"] = "nosniff"
            await send(message)

        await self.files(scope, receive, with_headers)


def api_app(
    graphql: ASGIApp,
    services: Services,
    inboxes: InboxPolicy,
    ready: ReadyCheck,
    lifespan: Any = None,
    connection_init_timeout_seconds: float = 10,
    metrics_token: str | None = None,
    sockets_per_token: int = SOCKETS_PER_TOKEN,
    sockets_per_address: int = SOCKETS_PER_ADDRESS,
    locale: str = "en-GB",
    customers: CustomerPagePolicy | None = None,
) -> Starlette:
    """The routes around `graphql` (the schema's view pressroom/app.py chose) and their
    middleware."""
    metrics = services.metrics

    async def healthz(request: Request) -> Response:
        return JSONResponse({"ok": True})

    async def version(request: Request) -> Response:
        return JSONResponse({"version": VERSION})

    async def readyz(request: Request) -> Response:
        checks = await ready()
        ok = all(checks.values())
        return JSONResponse({"ok": ok, **checks}, status_code=200 if ok else 503)

    zone = services.time_zone.key
    display = _web_page(WEB_DIR / "display" / "display.html", locale, zone)
    shell = _web_page(WEB_DIR / "index.html", locale, zone)

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
            Route("/version", version),
            Route("/metrics", exposition),
            Route("/display/{department}", display),
            *exports.routes(services),
            *tickets.routes(services),
            *proofs.routes(services),
            *payment_inbox.routes(services, inboxes),
            *customer_page.routes(services, customers or CustomerPagePolicy(), locale),
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
            Mount("/app", _WebFiles(), name="app"),
            Route("/sw.js", service_worker(WEB_DIR, locale)),
            Route("/{path:path}", shell, methods=["GET", "HEAD"]),
        ],
        lifespan=lifespan,
    )
    app.add_middleware(BodyLimit, upload_bytes=services.proof_max_bytes)
    app.add_middleware(CountRequests, counter=services.in_flight)
    app.add_middleware(
        WebsocketGuard,
        init_timeout_seconds=connection_init_timeout_seconds,
        per_token=sockets_per_token,
        per_address=sockets_per_address,
    )
    if services.exposure.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(services.exposure.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["authorization", "content-type", "x-request-id"],
            expose_headers=[
                "x-request-id",
                "retry-after",
                "x-ratelimit-limit",
                "x-ratelimit-remaining",
                "x-ratelimit-reset",
            ],
            max_age=600,
        )
    return app
