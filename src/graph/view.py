"""The GraphQL view: context per request, websocket authentication, error shapes."""

import asyncio
import re
from datetime import timedelta
from typing import Any, cast

from cross_web import HTTPException
from graphql import GraphQLError
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.http import GraphQLHTTPResponse
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
    Operation,
)
from strawberry.subscriptions.protocols.graphql_transport_ws.types import ConnectionInitMessage
from strawberry.types import ExecutionResult
from strawberry.types.unset import UnsetType

from db.engine import unavailable
from graph.auth import bearer, init_authorization, init_token, load_viewer
from graph.context import Context
from graph.errors import STALE_TOKEN, TopLevelCode, error_response, unavailable_response
from graph.jsontext import dumps
from graph.live import LiveConnections
from graph.schema import schema
from graph.services import Services
from graph.sharing import OPERATION, SharedMessages

MAX_SUBSCRIPTIONS_PER_CONNECTION = 20
# graphql-core's hints at field and type names the caller may not know of.
SUGGESTION = re.compile(r" Did you mean .*\?$")
# A caller's own request id is kept (for tracing across services) when it is this tame.
REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


class TransportWSHandler(BaseGraphQLTransportWSHandler[Context, None]):
    """Strawberry's graphql-transport-ws handler, without the finished init timer:
    Strawberry keeps the cancelled task for the connection's life, and with it its
    CancelledError, traceback and frames, about 1.5 KB per idle wall display. It names
    each operation to the task that runs it, for answers written past the per-event
    execution steps (graph/sharing.py)."""

    async def run_operation(self, operation: Operation[Context, None]) -> None:
        # Set in the operation's own task, so for it alone. Through a list emptied when it
        # ends: every context copied from the task's meanwhile (a timer asyncpg sets for
        # its statement cache, a task) keeps the variable's value, and would otherwise
        # keep the operation, its handler and the whole connection alive with it.
        named = [operation]
        OPERATION.set(named)
        try:
            await super().run_operation(operation)
        finally:
            named.clear()

    async def handle_connection_init(self, message: ConnectionInitMessage) -> None:
        timer = self.connection_init_timeout_task
        await super().handle_connection_init(message)
        if timer is not None:
            timer.add_done_callback(self._forget_timer)

    def _forget_timer(self, task: "asyncio.Task[None]") -> None:
        if self.connection_init_timeout_task is task:
            self.connection_init_timeout_task = None


class PressroomGraphQL(GraphQL[Context, None]):
    graphql_transport_ws_handler_class = TransportWSHandler

    def __init__(
        self,
        services: Services,
        live: LiveConnections,
        keep_alive_seconds: float,
        connection_init_timeout_seconds: float,
    ) -> None:
        super().__init__(
            schema,
            graphql_ide=None,
            # Legacy graphql-ws clients get "ka" keep-alives; both protocols also get
            # websocket pings from uvicorn, so dead wall displays are noticed.
            keep_alive=True,
            keep_alive_interval=keep_alive_seconds,
            connection_init_wait_timeout=timedelta(seconds=connection_init_timeout_seconds),
            max_subscriptions_per_connection=MAX_SUBSCRIPTIONS_PER_CONNECTION,
            # Browser pages from the server's own origin, and these (Strawberry refuses the
            # rest: cross-site websocket hijacking).
            allowed_origins=services.exposure.websocket_origins,
        )
        self.services = services
        self.live = live
        self.messages = SharedMessages()

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> Context:
        if isinstance(request, WebSocket):
            # Authenticated from the connection_init payload, in on_ws_connect.
            return Context(self.services, None, websocket=request)
        token = bearer(request.headers.get("authorization"))
        context = Context(self.services, await load_viewer(self.services, token), over_http=True)
        context.token = token
        asked = request.headers.get("x-request-id", "")
        if REQUEST_ID.fullmatch(asked):
            context.request_id = asked
        if isinstance(response, Response):
            response.headers["x-request-id"] = context.request_id
            context.response = response
        if request.client is not None:
            context.client = request.client.host
        return context

    async def on_ws_connect(self, context: Context) -> UnsetType | dict[str, object] | None:
        authorization = init_authorization(context.connection_params)
        if authorization is None:
            raise ConnectionRejectionError(
                {"message": "Send 'authorization': 'Bearer <token>' in connection_init."}
            )
        context.token = init_token(authorization)
        viewer = await load_viewer(self.services, context.token)
        if viewer is None:
            raise ConnectionRejectionError({"message": STALE_TOKEN})
        context.viewer = viewer
        if context.websocket is not None:
            self.live.add(viewer, context.websocket)
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        try:
            response = await self.run(Request(scope=scope, receive=receive))
        except HTTPException as error:
            # Malformed requests get the same JSON error shape as every other failure.
            response = error_response(error.reason, error.status_code)
        except Exception as error:
            # Authentication reads the database before GraphQL runs.
            if not unavailable(error):
                raise
            self.services.outage.failed()
            response = unavailable_response()
        # Answers are the caller's own data: no cache keeps them, no browser guesses their type.
        response.headers["cache-control"] = "no-store"
        response.headers["x-content-type-options"] = "nosniff"
        await response(scope, receive, send)

    def encode_json(self, data: object) -> str | bytes:
        self.services.message_passed()
        shared = self.messages.encode(data)
        return shared if shared is not None else dumps(data)

    def decode_json(self, data: str | bytes) -> object:
        try:
            return super().decode_json(data)
        except RecursionError:
            raise HTTPException(400, "Request body is nested too deeply.") from None
        except UnicodeDecodeError:
            raise HTTPException(400, "Request body is not valid UTF-8.") from None

    async def process_result(
        self, request: Request | WebSocket, result: ExecutionResult
    ) -> GraphQLHTTPResponse:
        data: GraphQLHTTPResponse = {"data": result.data}
        if result.errors:
            errors = [_format(e) for e in result.errors]
            if not self.services.exposure.suggestions:
                for error in errors:
                    error["message"] = SUGGESTION.sub("", error["message"])
            data["errors"] = cast(list[object], errors)
        return data


def _format(error: GraphQLError) -> dict[str, Any]:
    formatted: dict[str, Any] = dict(error.formatted)
    extensions = formatted.setdefault("extensions", {})
    # Errors that never reached a resolver are about the request itself.
    extensions.setdefault("code", TopLevelCode.BAD_REQUEST.value)
    return formatted
