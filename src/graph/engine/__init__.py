"""The engine room: everything that replaces or extends the frameworks' own behaviour for
speed or memory, behind one door (`EngineRoom`). README.md beside this file names each
override, what it bought, and how to switch it off; PRESSROOM_PLAIN_EXECUTION=true runs
none of them. Ordinary resolvers and types import nothing from here: they reach it only
through `SchemaServices.shortcuts`."""

import contextlib
import gc
from collections.abc import AsyncIterator
from typing import Any

import strawberry

from api.metrics import Metrics
from graph.context import Info
from graph.engine import collector, http, websocket
from graph.engine.schema import tuned_schema
from graph.engine.sharing import Direct
from graph.engine.view import TunedGraphQL
from graph.schema import schema as plain_schema
from graph.services import SchemaServices, Shortcuts
from graph.view import PressroomGraphQL


class EngineShortcuts(Shortcuts):
    def __init__(self, pacer: collector.Pacer) -> None:
        self.pacer = pacer

    def direct(self, info: Info) -> Direct | None:
        return Direct.of(info)

    def subscription_ended(self) -> None:
        self.pacer.subscription_ended()


class EngineRoom:
    """What the server runs beyond the frameworks' stock behaviour; with `plain`, none of
    it: Strawberry's execution and delivery, uvicorn's websocket protocol, CPython's
    garbage collection as it comes, SQLAlchemy for every statement."""

    def __init__(
        self,
        *,
        plain: bool = False,
        full_collection_seconds: float = collector.FULL_COLLECTION_SECONDS,
    ) -> None:
        self.plain = plain
        self.pacer = collector.Pacer(full_collection_seconds)

    @property
    def schema(self) -> strawberry.Schema:
        return plain_schema if self.plain else tuned_schema()

    def shortcuts(self) -> Shortcuts:
        return Shortcuts() if self.plain else EngineShortcuts(self.pacer)

    def view(self, services: SchemaServices, **options: Any) -> PressroomGraphQL:
        if self.plain:
            return PressroomGraphQL(self.schema, services, **options)
        return TunedGraphQL(
            self.schema, services, message_passed=self.pacer.message_passed, **options
        )

    def server_options(self) -> dict[str, Any]:
        """uvicorn's: websockets' Sans-I/O protocol, lightened here (websocket.py), about
        23 KB per idle connection against 30 KB for uvicorn's default, and its httptools
        protocol letting go of itself on an upgrade (http.py); its own when plain."""
        if self.plain:
            return {"ws": "websockets-sansio"}
        return {"http": http.HandingOverHttpProtocol, "ws": websocket.LeanWebSocketProtocol}

    @contextlib.asynccontextmanager
    async def running(self, metrics: Metrics) -> AsyncIterator[dict[str, Any]]:
        """For the app's lifespan, once it has started: the garbage collector paced, and
        the state uvicorn hands to every connection's protocol."""
        # `pressroom` keeps the collector off through start-up (pressroom/cli.py): on from
        # here, whichever the execution.
        gc.enable()
        if self.plain:
            yield {}
            return
        async with collector.managed(metrics, self.pacer):
            yield {websocket.READ: self.pacer.message_passed}
