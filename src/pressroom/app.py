"""The app factory: database chosen, migrated, then served."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from functools import partial
from typing import Any

from starlette.applications import Starlette

from api.admission import AnonymousAdmission
from api.cost_window import CostWindow
from api.metrics import Metrics
from api.throttle import PasswordThrottle
from api.viewer import ViewerCache
from db import migrate, reads
from db.engine import create_engine
from db.feed import EventFeed
from db.rate_limits import PostgresStorage, counters_engine
from graph import webhook_bodies
from graph.engine import EngineRoom
from graph.live import LiveConnections
from graph.services import SchemaServices
from pressroom import policies
from pressroom.database import Database, choose, prepare
from pressroom.settings import PUBLIC_URL_NEEDED, Settings
from routes.app import api_app
from routes.body_limit import MAX_BODY_BYTES
from workers.mail import MailOutbox
from workers.retention import PruneLoop
from workers.timers import TimerLoop
from workers.webhooks import WebhookRelay


def server_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's options for this app, wherever it is served (the CLI, the tests)."""
    return {
        "lifespan": "on",
        **EngineRoom(plain=settings.plain_execution).server_options(),
        "ws_per_message_deflate": settings.ws_compression,
        # A frame's header says how long it is: one over the body limit is refused there,
        # before it is read (uvicorn's default reads 16 MiB first).
        "ws_max_size": MAX_BODY_BYTES,
        # On SIGTERM uvicorn stops accepting, closes websockets with 1012 (clients resume
        # from their cursors through the balancer) and gives requests in flight this long.
        "timeout_graceful_shutdown": settings.drain_seconds,
    }


def create_app(
    settings: Settings | None = None, *, url: str | None = None, db: Database | None = None
) -> Starlette:
    """The app on `db`, or on `url` (which also migrates), or on the database the
    settings name."""
    settings = settings or Settings()
    if settings.public_url is None:
        raise ValueError(PUBLIC_URL_NEEDED)
    db = db or (Database.at(url) if url else choose(settings))
    db_url = db.url
    # Creating the engine does not connect; the lifespan migrates before the first request.
    engine = create_engine(
        db_url,
        pool_size=settings.pool_size,
        max_overflow=settings.max_overflow,
        through_driver=not settings.plain_execution,
        pgbouncer=db.pgbouncer,
    )
    # The sign-in counters' own connections: a sign-in never waits on the requests' pool
    # for them while it holds one of its connections.
    counters = counters_engine(
        db_url, through_driver=not settings.plain_execution, pgbouncer=db.pgbouncer
    )
    settings.configure_hashing()
    feed = EventFeed(
        engine,
        settings.listen_database_url or db_url,
        enrich=reads.related,
        buffer=settings.subscriber_buffer,
        poll_interval=settings.feed_poll_seconds,
        batch_window=settings.feed_batch_seconds,
    )
    engine_room = EngineRoom(
        plain=settings.plain_execution, full_collection_seconds=settings.gc_full_collection_seconds
    )
    metrics = Metrics(settings.replica)
    services = SchemaServices(
        engine,
        settings.session_ttl_seconds,
        feed,
        settings.currency,
        api_token_max_days=settings.api_token_max_days,
        due_soon=timedelta(hours=settings.due_soon_hours),
        stale_after=timedelta(hours=settings.stale_after_hours),
        time_zone=settings.time_zone,
        public_url=settings.public_url,
        customer_link_days=settings.customer_link_days,
        proof_max_bytes=settings.proof_max_mb * 1024 * 1024,
        throttle=PasswordThrottle(
            PostgresStorage(counters),
            failures_per_address=settings.signin_failures_per_address,
            attempts_per_address=settings.signin_attempts_per_address,
            failures_per_account=settings.signin_failures_per_account,
        ),
        exposure=policies.exposure(settings),
        documents=policies.documents(settings),
        cost_windows=CostWindow(settings.cost_per_token),
        read_cache=policies.read_cache(settings),
        shortcuts=engine_room.shortcuts(),
        viewers=ViewerCache(changes=feed.access_changes),
        webhooks=policies.webhooks(settings),
        admission=AnonymousAdmission(limit=policies.anonymous_limit(settings)),
        metrics=metrics,
    )
    live = LiveConnections()
    metrics.watch(feed, services.admission)
    services.documents.expose(metrics)
    if services.read_cache is not None:
        services.read_cache.expose(metrics)
    live.expose(metrics)
    timer_loop = TimerLoop(engine, feed, poll=settings.timer_poll_seconds)
    pruner = PruneLoop(engine, keep=settings.event_retention)
    relay = WebhookRelay(
        engine,
        feed,
        services.webhooks,
        render=partial(webhook_bodies.render, services),
        busy=lambda: services.in_flight.requests > 0,
        registry=metrics.registry,
    )
    mail_policy = policies.mail(settings)
    mailer = None
    if mail_policy is not None:
        mailer = MailOutbox(engine, feed, mail_policy, settings.public_url)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, Any]]:
        await prepare(db, settings.event_retention)
        await feed.start()
        timer_loop.start()
        pruner.start()
        relay.start()
        if mailer is not None:
            mailer.start()
        async with engine_room.running(metrics) as state:
            live.start(feed)
            try:
                # uvicorn hands this state to every connection's protocol.
                yield state
            finally:
                await live.stop()
                if mailer is not None:
                    await mailer.stop()
                await relay.stop()
                await pruner.stop()
                await timer_loop.stop()
                await feed.stop()
                await counters.dispose()
                await engine.dispose()

    async def ready() -> dict[str, bool]:
        database, migrations = await migrate.readiness(engine)
        return {"database": database, "migrations": migrations, "listener": feed.listening}

    graphql = engine_room.view(
        services,
        live=live,
        keep_alive_seconds=settings.keep_alive_seconds,
        connection_init_timeout_seconds=settings.connection_init_timeout_seconds,
    )
    app = api_app(
        graphql,
        services,
        policies.inbox(settings),
        ready,
        lifespan,
        connection_init_timeout_seconds=settings.connection_init_timeout_seconds,
        metrics_token=settings.metrics_token,
        sockets_per_token=settings.websockets_per_token,
        sockets_per_address=settings.websockets_per_address,
        locale=settings.locale,
        customers=policies.customer_page(settings),
    )
    app.state.services = services
    app.state.relay = relay
    app.state.mailer = mailer
    app.state.pruner = pruner
    return app
