"""The GraphQL view: context per request, websocket authentication, error shapes, and
the media type and status code of each answer (graph/media_types.py)."""

import re
from datetime import timedelta
from typing import Any, cast

import strawberry
from cross_web import AsyncHTTPRequestAdapter, HTTPException
from graphql import GraphQLError
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.http import GraphQLHTTPResponse, GraphQLRequestData
from strawberry.http.base import BaseRequestProtocol
from strawberry.schema.exceptions import InvalidOperationTypeError
from strawberry.types import ExecutionResult, SubscriptionExecutionResult
from strawberry.types.unset import UnsetType

from api.admission import RETRY_AFTER_SECONDS as ADMISSION_RETRY_AFTER
from api.admission import stretch
from api.auth import bearer, init_authorization, init_token, load_viewer
from api.errors import (
    STALE_TOKEN,
    TopLevelCode,
    busy_response,
    error_response,
    unavailable_response,
)
from api.viewer import Viewer
from db.engine import unavailable
from graph.context import Context
from graph.live import LiveConnections
from graph.media_types import GRAPHQL_RESPONSE, JSON, accepts, answer_type
from graph.services import SchemaServices
from graph.websockets import TrustedTransportWSHandler, TrustedWSHandler

MAX_SUBSCRIPTIONS_PER_CONNECTION = 20
# graphql-core's hints at field and type names the caller may not know of.
SUGGESTION = re.compile(r" Did you mean .*\?$")
# A caller's own request id is kept (for tracing across services) when it is this tame.
REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
NOT_ACCEPTABLE = (
    f"This endpoint answers in {GRAPHQL_RESPONSE} or {JSON}; the request's Accept header "
    "allows neither."
)
# The GraphQL over HTTP specification: a mutation sent with GET is 405, never run.
MUTATION_OVER_GET = "A mutation must be sent with POST; GET carries queries only."
# One operation per request: Strawberry's batching stays off (docs/api.md says why).
NO_BATCHING = (
    "Batching is not supported: send each operation in a request of its own, as one JSON "
    "object rather than an array."
)


class BatchRefused(HTTPException):
    """An array body: not a GraphQL over HTTP request, so answered in `application/json`
    when the client accepts it, whose 400 every Apollo BatchHttpLink reports as a
    ServerError with its status (with the new type, Apollo Client 4 reads the body and
    finds one answer for several operations)."""

    def __init__(self) -> None:
        super().__init__(400, NO_BATCHING)


class PressroomGraphQL(GraphQL[Context, None]):
    """Strawberry's view as the API uses it: the context of each request, authentication
    of websockets, error shapes and headers. The engine room's view (graph/engine/view.py)
    extends it."""

    # Each subscription's document is admitted (graph/websockets.py) before it runs.
    graphql_transport_ws_handler_class = TrustedTransportWSHandler
    graphql_ws_handler_class = TrustedWSHandler

    def __init__(
        self,
        schema: strawberry.Schema,
        services: SchemaServices,
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
            # Proof files (uploadProof), per the GraphQL multipart request specification.
            # A cross-site form could post one, but never with a bearer token: credentials
            # travel only in the Authorization header, which no form sets.
            multipart_uploads_enabled=True,
        )
        self.services = services
        self.live = live

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> Context:
        if isinstance(request, WebSocket):
            # Authenticated from the connection_init payload, in on_ws_connect.
            return Context(self.services, None, websocket=request)
        # Admitted by __call__, which found who is asking.
        token = request.state.token
        context = Context(self.services, request.state.viewer, over_http=True)
        context.token = token
        context.user_agent = request.headers.get("user-agent")
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
        request = Request(scope=scope, receive=receive)
        accept = ",".join(request.headers.getlist("accept"))
        media_type = answer_type(accept)
        if media_type is None:
            await self._send(error_response(NOT_ACCEPTABLE, 406), scope, receive, send)
            return
        # For get_sub_response, which runs inside Strawberry's run() and sees the request.
        request.state.media_type = media_type
        try:
            response = await self._admitted(request)
        except HTTPException as error:
            # Malformed requests get the same JSON error shape as every other failure.
            response = error_response(error.reason, error.status_code)
            if error.status_code == 405:
                # A mutation by GET; or OPTIONS, which reaches the view when no CORS
                # origin is configured to answer it (routes/app.py).
                response.headers["allow"] = "POST" if request.method == "GET" else "GET, POST"
            if isinstance(error, BatchRefused) and accepts(accept, JSON):
                media_type = JSON
        except Exception as error:
            # Authentication reads the database before GraphQL runs.
            if not unavailable(error):
                raise
            self.services.outage.failed()
            response = unavailable_response()
        if media_type == GRAPHQL_RESPONSE:
            response.headers["content-type"] = f"{GRAPHQL_RESPONSE}; charset=utf-8"
        await self._send(response, scope, receive, send)

    async def _admitted(self, request: Request) -> Response:
        """The request run once who is asking is known: a valid token's caller at once,
        anyone else within the anonymous share, its work on the loop taking turns after the
        floor's requests in flight (api/admission.py). Looking a token up is one indexed
        read (and cached once found), so a token the process has not seen yet is never
        refused for the anonymous work going on."""
        token = bearer(request.headers.get("authorization"))
        request.state.token = token
        request.state.viewer = await load_viewer(self.services, token)
        admission = self.services.admission
        viewer = request.state.viewer
        if viewer is not None:
            with admission.signed_in():
                response = await self.signed_in(request, viewer)
            # Where a token's window applies, every answer says what is left of it.
            window = self.services.cost_windows.window(viewer.token_id)
            response.headers["x-ratelimit-limit"] = str(window.limit)
            response.headers["x-ratelimit-remaining"] = str(window.remaining)
            response.headers["x-ratelimit-reset"] = str(window.reset)
            return response
        if not admission.enter():
            return busy_response(ADMISSION_RETRY_AFTER)
        with admission.admitted():
            return await self.run(request)

    async def signed_in(self, request: Request, viewer: Viewer) -> Response:
        """A signed-in caller's request, run (the engine room's view answers some itself)."""
        return await self.run(request)

    async def _send(self, response: Response, scope: Scope, receive: Receive, send: Send) -> None:
        # Answers are the caller's own data: no cache keeps them, no browser guesses their type.
        response.headers["cache-control"] = "no-store"
        response.headers["x-content-type-options"] = "nosniff"
        response.headers["vary"] = "Accept"
        await response(scope, receive, send)

    def should_render_graphql_ide(self, request: BaseRequestProtocol) -> bool:
        # A GET that names a persisted document has no `query`, and is a request all the same.
        return super().should_render_graphql_ide(request) and "extensions" not in (
            request.query_params
        )

    async def execute_operation(
        self,
        request: Request,
        request_adapter: AsyncHTTPRequestAdapter,
        request_data: GraphQLRequestData | list[GraphQLRequestData],
        context: Context,
        root_value: None,
        sub_response: Response,
    ) -> ExecutionResult | list[ExecutionResult] | SubscriptionExecutionResult:
        # Batches are refused while parsing: the schema does not enable them.
        assert isinstance(request_data, GraphQLRequestData)
        documents = self.services.documents
        admitted = documents.admit(
            request_data.query, request_data.extensions, context.viewer, context.token is not None
        )
        if isinstance(admitted, GraphQLError):
            return ExecutionResult(data=None, errors=[admitted])
        request_data.query = admitted.query
        result = await super().execute_operation(
            request, request_adapter, request_data, context, root_value, sub_response
        )
        documents.ran(admitted, result)
        return result

    async def get_sub_response(self, request: Request | WebSocket) -> Response:
        sub_response = await super().get_sub_response(request)
        sub_response.media_type = request.state.media_type
        return sub_response

    def create_response(
        self,
        response_data: GraphQLHTTPResponse | list[GraphQLHTTPResponse],
        sub_response: Response,
    ) -> Response:
        if sub_response.media_type == GRAPHQL_RESPONSE and isinstance(response_data, dict):
            response_data = _graphql_response(response_data, sub_response)
        return super().create_response(response_data, sub_response)

    async def parse_http_body(
        self, request: AsyncHTTPRequestAdapter
    ) -> GraphQLRequestData | list[GraphQLRequestData]:
        if request.method == "POST" and "json" in (request.content_type or ""):
            # Read in full first: decoding is a stretch (api/admission.py), and a slow
            # sender must not hold one.
            await request.get_body()
            async with stretch():
                return await super().parse_http_body(request)
        return await super().parse_http_body(request)

    async def execute_single(
        self,
        request: Request,
        request_adapter: AsyncHTTPRequestAdapter,
        sub_response: Response,
        context: Context,
        root_value: None,
        request_data: GraphQLRequestData,
    ) -> ExecutionResult:
        try:
            return await super().execute_single(
                request, request_adapter, sub_response, context, root_value, request_data
            )
        except HTTPException as error:
            # Over GET only a mutation is of the wrong type (a subscription is refused
            # while it executes: graph/schema.py).
            if isinstance(error.__cause__, InvalidOperationTypeError):
                raise HTTPException(405, MUTATION_OVER_GET) from error
            raise

    def parse_json(self, data: str | bytes) -> object:
        parsed = super().parse_json(data)
        if isinstance(parsed, list):
            raise BatchRefused
        return parsed

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
        if result.extensions:
            data["extensions"] = result.extensions
        return data


def _graphql_response(
    response_data: GraphQLHTTPResponse, sub_response: Response
) -> GraphQLHTTPResponse:
    """The body and status of an application/graphql-response+json answer. A request that
    never ran (its errors are the request's own, none at a path: syntax, validation,
    variables, the server's limits) has no `data` and is 400. One that ran is 200 once it
    has data, whatever a field asked for (429, 503): the specification wants a 2xx there;
    with `data: null` a field's status stands."""
    errors = cast(list[dict[str, Any]], response_data.get("errors") or [])
    if response_data.get("data") is None and errors and not any("path" in e for e in errors):
        if (sub_response.status_code or 0) < 400:
            sub_response.status_code = 400
        never_ran = response_data.copy()
        never_ran.pop("data", None)
        return never_ran
    if response_data.get("data") is not None:
        sub_response.status_code = 200
    return response_data


def _format(error: GraphQLError) -> dict[str, Any]:
    formatted: dict[str, Any] = dict(error.formatted)
    extensions = formatted.setdefault("extensions", {})
    # Errors that never reached a resolver are about the request itself.
    extensions.setdefault("code", TopLevelCode.BAD_REQUEST.value)
    return formatted
