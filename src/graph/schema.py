"""The Strawberry schema and its extensions (caches, limits, error masking, request logs)."""

import json
import logging
import time
from collections.abc import Iterator
from typing import Any

import strawberry
from graphql import GraphQLError
from prometheus_client import Counter, Histogram
from strawberry.extensions import (
    MaskErrors,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
    SchemaExtension,
    ValidationCache,
)
from strawberry.types.graphql import OperationType

from graph.errors import TopLevelCode, bad_request, should_mask
from graph.mutations import Mutation
from graph.queries import Query
from graph.subscriptions import Subscription
from graph.types.ledger import LedgerEntry
from graph.types.nodes import Customer, Department, DepartmentTask, User, WorkOrder

log = logging.getLogger("pressroom.request")

OPERATIONS = Counter(
    "pressroom_graphql_operations_total",
    "GraphQL operations by name and outcome.",
    ["operation", "outcome"],
)
DURATION = Histogram(
    "pressroom_graphql_operation_seconds", "GraphQL operation duration.", ["operation"]
)


class MaskUnexpectedErrors(MaskErrors):
    """Strawberry's masking, plus the `INTERNAL_SERVER_ERROR` code clients can switch on."""

    def anonymise_error(self, error: GraphQLError) -> GraphQLError:
        original = error.original_error
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
        elapsed = time.perf_counter() - started
        ctx = self.execution_context
        name = ctx.operation_name or "anonymous"
        errors = ctx.result.errors if ctx.result else None
        outcome = "error" if errors else "ok"
        OPERATIONS.labels(name, outcome).inc()
        DURATION.labels(name).observe(elapsed)
        log.info(
            json.dumps(
                {
                    "event": "graphql",
                    "operation": name,
                    "type": ctx.operation_type.value if ctx.operation_type else None,
                    "ms": round(elapsed * 1000, 2),
                    "outcome": outcome,
                }
            )
        )


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


DEPTH_LIMIT = QueryDepthLimiter(max_depth=10)
ALIAS_LIMIT = MaxAliasesLimiter(max_alias_count=30)


class PressroomSchema(strawberry.Schema):
    def process_errors(self, errors: list[GraphQLError], execution_context: Any = None) -> None:
        """Expected errors (user input, permissions) are answers, not server faults; the
        unexpected ones are logged with their stack trace where they are masked."""


schema = PressroomSchema(
    query=Query,
    mutation=Mutation,
    subscription=Subscription,
    types=[WorkOrder, DepartmentTask, Department, User, Customer, LedgerEntry],
    extensions=[
        # Factories: a fresh extension per request (the caches themselves are shared).
        RequestLog,
        SubscriptionsOverWebsockets,
        lambda: ParserCache(maxsize=1024),
        lambda: ValidationCache(maxsize=1024),
        # One shared instance each: the validation cache keys on the rule classes,
        # which these limiters create per instance.
        lambda: DEPTH_LIMIT,
        lambda: MaxTokensLimiter(max_token_count=5000),
        lambda: ALIAS_LIMIT,
        lambda: MaskUnexpectedErrors(should_mask_error=should_mask),
    ],
)
