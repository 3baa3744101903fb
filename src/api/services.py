"""What the app wires in once and every door shares: the engine, settings the API needs,
the event feed, the sign-in throttle, the viewer cache, the metrics (graph/services.py
adds what only the schema uses)."""

import logging
from dataclasses import dataclass, field
from datetime import timedelta
from zoneinfo import ZoneInfo

from sqlalchemy.ext.asyncio import AsyncEngine

from api.admission import AnonymousAdmission
from api.in_flight import InFlight
from api.metrics import Metrics
from api.proof_files import Examiner
from api.throttle import PasswordThrottle
from api.viewer import ViewerCache
from db import timers
from db.feed import EventFeed
from domain.customer_view import LINK_DAYS
from domain.webhooks import Policy

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
    # A customer link without an expiry ends this many days after its order
    # (PRESSROOM_CUSTOMER_LINK_DAYS).
    customer_link_days: int = LINK_DAYS
    # Retries, timeouts and reachable addresses of webhooks (PRESSROOM_WEBHOOK_*).
    webhooks: Policy = field(default_factory=Policy)
    # The app's own metrics registry.
    metrics: Metrics = field(default_factory=Metrics)
    outage: Outage = field(default_factory=Outage)
    throttle: PasswordThrottle = field(default_factory=PasswordThrottle)
    exposure: Exposure = field(default_factory=Exposure)
    viewers: ViewerCache = field(default_factory=ViewerCache)
    # HTTP requests being answered now (api/in_flight.py).
    in_flight: InFlight = field(default_factory=InFlight)
    # The most bytes a proof file may have (PRESSROOM_PROOF_MAX_MB), and what examines one.
    proof_max_bytes: int = 25 * 1024 * 1024
    examiner: Examiner = field(default_factory=Examiner)
    # Anonymous requests' share of the process (api/admission.py).
    admission: AnonymousAdmission = field(default_factory=lambda: AnonymousAdmission(limit=8))
