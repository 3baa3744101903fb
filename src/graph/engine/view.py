"""The view as the engine room runs it: each graphql-transport-ws operation handed to its
subscription (sharing.py's `Direct` writes its messages), a shared answer's JSON made
once for every socket, orjson for the rest, and every message counted for the garbage
collector's pacer (collector.py)."""

import asyncio
from collections.abc import Callable
from typing import Any, cast

import strawberry
from starlette.requests import Request
from starlette.responses import Response
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import Operation
from strawberry.subscriptions.protocols.graphql_transport_ws.types import ConnectionInitMessage

from api.viewer import Viewer
from graph.context import Context
from graph.engine.compiled import CompiledDocuments
from graph.engine.jsontext import dumps
from graph.engine.sharing import LiveOperation, SharedMessages
from graph.view import PressroomGraphQL
from graph.websockets import TrustedTransportWSHandler


class TransportWSHandler(TrustedTransportWSHandler):
    """The plain view's graphql-transport-ws handler (graph/websockets.py), without the
    finished init timer: Strawberry keeps the cancelled task for the connection's life,
    and with it its CancelledError, traceback and frames, about 1.5 KB per idle wall
    display. Each operation runs with its own root value naming it (`LiveOperation`),
    which its subscription reads from `info.root_value`."""

    async def run_operation(self, operation: Operation[Context, Any]) -> None:
        # Strawberry reads `root_value` as it calls the schema, before its first await:
        # no other operation of this connection runs in between.
        root = self.root_value = LiveOperation(operation)
        try:
            await super().run_operation(operation)
        finally:
            if self.root_value is root:
                self.root_value = None

    async def handle_connection_init(self, message: ConnectionInitMessage) -> None:
        timer = self.connection_init_timeout_task
        await super().handle_connection_init(message)
        if timer is not None:
            timer.add_done_callback(self._forget_timer)

    def _forget_timer(self, task: "asyncio.Task[None]") -> None:
        if self.connection_init_timeout_task is task:
            self.connection_init_timeout_task = None


class TunedGraphQL(PressroomGraphQL):
    graphql_transport_ws_handler_class = TransportWSHandler

    def __init__(self, *args: Any, message_passed: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.message_passed = message_passed
        self.messages = SharedMessages()
        self.compiled = CompiledDocuments(
            cast(strawberry.Schema, self.schema)._schema, self.services.documents
        )
        if self.services.metrics is not None:
            self.compiled.expose(self.services.metrics)

    async def signed_in(self, request: Request, viewer: Viewer) -> Response:
        # A person's request for a compiled trusted document (compiled.py).
        if viewer.is_person:
            answered = await self.compiled.answer(request, self.get_context, viewer)
            if answered is not None:
                return answered
        return await super().signed_in(request, viewer)

    def encode_json(self, data: object) -> str | bytes:
        self.message_passed()
        shared = self.messages.encode(data)
        return shared if shared is not None else dumps(data)
