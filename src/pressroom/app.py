"""The app factory: database chosen, migrated, then served."""

import gc
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette

from db import migrate, reads
from db.engine import create_engine
from db.feed import EventFeed
from graph.app import create_app as create_graph_app
from graph.context import Services
from graph.live import LiveConnections
from graph.metrics import Metrics
from graph.throttle import SignInThrottle
from pressroom.database import database_url, prepare
from pressroom.settings import Settings

# Young objects are collected every 10,000 allocations (requests make many, few cycles).
# The middle generation is collected every second young collection, while it is still
# small: at 20 it held whatever a page or a burst of subscribers had left over, and one
# collection of it stopped the process for 80-180 ms (the bench's GC table); now mostly
# under 15 ms. A full collection still comes after as many allocations as before
# (2 x 200 = 20 x 20 young collections); it is the one long pause left.
GC_THRESHOLDS = (10_000, 2, 200)


class GcPauses:
    """A gc.callbacks hook: how long each collection stops the process, into the app's
    metrics (a pause stops every request and every subscriber at once)."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self.began = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.began = time.perf_counter()
        else:
            self.metrics.gc_paused(info["generation"], time.perf_counter() - self.began)


def server_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's options for this app, wherever it is served (the CLI, the tests)."""
    return {
        "lifespan": "on",
        # websockets' Sans-I/O protocol: about 23 KB per idle connection against 30 KB
        # for uvicorn's default, which runs websockets' own asyncio server per socket.
        "ws": "websockets-sansio",
        "ws_per_message_deflate": settings.ws_compression,
    }


def create_app(settings: Settings | None = None, *, url: str | None = None) -> Starlette:
    settings = settings or Settings()
    db_url = url or database_url(settings)
    # Creating the engine does not connect; the lifespan migrates before the first request.
    engine = create_engine(db_url, pool_size=settings.pool_size, max_overflow=settings.max_overflow)
    feed = EventFeed(
        engine,
        db_url,
        enrich=reads.related,
        buffer=settings.subscriber_buffer,
        poll_interval=settings.feed_poll_seconds,
        batch_window=settings.feed_batch_seconds,
    )
    services = Services(
        engine,
        settings.session_ttl_seconds,
        feed,
        settings.currency,
        throttle=SignInThrottle(settings.signin_per_address, settings.signin_failures_per_account),
        exposure=settings.exposure(),
    )
    live = LiveConnections(services.viewers)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await prepare(settings, db_url)
        await migrate.upgrade(db_url)
        await feed.start()
        # What start-up built lives as long as the process: keep it out of every later
        # collection (GC_THRESHOLDS says how often the rest is collected).
        gc.collect()
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)
        # Timed from here: start-up's full collection above pauses no client.
        assert services.metrics is not None, "graph.app.create_app makes the app's metrics"
        pauses = GcPauses(services.metrics)
        gc.callbacks.append(pauses)
        live.start(feed)
        try:
            yield
        finally:
            # Removed, or every app made in this process (tests make many) would keep
            # timing collections into its registry, and stay alive.
            gc.callbacks.remove(pauses)
            await live.stop()
            await feed.stop()
            await engine.dispose()

    async def ready() -> dict[str, bool]:
        database, migrations = await migrate.readiness(engine)
        return {"database": database, "migrations": migrations, "listener": feed.listening}

    app = create_graph_app(
        services,
        live,
        ready,
        lifespan,
        keep_alive_seconds=settings.keep_alive_seconds,
        connection_init_timeout_seconds=settings.connection_init_timeout_seconds,
        metrics_token=settings.metrics_token,
    )
    app.state.services = services
    return app
