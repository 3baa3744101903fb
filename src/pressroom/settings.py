"""Settings from the environment (prefix PRESSROOM_, plus the conventional DATABASE_URL)."""

import os
import socket
from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AliasChoices, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from api import cost_window, throttle
from db import credentials
from domain import mail
from domain.customer_view import LINK_DAYS
from domain.errors import DomainError
from domain.money import currency_code
from domain.outbox import DEFAULT_RETRIES, retry_schedule
from domain.webhooks import DISABLE_AFTER_DAYS
from pressroom.origins import origins
from routes import customer_policy, inbox_policy

PROJECT_ROOT = Path(__file__).resolve().parents[2]
WILDCARDS = {"", "0.0.0.0", "::"}
PUBLIC_URL_NEEDED = (
    "PRESSROOM_ENV=production needs PRESSROOM_PUBLIC_URL, the address people reach the app "
    "at (e.g. https://floor.example.com): job tickets' QR codes and other links point there."
)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PRESSROOM_", extra="ignore")

    database_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("DATABASE_URL", "PRESSROOM_DATABASE_URL"),
        description="Use this PostgreSQL server; when unset, an embedded one is started.",
    )
    migration_database_url: str | None = Field(
        default=None,
        description="With DATABASE_URL: the schema owner's URL, used to migrate (and to grant "
        "DATABASE_URL's role its rights); unset, DATABASE_URL migrates.",
    )
    pgbouncer: bool = Field(
        default=False,
        description="DATABASE_URL is a PgBouncer in transaction mode: no prepared statement "
        "outlives its transaction, and session settings are left to PgBouncer's "
        "connect_query. Needs PRESSROOM_LISTEN_DATABASE_URL.",
    )
    listen_database_url: str | None = Field(
        default=None,
        description="Where the event listener connects (LISTEN needs a session of its own, "
        "which PgBouncer's transaction mode does not keep): PostgreSQL itself, as "
        "DATABASE_URL's role. Unset: DATABASE_URL.",
    )
    data_dir: Path = Field(
        default=PROJECT_ROOT / ".pressroom",
        description="Where the embedded PostgreSQL keeps its data.",
    )
    database_name: str = "pressroom"
    host: str = "127.0.0.1"
    port: int = 8000
    session_ttl_seconds: int = 12 * 3600
    api_token_max_days: int = Field(
        default=365, ge=1, description="The furthest ahead an API token may expire, in days."
    )
    currency: str = Field(
        default="EUR",
        description="The shop's ISO 4217 currency: ledger entries posted without a currency, "
        "and legacy amounts, are in it.",
    )
    locale: str = Field(
        default="en-GB",
        pattern=r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$",
        description="How the app writes and reads amounts (a BCP 47 tag, e.g. de-DE: "
        "1.250,00); the API keeps one plain decimal form (1250.00).",
    )
    public_url: str | None = Field(
        default=None,
        pattern=r"^https?://[^\s/]+(/[^\s]*)?$",
        description="The address people reach the app at (e.g. https://floor.example.com): "
        "job tickets' QR codes and every other absolute link point there. Needed in "
        "production; unset in development: http://127.0.0.1:<port> (this machine only).",
    )
    time_zone: ZoneInfo = Field(
        default=ZoneInfo("UTC"),
        description="The shop's IANA time zone (e.g. Europe/Berlin): the calendar days that "
        "flow figures count completions by.",
    )
    # Overflow connections are closed on return and reopened under load, which costs
    # PostgreSQL a connection start each time: keep the steady pool large instead.
    pool_size: int = 30
    max_overflow: int = 10
    subscriber_buffer: int = Field(
        default=1000, description="Events buffered per subscriber before it is dropped."
    )
    keep_alive_seconds: float = Field(
        default=15, description="Interval of keep-alive messages to legacy graphql-ws clients."
    )
    connection_init_timeout_seconds: float = Field(
        default=10, description="How long a websocket may wait before its connection_init."
    )
    anonymous_concurrency: int | None = Field(
        default=None,
        ge=1,
        description="Anonymous GraphQL requests (no valid token) one process answers at "
        "once; the rest get 503 with Retry-After at once. Default: a quarter of pool_size.",
    )
    password_workers: int = Field(
        default=credentials.HASHING_WORKERS,
        ge=1,
        description="Threads that hash and check passwords (argon2id: each fills "
        "PRESSROOM_PASSWORD_MEMORY_KIB, some 150 ms of a core at the defaults).",
    )
    password_queue: int = Field(
        default=credentials.HASHING_QUEUE,
        ge=0,
        description="Anonymous sign-ins that may wait for a password worker; past it, 429 "
        "with Retry-After at once. Work for signed-in people may wait 64 deep (or this, if "
        "more), and goes first.",
    )
    password_memory_kib: int = Field(
        default=credentials.Cost.memory_kib,
        description="The memory (KiB) argon2id fills to hash or check one password: what "
        "each guess at a leaked hash costs, and what each sign-in costs the server. At "
        "least OWASP's 19456 (19 MiB).",
    )
    password_time_cost: int = Field(
        default=credentials.Cost.time_cost,
        description="argon2id's passes over that memory, each as long again. At least 2 "
        "(OWASP's minimum with 19 MiB).",
    )
    signin_failures_per_address: str = Field(
        default=throttle.FAILURES_PER_ADDRESS,
        description="Failed sign-ins one client address (an IPv6 /64) may make before it "
        "waits (a `limits` rate). Successful ones do not count.",
    )
    signin_attempts_per_address: str = Field(
        default=throttle.ATTEMPTS_PER_ADDRESS,
        description="All sign-in attempts one client address may make, a ceiling on the "
        "password hashing it can cause (a `limits` rate).",
    )
    signin_failures_per_account: str = Field(
        default=throttle.FAILURES_PER_ACCOUNT,
        description="Failed sign-ins one account takes before it waits (a `limits` rate).",
    )
    cost_per_token: str = Field(
        default=cost_window.COST_PER_TOKEN,
        description="Cost points one token's GraphQL requests over HTTP may spend in a fixed "
        "window (a `limits` rate); past it, 429 with Retry-After until the window renews.",
    )
    env: str = Field(
        default="development",
        description="'production' turns introspection, GraphiQL and field suggestions off, "
        "and trusted documents on.",
    )
    introspection: bool | None = Field(
        default=None, description="Schema introspection (default: on, off in production)."
    )
    graphiql: bool | None = Field(
        default=None, description="GraphiQL at GET /graphql (default: on, off in production)."
    )
    trusted_documents: bool | None = Field(
        default=None,
        description="Callers that are not signed in, and wall displays, run only the app's "
        "own documents (src/web/documents.json), by hash or identical text; people and API "
        "tokens run any (default: off, on in production).",
    )
    cors_origins: str = Field(
        default="",
        description="Comma-separated origins allowed to call the API from a browser (CORS).",
    )
    websocket_origins: str = Field(
        default="",
        description="Comma-separated origins whose pages may open a websocket, besides the "
        "server's own ('*' for any; clients that send no Origin are not browsers and pass).",
    )
    metrics_token: str | None = Field(
        default=None,
        description="When set, /metrics answers only requests with 'Authorization: Bearer "
        "<this token>'.",
    )
    websockets_per_token: int = Field(
        default=50, ge=1, description="Open websockets one bearer token may hold per process."
    )
    websockets_per_address: int = Field(
        default=500,
        ge=1,
        description="Open websockets one client address (an IPv6 /64) may hold per process.",
    )
    ws_compression: bool = Field(
        default=False,
        description="permessage-deflate on websockets. Off by default: live messages are "
        "small, and compressing each one per socket costs more CPU than it saves bytes.",
    )
    due_soon_hours: float = Field(
        default=24, gt=0, description="A work order is due soon this long before its due date."
    )
    stale_after_hours: float = Field(
        default=8, gt=0, description="A task started and untouched this long is stale."
    )
    timer_poll_seconds: float = Field(
        default=1.0, gt=0, description="How often each process looks for due timers."
    )
    event_retention_days: int = Field(
        default=90,
        gt=0,
        description="Events older than this many days leave the event log (pruned in small "
        "batches, one process at a time); a subscriber resuming from a cursor before them "
        "gets CURSOR_EXPIRED and takes a new snapshot.",
    )
    webhook_retries: str = Field(
        default=DEFAULT_RETRIES,
        description="The delays before each retry of a failed webhook delivery (ms, s, m, h or "
        "d); after the last, the delivery is dead and the webhook moves on.",
    )
    webhook_timeout_seconds: float = Field(
        default=10, gt=0, description="How long a webhook's receiver has to answer."
    )
    webhook_allow_private: bool = Field(
        default=False,
        description="Let webhooks reach loopback, link-local and private addresses, and use "
        "plain http in production (tests, a shop's own network).",
    )
    webhook_lease_seconds: float = Field(
        default=60,
        gt=0,
        description="How long a process holds a webhook it sends for: if it dies, another "
        "takes the webhook over after this.",
    )
    webhook_poll_seconds: float = Field(
        default=1.0, gt=0, description="How often each process looks for webhook work."
    )
    inbox_failures_per_address: str = Field(
        default=inbox_policy.FAILURES_PER_ADDRESS,
        description="Requests to the payment inboxes that do not prove an inbox's secret one "
        "client address (an IPv6 /64) may send, per process, before everything it sends "
        "waits (a `limits` rate).",
    )
    inbox_requests_per_address: str = Field(
        default=inbox_policy.REQUESTS_PER_ADDRESS,
        description="All requests to the payment inboxes one client address may send, per "
        "process (a `limits` rate).",
    )
    inbox_request_retention_days: int = Field(
        default=inbox_policy.KEEP_DAYS,
        gt=0,
        description="How long the requests a payment inbox answered are kept for admins "
        "(pruned as the inbox receives new ones).",
    )
    access_log: bool = Field(
        default=False,
        description="uvicorn's access log, a line per request (customer pages' secrets "
        "masked). Off: the proxy in front usually keeps one.",
    )
    shop_name: str = Field(
        default=customer_policy.SHOP_NAME,
        min_length=1,
        max_length=200,
        description="The shop's name as its customers know it: the customer page's heading.",
    )
    shop_contact: str | None = Field(
        default=None,
        max_length=500,
        description="How a customer reaches the shop (e.g. 'Call 030 1234 567 or write to "
        "hello@shop.example'), shown on the customer page and when a link no longer works.",
    )
    customer_link_days: int = Field(
        default=LINK_DAYS,
        ge=1,
        description="A customer link made without an expiry stops working this many days "
        "after its order completes (or is cancelled).",
    )
    customer_page_failures_per_address: str = Field(
        default=customer_policy.FAILURES_PER_ADDRESS,
        description="Customer page requests naming no link one client address (an IPv6 /64) "
        "may send, per process, before everything it sends waits (a `limits` rate).",
    )
    customer_page_requests_per_address: str = Field(
        default=customer_policy.REQUESTS_PER_ADDRESS,
        description="All customer page requests one client address may send, per process "
        "(a `limits` rate).",
    )
    customer_page_requests_per_link: str = Field(
        default=customer_policy.REQUESTS_PER_LINK,
        description="All requests through one customer link, per process (a `limits` rate).",
    )
    webhook_disable_after_days: float = Field(
        default=DISABLE_AFTER_DAYS,
        gt=0,
        description="A webhook whose every attempt failed for this many days is turned off, "
        "with its reason, so that the event log's retention moves on.",
    )
    proof_max_mb: int = Field(
        default=25,
        gt=0,
        le=1024,
        description="The most megabytes (MiB) a proof file may have; a larger upload is "
        "refused from its Content-Length, before it is read.",
    )
    smtp_url: str | None = Field(
        default=None,
        description="Where email goes: smtp://user:password@host:587 (STARTTLS when the "
        "server offers it) or smtps://user:password@host:465 (TLS). Unset: no email is sent.",
    )
    mail_from: str | None = Field(
        default=None,
        description='The sender of every email: an address, or "Shop name <address>" (the '
        "name signs the messages). Needed with PRESSROOM_SMTP_URL.",
    )
    sales_email: str | None = Field(
        default=None,
        description="Where the shop is told that a customer asked for changes to a proof. "
        "Unset: nobody is.",
    )
    mail_retries: str = Field(
        default=DEFAULT_RETRIES,
        description="The delays before each retry of an email the mail server did not take "
        "(ms, s, m, h or d); after the last, the message is dead (admins see it).",
    )
    gc_full_collection_seconds: float = Field(
        default=300.0,
        gt=0,
        description="The longest the garbage collector's full collection is put off (sooner "
        "once the process has grown by 64 MiB since the last).",
    )
    read_cache: bool = Field(
        default=True,
        description="Serve kept answers of queries that read the database alone while "
        "nothing has committed since (src/graph/read_cache.py).",
    )
    read_cache_mb: int = Field(
        default=64, ge=1, description="MiB of those answers each process keeps, at most."
    )
    plain_execution: bool = Field(
        default=False,
        description="Run the frameworks' stock behaviour only: none of the engine room's "
        "overrides (src/graph/engine/README.md). Slower; for telling a bug of theirs apart.",
    )
    replica: str = Field(
        default_factory=lambda: f"{socket.gethostname()}-{os.getpid()}",
        min_length=1,
        description="This process's name in /metrics (the `replica` label on every sample). "
        "Unset: the host's name and the process id.",
    )
    drain_seconds: float = Field(
        default=20,
        ge=0,
        description="On SIGTERM, how long requests in flight may take to finish after the "
        "server stops accepting; websockets are closed with 1012 at once.",
    )
    feed_poll_seconds: float = Field(
        default=0.5, description="How often the event feed reads the log without a NOTIFY."
    )
    feed_batch_seconds: float = Field(
        default=0.01,
        description="Under a stream of commits, the event feed reads (and notifies other "
        "processes) at most once per this interval; an isolated commit is read at once.",
    )

    @model_validator(mode="after")
    def _links_point_here(self) -> "Settings":
        # Never the Host a request names: its sender chooses it (a phishing site in a QR code).
        if self.public_url is None and not self.production:
            host = "127.0.0.1" if self.host in WILDCARDS else self.host
            self.public_url = f"http://{f'[{host}]' if ':' in host else host}:{self.port}"
        return self

    @model_validator(mode="after")
    def _pgbouncer_needs_a_listener(self) -> "Settings":
        if self.pgbouncer and not (self.database_url and self.listen_database_url):
            raise ValueError(
                "PRESSROOM_PGBOUNCER=true needs DATABASE_URL (the PgBouncer) and "
                "PRESSROOM_LISTEN_DATABASE_URL (PostgreSQL itself, for LISTEN)"
            )
        return self

    @model_validator(mode="after")
    def _passwords_cost_enough(self) -> "Settings":
        if refusal := self.password_cost().refusal():
            raise ValueError(
                f"PRESSROOM_PASSWORD_MEMORY_KIB and PRESSROOM_PASSWORD_TIME_COST: {refusal}"
            )
        return self

    @field_validator("time_zone", mode="before")
    @classmethod
    def _iana_zone(cls, value: object) -> object:
        if isinstance(value, str):
            try:
                return ZoneInfo(value)
            except (ZoneInfoNotFoundError, ValueError):
                message = f"{value!r} is not an IANA time zone (e.g. Europe/Berlin)."
                raise ValueError(message) from None
        return value

    @field_validator("webhook_retries", "mail_retries")
    @classmethod
    def _retries(cls, value: str) -> str:
        retry_schedule(value)
        return value

    @model_validator(mode="after")
    def _mail_is_whole(self) -> "Settings":
        if self.smtp_url is not None:
            if self.mail_from is None:
                raise ValueError("PRESSROOM_SMTP_URL needs PRESSROOM_MAIL_FROM, the sender")
            mail.smtp_server(self.smtp_url)
            mail.mail_from(self.mail_from)
        if self.sales_email is not None:
            mail.email_address(self.sales_email)
        return self

    @field_validator("cors_origins", "websocket_origins")
    @classmethod
    def _origins_only(cls, value: str) -> str:
        origins(value)
        return value

    @field_validator("currency")
    @classmethod
    def _iso_4217(cls, value: str) -> str:
        try:
            return currency_code(value)
        except DomainError as error:
            raise ValueError(error.message) from None

    @property
    def production(self) -> bool:
        return self.env == "production"

    def password_cost(self) -> credentials.Cost:
        return credentials.Cost(self.password_memory_kib, self.password_time_cost)

    def configure_hashing(self) -> None:
        """This process's password workers, and the cost of the hashes they make and check:
        every process that hashes or checks a password calls it before."""
        credentials.configure_hashing(
            self.password_workers, self.password_queue, self.password_cost()
        )

    @property
    def event_retention(self) -> timedelta:
        return timedelta(days=self.event_retention_days)
