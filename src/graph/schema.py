"""The Strawberry schema and its extensions (caches, limits, error masking, request logs)."""

import logging
import time
from collections.abc import AsyncIterator, Iterator
from datetime import date, datetime
from decimal import Decimal
from typing import Any, TypeVar

import strawberry
from graphql import GraphQLError, OperationDefinitionNode
from starlette.datastructures import UploadFile
from strawberry.extensions import MaskErrors, SchemaExtension
from strawberry.types.graphql import OperationType

from api.auth import load_viewer
from api.errors import RETRY_AFTER_SECONDS, TopLevelCode, bad_request, service_unavailable
from api.metrics import root_field
from db.engine import unavailable
from graph.context import Context
from graph.conventions import describe_conventions
from graph.cost import QueryCost
from graph.documents import AcceptedDocuments, AnonymousTurns, asks_for_the_schema
from graph.errors import should_mask
from graph.mutations import Mutation
from graph.mutations.upload_proof import UPLOAD
from graph.permissions import say_who_may
from graph.queries import Query
from graph.read_cache import CachedReads
from graph.subscriptions import Subscription
from graph.types.customers import Customer
from graph.types.departments import Department
from graph.types.ledger import LedgerEntry
from graph.types.money import PLAIN_DECIMAL
from graph.types.people import User
from graph.types.scalars import DATE, DATE_TIME
from graph.types.tasks import DepartmentTask
from graph.types.work_orders import WorkOrder

log = logging.getLogger("pressroom.request")


class MaskUnexpectedErrors(MaskErrors):
    """Strawberry's masking, plus the `INTERNAL_SERVER_ERROR` code clients can switch on."""

    def anonymise_error(self, error: GraphQLError) -> GraphQLError:
        original = error.original_error
        context = self.execution_context.context
        if unavailable(original):
            # Not a bug: answered as 503, logged once per outage, not once per request.
            if context is not None:
                context.services.outage.failed()
                if context.response is not None:
                    context.response.status_code = 503
                    context.response.headers["retry-after"] = str(RETRY_AFTER_SECONDS)
            unavailable_error = service_unavailable()
            unavailable_error.path = error.path
            return unavailable_error
        log.error(
            "unexpected error at %s",
            ".".join(map(str, error.path or [])),
            exc_info=(type(original), original, original.__traceback__) if original else None,
        )
        masked = super().anonymise_error(error)
        masked.extensions = {"code": TopLevelCode.INTERNAL_SERVER_ERROR.value}
        return masked


class RequestLog(SchemaExtension):
    """One structured log line and one metrics sample per operation."""

    def on_operation(self) -> Iterator[None]:
        started = time.perf_counter()
        yield
        ctx = self.execution_context
        result = ctx.result
        # No document when it did not parse (Strawberry answers that without raising).
        kind = ctx.operation_type.value if ctx.graphql_document is not None else "invalid"
        record_operation(
            ctx.context,
            ctx.operation_name,
            root_field(ctx.graphql_document, ctx.operation_name, ROOT_FIELDS),
            kind,
            result.data if result else None,
            bool(result.errors) if result else False,
            time.perf_counter() - started,
        )


def record_operation(
    context: Context | None,
    operation: str | None,
    field: str,
    kind: str,
    data: dict[str, Any] | None,
    errors: bool,
    elapsed: float,
) -> None:
    """The log line and metrics of one operation, whichever way it ran (the engine room's
    compiled documents too)."""
    codes = _user_error_codes(data)
    outcome = "error" if errors else "user_error" if codes else "ok"
    metrics = context.services.metrics if context is not None else None
    if metrics is not None:
        metrics.operations.labels(field, kind, outcome).inc()
        metrics.duration.labels(kind).observe(elapsed)
        for code in codes:
            metrics.user_errors.labels(field, code).inc()
    viewer = context.viewer if context is not None else None
    log.info(
        "graphql",
        extra={
            "request_id": context.request_id if context is not None else None,
            "operation": operation,
            "field": field,
            "type": kind,
            "user_id": viewer.user_id if viewer is not None else None,
            "outcome": outcome,
            "user_errors": codes,
            "ms": round(elapsed * 1000, 2),
        },
    )


def _user_error_codes(data: dict[str, Any] | None) -> list[str]:
    """The userErrors codes in a result's payloads (the ones the client selected)."""
    codes: list[str] = []
    for value in (data or {}).values():
        if isinstance(value, dict):
            codes += [e["code"] for e in value.get("userErrors") or [] if "code" in e]
    return codes


class SubscriptionsOverWebsockets(SchemaExtension):
    """A subscription streams over a websocket; over plain HTTP it is a bad request."""

    def on_execute(self) -> Iterator[None]:
        ctx = self.execution_context
        if ctx.operation_type is OperationType.SUBSCRIPTION and getattr(
            ctx.context, "over_http", False
        ):
            raise bad_request(
                "Subscriptions need a websocket (graphql-transport-ws or graphql-ws) at /graphql."
            )
        yield


class ViewerOfNowOverWebsockets(SchemaExtension):
    """A websocket's caller was loaded when it connected. Every operation sent over it
    (queries and mutations as well as subscriptions) is checked against the caller as it
    is now: a membership change, a deactivation or a revocation since then counts, as it
    does over HTTP. From the process's cache unless an access change was handed out
    since it was read (api/auth.py), so usually no query."""

    async def on_execute(self) -> AsyncIterator[None]:
        context = self.execution_context.context
        if context is not None and context.websocket is not None:
            context.viewer = await load_viewer(context.services, context.token)
        yield


class OneOperation(SchemaExtension):
    """A document with several operations must name the one to run (the spec's rule;
    Strawberry would otherwise run the first)."""

    def on_execute(self) -> Iterator[None]:
        ctx = self.execution_context
        document = ctx.graphql_document
        # `operation_name` falls back to the first operation's name: ask what was sent.
        if ctx._provided_operation_name is None and document is not None:
            operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
            if len(operations) > 1:
                raise bad_request(
                    "Must provide operation name if query contains multiple operations."
                )
        yield


class Introspection(SchemaExtension):
    """Schema introspection only where the server allows it (not in production)."""

    def on_execute(self) -> Iterator[None]:
        ctx = self.execution_context
        context = ctx.context
        allowed = context is None or context.services.exposure.introspection
        document = ctx.graphql_document
        if not allowed and document is not None and asks_for_the_schema(ctx.query, document):
            raise bad_request("Introspection is turned off on this server.")
        yield


class PressroomSchema(strawberry.Schema):
    def process_errors(self, errors: list[GraphQLError], execution_context: Any = None) -> None:
        """Expected errors (user input, permissions) are answers, not server faults; the
        unexpected ones are logged with their stack trace where they are masked."""


S = TypeVar("S", bound=PressroomSchema)


def make_schema(
    kind: type[S], masking: type[MaskUnexpectedErrors] = MaskUnexpectedErrors, **options: Any
) -> S:
    """The API's schema: its types and its extensions, executed as `kind`, `masking` and
    `options` say (stock here; the engine room's own in graph/engine/schema.py)."""
    built = kind(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        types=[WorkOrder, DepartmentTask, Department, User, Customer, LedgerEntry],
        extensions=[
            # Factories: a fresh extension per request (the caches themselves are shared).
            AnonymousTurns,
            RequestLog,
            SubscriptionsOverWebsockets,
            ViewerOfNowOverWebsockets,
            OneOperation,
            Introspection,
            QueryCost,
            AcceptedDocuments,
            # Last to execute: the viewer (refreshed over websockets) is the key's.
            CachedReads,
            lambda: masking(should_mask_error=should_mask),
        ],
        scalar_overrides={
            Decimal: PLAIN_DECIMAL,
            datetime: DATE_TIME,
            date: DATE,
            UploadFile: UPLOAD,
        },
        **options,
    )
    describe_conventions(built._schema)
    say_who_may(built._schema)
    return built


# Strawberry's own execution: the schema's text, the metrics' root fields, and what
# PRESSROOM_PLAIN_EXECUTION serves.
schema = make_schema(PressroomSchema)


def _root_fields(kind: str) -> set[str]:
    root = getattr(schema._schema, f"{kind}_type")
    return set(root.fields) if root is not None else set()


# What operations are counted by in the metrics: a bounded set, known to the server.
ROOT_FIELDS = {kind: _root_fields(kind) for kind in ("query", "mutation", "subscription")}
