"""Per-request context: who is asking, the database, and the request's dataloaders."""

import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from starlette.responses import Response
from starlette.websockets import WebSocket
from strawberry.types import Info as StrawberryInfo

from db.engine import reading
from db.feed import EventFeed
from domain.enums import DepartmentKind, TokenKind
from graph.loaders import Loaders
from graph.throttle import PasswordThrottle

if TYPE_CHECKING:
    from graph.metrics import Metrics

log = logging.getLogger("pressroom.database")


@dataclass(frozen=True)
class Viewer:
    """The authenticated caller: a person (session or API token) or a wall display."""

    token_id: int
    token_kind: TokenKind
    user_id: int
    is_admin: bool
    member_department_ids: frozenset[int]
    display_department_ids: frozenset[int]
    expires_at: datetime | None = None
    # The kinds of the departments they belong to (Sales, Accounts, ...).
    member_department_kinds: frozenset[DepartmentKind] = frozenset()

    @property
    def is_person(self) -> bool:
        return self.token_kind is not TokenKind.DISPLAY

    @property
    def scope(self) -> tuple[object, ...]:
        """Everything of the viewer that access rules and resolvers read: viewers with the
        same scope are shown the same answers. The token's own id and expiry are left out;
        whether a token still works is checked per subscriber (graph/subscriptions.py)."""
        return (
            self.token_kind,
            self.user_id,
            self.is_admin,
            self.member_department_ids,
            self.display_department_ids,
        )


class Outage:
    """Whether the database was last found unreachable: one log line when that changes,
    not one per failed request."""

    def __init__(self) -> None:
        self.down = False

    def failed(self) -> None:
        if not self.down:
            self.down = True
            log.warning("database unavailable: requests answer SERVICE_UNAVAILABLE (503)")

    def answered(self) -> None:
        if self.down:
            self.down = False
            log.warning("database available again")


class ViewerCache:
    """Who a bearer token is, kept for a few seconds per process, so a request needs no
    query for it. An entry holds only while no access change (a membership change, a
    deactivation, a revocation, made by any process) has been handed out by the feed
    since it was read: `changes` counts those (pressroom/app.py wires in the feed's count).
    This process's own mutations that change access also clear it at once."""

    def __init__(
        self,
        ttl_seconds: float = 5.0,
        size: int = 10_000,
        changes: Callable[[], int] = lambda: 0,
    ) -> None:
        self.ttl_seconds = ttl_seconds
        self.size = size
        self.changes = changes
        self._viewers: dict[str, tuple[Viewer, float, int]] = {}

    def get(self, token: str) -> Viewer | None:
        found = self._viewers.get(token)
        if found is None:
            return None
        viewer, at, seen = found
        now = time.monotonic()
        expired = viewer.expires_at is not None and viewer.expires_at <= datetime.now(UTC)
        if now - at > self.ttl_seconds or expired or seen != self.changes():
            del self._viewers[token]
            return None
        return viewer

    def put(self, token: str, viewer: Viewer, seen: int) -> None:
        """`seen`: the count of access changes taken before `viewer` was read."""
        if len(self._viewers) >= self.size:
            self._viewers.clear()  # rare: many distinct live tokens within a few seconds
        self._viewers[token] = (viewer, time.monotonic(), seen)

    def clear(self) -> None:
        self._viewers.clear()


@dataclass(frozen=True)
class Exposure:
    """What the API shows beyond answers (PRESSROOM_ENV=production turns the first three off)."""

    introspection: bool = True
    graphiql: bool = True
    suggestions: bool = True  # "Did you mean ...?" in validation errors
    cors_origins: tuple[str, ...] = ()
    websocket_origins: tuple[str, ...] = ()  # besides the server's own; '*' for any


@dataclass
class Services:
    """What the app wires in once: the engine and the settings the API needs."""

    engine: AsyncEngine
    session_ttl_seconds: int
    feed: EventFeed | None = None
    # The shop's currency: ledger entries posted without one are in it.
    currency: str = "EUR"
    # How far ahead an API token may expire (PRESSROOM_API_TOKEN_MAX_DAYS).
    api_token_max_days: int = 365
    # Set by graph.app.create_app: the app's own metrics registry.
    metrics: "Metrics | None" = None
    outage: Outage = field(default_factory=Outage)
    throttle: PasswordThrottle = field(default_factory=PasswordThrottle)
    exposure: Exposure = field(default_factory=Exposure)
    viewers: ViewerCache = field(default_factory=ViewerCache)
    # Called for every response and websocket message the view writes (the garbage
    # collector is paced by them, and by what websockets read: pressroom/collector.py).
    message_passed: Callable[[], None] = lambda: None
    # Called when a subscription ends (the same pacing: a burst of them leaves garbage).
    subscription_ended: Callable[[], None] = lambda: None


@dataclass
class Context:
    services: Services
    viewer: Viewer | None
    websocket: WebSocket | None = None
    # True for plain HTTP requests, which cannot carry a subscription's stream.
    over_http: bool = False
    # The HTTP response being built (its status can still change), None on a websocket.
    response: Response | None = None
    # The client's address, as the connection shows it (sign-in throttling counts by it).
    client: str = "unknown"
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
async def _read(services: Services) -> AsyncIterator[AsyncConnection]:
    async with reading(services.engine) as conn:
        yield conn
    services.outage.answered()


Info = StrawberryInfo[Context, Any]
