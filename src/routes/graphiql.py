"""GraphiQL for browsers that open /graphql, served from vendored files (never a CDN).

The page (static/graphiql.html) loads React, ReactDOM, graphql-ws and GraphiQL from
/static/vendor/ (see static/vendor/README.md for versions and provenance), sends queries
and mutations to POST /graphql and subscriptions over a graphql-transport-ws websocket at
/graphql, passing an Authorization header from the headers editor both ways.
"""

from functools import cache
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

STATIC_DIR = Path(__file__).resolve().parent / "static"
GRAPHIQL_HTML = STATIC_DIR / "graphiql.html"

# Only this host's files, inline code from the page itself, data: fonts and icons, and
# fetches/websockets back to this host: the browser refuses anything else.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self' 'unsafe-inline'",
        "style-src 'self' 'unsafe-inline'",
        "font-src 'self' data:",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
        "form-action 'none'",
    ]
)


@cache
def _page() -> bytes:
    return GRAPHIQL_HTML.read_bytes()


async def graphiql_page(request: Request) -> Response:
    """The GraphiQL page."""
    return HTMLResponse(
        _page(),
        headers={
            # The same URL answers GraphQL requests, so caches must key on Accept.
            "Vary": "Accept",
            "Cache-Control": "no-cache",
            "Content-Security-Policy": CONTENT_SECURITY_POLICY,
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
        },
    )


def wants_graphiql(request: Request) -> bool:
    """A browser navigating to /graphql, rather than a GraphQL request.

    GET (or HEAD) that accepts text/html and carries no ?query=, so a query sent in the
    URL still runs. API clients (application/json, application/graphql-response+json,
    curl's */*) never match.
    """
    return (
        request.method in ("GET", "HEAD")
        and "text/html" in request.headers.get("accept", "").lower()
        and "query" not in request.query_params
    )


class ServeGraphiQLToBrowsers:
    """ASGI wrapper for the GraphQL HTTP view: browsers get GraphiQL, the rest go to ``app``.

    A class rather than a function on purpose: Starlette's Route treats a plain function
    as a request -> response endpoint, but passes an ASGI callable object through as is.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            request = Request(scope, receive)
            if wants_graphiql(request):
                response = await graphiql_page(request)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
