"""Parts 3 and 4 of `python -m bench.run`: transitions with live subscribers connected,
commit-to-receipt latency and exactly-once delivery, then delivery and the server's memory
as subscribers grow."""

import asyncio
import functools
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg
import psutil

from bench.fleet import SubscriberFleet, delivered, drain, expected_events
from bench.load import GraphQLClients, LoadResult
from bench.measuring import GRAPHQL_CEILING, load_figures
from bench.output import log
from bench.shop import Shop
from bench.stats import (
    ratio,
    summary_ms,
)
from bench.throughput import Throughput


class Fanout(Throughput):
    """Parts 3 and 4 of the run; part 3's rate without subscribers is measured as part 1's."""

    # --- part 3: subscribers -----------------------------------------------------------

    async def with_subscribers(self, shop: Shop, baseline: dict[str, Any]) -> None:
        assert self.server is not None
        plan = self.plan
        part: dict[str, Any] = {
            "subscribers": plan.subscribers,
            "departments": plan.departments,
            "subscribers_per_event": round(plan.subscribers / plan.departments, 1),
            "ws_compression": plan.compression,
        }
        if plan.separate_baseline:
            part["without"] = await self.graphql(shop, "0 subscribers", plan.clients)
            part["baseline"] = "measured again right before the subscribers connect"
        else:
            part["without"] = baseline
            part["baseline"] = "part 1's GraphQL run"

        # The tasks are made before anyone subscribes: making a task writes its events
        # (TASK_CREATED, the gate), which would otherwise reach every subscriber of its
        # department during the measured window. The rate without subscribers bounds
        # the rate with them.
        pool = await self.sized_pool(
            part["without"]["per_second"], GRAPHQL_CEILING, plan.subscriber_seconds, plan.clients
        )
        light_pool = await self.tasks(int(plan.light_rate * plan.light_seconds / 2) + 10)

        log(f"connecting {plan.subscribers} subscribers")
        ours = self.fleet = SubscriberFleet(self.server.ws_url, plan.compression)
        http = GraphQLClients(self.server.http_url, shop.worker_tokens, plan.clients)
        try:
            meter = self.meter()
            meter.start()
            connected, part["connecting"] = await self.with_gc(
                ours.add(shop.displays[: plan.subscribers])
            )
            part["connect_cpu_cores"] = meter.stop()
            part["connect_seconds"] = round(meter.elapsed, 2)
            part["connected"] = connected["connected"]
            part["failed_to_connect"] = connected["failed_to_connect"]
            part["connect_errors"] = connected["errors"]
            # Let the last subscriptions join the feed before any event is written.
            await asyncio.sleep(1)
            first_event = await self.last_event_id()

            log(f"{plan.subscribers} subscribers: GraphQL over HTTP, {plan.clients} clients")
            _, part["drain_seconds"], part["with"] = await self.subscriber_window(
                ours, functools.partial(http.run, pool, plan.subscriber_seconds)
            )

            log(f"{plan.subscribers} subscribers: light load, {plan.light_rate:g}/s")
            _, _, part["light"] = await self.subscriber_window(
                ours, functools.partial(http.paced, light_pool, plan.light_seconds, plan.light_rate)
            )
            part["delivery"] = await self.delivery_check(ours, shop, first_event)
        finally:
            await http.close()
            _, part["hanging_up"] = await self.with_gc(ours.stop())
            self.fleet = None
        part["ratio"] = ratio(part["with"]["per_second"], part["without"]["per_second"])
        self.results["subscribers"] = part

    async def subscriber_window(
        self,
        ours: "SubscriberFleet",
        load: Callable[[], Awaitable[LoadResult]],
        drain_limit: float = 30,
    ) -> tuple[LoadResult, float, dict[str, Any]]:
        """`load()` measured with subscribers connected, once the server's backlog is
        delivered: its result, how long the subscribers then took to receive the window's
        last events (every event of the window counts, however late it arrives), and its
        figures with the subscribers' receipts."""
        await drain(ours)
        await ours.send("window")
        meter = self.meter()
        gc_before = await self.gc_now()
        meter.start()
        result = await load()
        cpu = meter.stop()
        gc = await self.gc_since(gc_before)
        drained = await drain(ours, limit=drain_limit)
        figures = (
            load_figures(result)
            | {"cpu_cores": cpu}
            | gc
            | receipts(await ours.ask("report", "report", 60))
        )
        return result, drained, figures

    # --- part 4: delivery as subscribers grow ----------------------------------------

    async def scaling(self, shop: Shop) -> None:
        """Subscribers added step by step up to the last count of `plan.scale`: at each
        step the server's memory, idle, then commit-to-receipt at the light load; at the
        last step also the full-load rate, beside the rate without subscribers."""
        assert self.server is not None
        plan = self.plan
        server = psutil.Process(self.server.pid)
        steps: list[dict[str, Any]] = []
        part: dict[str, Any] = {"steps": steps, "departments": plan.departments}
        # Every step's tasks made before the first subscriber connects (see with_subscribers).
        light_pools = [
            await self.tasks(int(plan.light_rate * plan.light_seconds / 2) + 10) for _ in plan.scale
        ]
        baseline = self.results["subscribers"]["without"]["per_second"]
        full_pool = await self.sized_pool(
            baseline, GRAPHQL_CEILING, plan.subscriber_seconds, plan.clients
        )
        ours = self.fleet = SubscriberFleet(self.server.ws_url, plan.compression)
        http = GraphQLClients(self.server.http_url, shop.worker_tokens, plan.clients)
        try:
            part["server_rss_mb_before"] = round(await self.server_rss(server) / 2**20, 1)
            for count, pool in zip(plan.scale, light_pools, strict=True):
                log(f"scaling: {count} subscribers, connecting")
                added, connecting = await self.with_gc(
                    ours.add(shop.displays[len(ours.specs) : count])
                )
                await asyncio.sleep(1)  # the last subscriptions join the feed
                step: dict[str, Any] = {
                    "subscribers": len(ours.specs),
                    "per_event": round(len(ours.specs) / plan.departments, 1),
                    "failed_to_connect": added["failed_to_connect"],
                    "connecting": connecting,
                    "server_rss_mb": round(await self.server_rss(server) / 2**20, 1),
                }
                log(f"scaling: {count} subscribers, light load {plan.light_rate:g}/s")
                _, _, step["light"] = await self.subscriber_window(
                    ours, functools.partial(http.paced, pool, plan.light_seconds, plan.light_rate)
                )
                steps.append(step)
            first, last = steps[0], steps[-1]
            added_subscribers = last["subscribers"] - first["subscribers"]
            if added_subscribers > 0:
                grown = last["server_rss_mb"] - first["server_rss_mb"]
                part["kb_per_idle_subscriber"] = round(grown * 1024 / added_subscribers, 1)
            log(f"scaling: {last['subscribers']} subscribers, GraphQL over HTTP")
            result, part["drain_seconds"], part["loaded"] = await self.subscriber_window(
                ours,
                functools.partial(http.run, full_pool, plan.subscriber_seconds),
                drain_limit=120,
            )
            part["ratio"] = ratio(result.rate, baseline)
        finally:
            await http.close()
            _, part["hanging_up"] = await self.with_gc(ours.stop())
            self.fleet = None
        self.results["scaling"] = part

    async def server_rss(self, server: psutil.Process) -> int:
        """The server's resident memory once it has been idle for a moment."""
        await asyncio.sleep(1)
        return int(server.memory_info().rss)

    async def last_event_id(self) -> int:
        conn = await asyncpg.connect(self.dsn)
        try:
            return int(await conn.fetchval("SELECT coalesce(max(id), 0) FROM events"))
        finally:
            await conn.close()

    async def delivery_check(
        self, ours: "SubscriberFleet", shop: Shop, first_event: int
    ) -> dict[str, Any]:
        """Did every subscriber get every event of its department, once? Counted by the
        events' ids, which the subscribers read from the cursors."""
        totals = await ours.ask(f"totals {first_event}", "totals", 30)
        expected = await expected_events(self.dsn, shop, ours.specs, first_event)
        return delivered(expected, totals["received"], totals["repeated"], totals["before"])


def receipts(received: dict[str, Any]) -> dict[str, Any]:
    """What the subscribers saw of a phase."""
    return {
        "receipt_latency": summary_ms(received["latencies"]),
        "events_received": received["events"],
        "subscribers_receiving": received["subscribers_receiving"],
        "dropped": received["dropped"],
        "subscriber_errors": received["errors"],
    }
