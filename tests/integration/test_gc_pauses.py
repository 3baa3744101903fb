"""Garbage collector pauses of the whole server process show in /metrics, and an app that
shuts down stops timing them (tests start many apps in one process)."""

import gc

import httpx
import uvicorn
from prometheus_client.parser import text_string_to_metric_families

from pressroom.app import GcPauses, create_app
from pressroom.settings import Settings
from tests.support import free_port, serve

COLLECTIONS = "pressroom_gc_pause_seconds_count"


def sample(exposition: str, name: str, **labels: str) -> float | None:
    for family in text_string_to_metric_families(exposition):
        for found in family.samples:
            if found.name == name and found.labels == labels:
                return float(found.value)
    return None


async def test_a_collection_in_the_server_process_shows_in_metrics(
    server: str, http: httpx.AsyncClient
) -> None:
    metrics = server.removesuffix("/graphql") + "/metrics"
    before = (await http.get(metrics)).text
    # The test server runs in this process: this is a full collection of the server's.
    gc.collect()
    after = (await http.get(metrics)).text
    collections = sample(after, COLLECTIONS, generation="2")
    assert collections is not None
    assert collections >= (sample(before, COLLECTIONS, generation="2") or 0) + 1
    every = sample(after, "pressroom_gc_pause_seconds_bucket", generation="2", le="+Inf")
    assert every == collections
    paused = sample(after, "pressroom_gc_pause_seconds_sum", generation="2")
    longest = sample(after, "pressroom_gc_pause_max_seconds")
    assert paused is not None and longest is not None
    assert 0 < longest <= paused


async def test_an_app_that_shuts_down_stops_timing_collections(database_url: str) -> None:
    others = list(gc.callbacks)
    for _ in range(2):
        app = create_app(Settings(), url=database_url)
        server, serving = await serve(
            uvicorn.Config(app, port=free_port(), log_level="warning", lifespan="on")
        )
        added = [callback for callback in gc.callbacks if callback not in others]
        assert len(added) == 1
        assert isinstance(added[0], GcPauses)
        server.should_exit = True
        await serving
        assert gc.callbacks == others
    metrics = app.state.services.metrics
    counted = sample(metrics.exposition().decode(), COLLECTIONS, generation="2")
    gc.collect()
    assert sample(metrics.exposition().decode(), COLLECTIONS, generation="2") == counted
