"""Per-request context: who is asking (api/viewer.py), what the app shares
(api/services.py, graph/services.py), and the request's dataloaders."""

import secrets
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection
from starlette.responses import Response
from starlette.websockets import WebSocket
from strawberry.types import Info as StrawberryInfo

from api.viewer import Viewer
from db.engine import reading
from graph.loaders import Loaders
from graph.services import SchemaServices


@dataclass
class Context:
    services: SchemaServices
    viewer: Viewer | None
    websocket: WebSocket | None = None
    # True for plain HTTP requests, which cannot carry a subscription's stream.
    over_http: bool = False
    # The HTTP response being built (its status can still change), None on a websocket.
    response: Response | None = None
    # The client's address, as the connection shows it (sign-in throttling counts by it).
    client: str = "unknown"
    # The User-Agent header: a session is named by the browser it came from.
    user_agent: str | None = None
    # Set by Strawberry from the websocket's connection_init payload.
    connection_params: dict[str, Any] | None = None
    # The bearer token sent (over HTTP, or in a websocket's connection_init); a websocket's
    # subscriptions check their rights again with it.
    token: str | None = None
    # Logged with every line about this request; sent back as X-Request-ID.
    request_id: str = field(default_factory=lambda: secrets.token_hex(16))
    loaders: Loaders = field(init=False)

    def __post_init__(self) -> None:
        # The loaders read through the services, not through this context: a bound method
        # of the context would make a reference cycle of every request, and the garbage
        # collector, not reference counting, would then free its loaded rows.
        self.loaders = Loaders(partial(_read, self.services))

    def read(self) -> AbstractAsyncContextManager[AsyncConnection]:
        """A pooled connection in autocommit mode: one statement, no BEGIN/COMMIT round trips."""
        return _read(self.services)


@asynccontextmanager
async def _read(services: SchemaServices) -> AsyncIterator[AsyncConnection]:
    async with reading(services.engine) as conn:
        yield conn
    services.outage.answered()


Info = StrawberryInfo[Context, Any]
