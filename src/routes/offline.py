"""The app's service worker (/sw.js): src/web/sw.js, headed by the list of the app's own
files and a version, the SHA-256 of those files and the shop's locale. The browser
fetches /sw.js again on every navigation and installs it anew when its bytes differ, so
a release (any changed file) replaces the worker's cache as a whole."""

import hashlib
import json
from collections.abc import Awaitable, Callable
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

WORKER = "sw.js"
# What the browser loads: not the docs, the licences, the server's manifest of documents,
# the pages the server serves under their own paths (index.html at /), or the worker.
SERVED = {".js", ".css", ".png", ".webmanifest"}


def app_files(web: Path) -> list[Path]:
    """The files the shop's app and the wall display load from /app/, in a stable order."""
    return sorted(
        p for p in web.rglob("*") if p.suffix in SERVED and p.is_file() and p.name != WORKER
    )


def worker_script(web: Path, locale: str) -> bytes:
    """sw.js as served: the version and the URLs to keep, then the worker's code."""
    files = app_files(web)
    digest = hashlib.sha256(locale.encode())
    for path in [web / "index.html", *files]:
        digest.update(str(path.relative_to(web)).encode() + b"\0" + path.read_bytes())
    urls = ["/", *("/app/" + str(p.relative_to(web)) for p in files)]
    head = (
        f"const VERSION = {json.dumps(digest.hexdigest()[:16])};\n"
        f"const FILES = {json.dumps(urls, indent=0)};\n"
    )
    return head.encode() + (web / WORKER).read_bytes()


def service_worker(web: Path, locale: str) -> Callable[[Request], Awaitable[Response]]:
    body = worker_script(web, locale)
    headers = {
        "Cache-Control": "no-cache",
        "Content-Security-Policy": "default-src 'self'",
        "X-Content-Type-Options": "nosniff",
    }

    async def serve(request: Request) -> Response:
        return Response(body, media_type="text/javascript", headers=headers)

    return serve
