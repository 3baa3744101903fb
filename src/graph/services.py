"""What the app wires in once and every request shares: the engine, settings the API
needs, the event feed, the sign-in throttle, the viewer cache, the metrics, the persisted
documents."""

import logging
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Protocol
from zoneinfo import ZoneInfo

from sqlalchemy.ext.asyncio import AsyncEngine

from db import timers
from db.fanout import Delivered
from db.feed import EventFeed
from domain.webhooks import Policy
from graph.admission import AnonymousAdmission
from graph.in_flight import InFlight
from graph.inbox_policy import InboxPolicy
from graph.persisted import PersistedDocuments
from graph.throttle import PasswordThrottle
from graph.viewer import ViewerCache

if TYPE_CHECKING:
    from graph.metrics import Metrics

log = logging.getLogger("pressroom.database")


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


@dataclass(frozen=True)
class Exposure:
    """What the API shows beyond answers (PRESSROOM_ENV=production turns the first three off)."""

    introspection: bool = True
    graphiql: bool = True
    suggestions: bool = True  # "Did you mean ...?" in validation errors
    cors_origins: tuple[str, ...] = ()
    websocket_origins: tuple[str, ...] = ()  # besides the server's own; '*' for any


class DirectWrite(Protocol):
    async def wrote(self, delivered: Delivered, root: type, cursor: str) -> bool:
        """Whether the answer to `delivered` (as a `root` object at `cursor`) is now
        written to the subscriber's socket; False leaves it to the usual steps."""
        ...


class Shortcuts:
    """Where ordinary code lets the engine room (graph/engine/README.md) take a shorter
    way. These take none, as under PRESSROOM_PLAIN_EXECUTION; the engine room's are
    `graph.engine.EngineShortcuts`."""

    def direct(self, info: Any) -> DirectWrite | None:
        """For the live subscription `info` resolves: a way to write an event's answer to
        its socket past the per-event execution steps, or None."""
        return None

    def subscription_ended(self) -> None:
        """A subscription ended (a burst of them leaves garbage: the engine room paces
        the garbage collector by it)."""


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
    # How long before its due date a work order is "due soon", and after how long
    # untouched a started task is stale (their timers: db/timers.py).
    due_soon: timedelta = timers.DUE_SOON
    stale_after: timedelta = timers.STALE_AFTER
    # The calendar that flow figures count days by (PRESSROOM_TIME_ZONE).
    time_zone: ZoneInfo = field(default_factory=lambda: ZoneInfo("UTC"))
    # Where people reach the app (PRESSROOM_PUBLIC_URL, which the settings always give):
    # every absolute link starts with it, never with the Host a request names, which its
    # sender chooses.
    public_url: str = ""
    # Retries, timeouts and reachable addresses of webhooks (PRESSROOM_WEBHOOK_*).
    webhooks: Policy = field(default_factory=Policy)
    # Set by graph.app.create_app: the app's own metrics registry.
    metrics: "Metrics | None" = None
    outage: Outage = field(default_factory=Outage)
    throttle: PasswordThrottle = field(default_factory=PasswordThrottle)
    # The payments door's limits per address, and how long its requests are kept.
    inboxes: InboxPolicy = field(default_factory=InboxPolicy)
    exposure: Exposure = field(default_factory=Exposure)
    viewers: ViewerCache = field(default_factory=ViewerCache)
    shortcuts: Shortcuts = field(default_factory=Shortcuts)
    # HTTP requests being answered now (graph/in_flight.py).
    in_flight: InFlight = field(default_factory=InFlight)
    # Anonymous requests' share of the process (graph/admission.py).
    admission: AnonymousAdmission = field(default_factory=lambda: AnonymousAdmission(limit=8))
    # Persisted queries and trusted documents (graph/persisted.py).
    documents: PersistedDocuments = field(default_factory=PersistedDocuments)
