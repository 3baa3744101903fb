"""What the settings mean for each part of the app: the policy each is given, made where
the app is wired (pressroom/app.py). Kept apart from pressroom/settings.py, which only
reads and checks the environment, so that a command that needs no server (`pressroom
--version`, `db-url`, `create-user`) does not import the schema and the services."""

from api import manifest
from api.services import Exposure
from domain import mail as mail_rules
from domain.outbox import retry_schedule
from domain.webhooks import Policy
from graph.persisted import PersistedDocuments
from graph.read_cache import ReadCache
from pressroom.origins import origins
from pressroom.settings import Settings
from routes import customer_policy, inbox_policy


def exposure(settings: Settings) -> Exposure:
    production = settings.production
    return Exposure(
        introspection=settings.introspection
        if settings.introspection is not None
        else not production,
        graphiql=settings.graphiql if settings.graphiql is not None else not production,
        suggestions=not production,
        cors_origins=origins(settings.cors_origins),
        websocket_origins=origins(settings.websocket_origins),
    )


def anonymous_limit(settings: Settings) -> int:
    """How many requests of callers who are not signed in may run at once."""
    if settings.anonymous_concurrency is not None:
        return settings.anonymous_concurrency
    return max(1, settings.pool_size // 4)


def inbox(settings: Settings) -> inbox_policy.InboxPolicy:
    return inbox_policy.InboxPolicy(
        failures_per_address=settings.inbox_failures_per_address,
        requests_per_address=settings.inbox_requests_per_address,
        keep_days=settings.inbox_request_retention_days,
    )


def customer_page(settings: Settings) -> customer_policy.CustomerPagePolicy:
    return customer_policy.CustomerPagePolicy(
        shop_name=settings.shop_name,
        shop_contact=settings.shop_contact,
        failures_per_address=settings.customer_page_failures_per_address,
        requests_per_address=settings.customer_page_requests_per_address,
        requests_per_link=settings.customer_page_requests_per_link,
    )


def documents(settings: Settings) -> PersistedDocuments:
    trusted = settings.trusted_documents
    return PersistedDocuments(
        manifest.load(), trusted=trusted if trusted is not None else settings.production
    )


def read_cache(settings: Settings) -> ReadCache | None:
    return ReadCache(settings.read_cache_mb * 1024 * 1024) if settings.read_cache else None


def webhooks(settings: Settings) -> Policy:
    return Policy(
        retries=retry_schedule(settings.webhook_retries),
        timeout_seconds=settings.webhook_timeout_seconds,
        allow_private=settings.webhook_allow_private,
        https_only=settings.production,
        lease_seconds=settings.webhook_lease_seconds,
        poll_seconds=settings.webhook_poll_seconds,
        disable_after_days=settings.webhook_disable_after_days,
    )


def mail(settings: Settings) -> mail_rules.Policy | None:
    """None: no email is sent (PRESSROOM_SMTP_URL unset)."""
    if settings.smtp_url is None or settings.mail_from is None:
        return None
    return mail_rules.Policy(
        server=mail_rules.smtp_server(settings.smtp_url),
        sender=mail_rules.mail_from(settings.mail_from),
        sales=settings.sales_email,
        locale=settings.locale,
        time_zone=settings.time_zone,
        retries=retry_schedule(settings.mail_retries),
    )
