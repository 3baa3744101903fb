"""Prometheus metrics of one app, in a registry of its own (no process-global state).

Label values come from bounded sets only, so no client can grow /metrics: operations
are counted by their root field (a field of the schema's Query, Mutation or
Subscription type, `multiple` for several, `invalid` when the request did not parse or
validate), user errors by their `UserErrorCode`. Every sample carries a `replica` label
naming this process, so the replicas behind one balancer can be told apart and summed.
"""

from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from typing import Any

from graphql import DocumentNode, FieldNode, OperationDefinitionNode, get_operation_ast
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.metrics_core import Metric

from api.admission import AnonymousAdmission
from db import credentials
from db.feed import EventFeed

MULTIPLE = "multiple"
INVALID = "invalid"
# Garbage collector pauses: the target is none over 20 ms.
GC_PAUSE_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0)


class _Replica:
    """The registry's samples, each with this replica's label added."""

    def __init__(self, registry: CollectorRegistry, replica: str) -> None:
        self.registry = registry
        self.replica = replica

    def collect(self) -> Iterator[Metric]:
        for family in self.registry.collect():
            family.samples = [
                sample._replace(labels={**sample.labels, "replica": self.replica})
                for sample in family.samples
            ]
            yield family


class Metrics:
    def __init__(self, replica: str = "") -> None:
        self.registry = CollectorRegistry()
        self._labelled = _Replica(self.registry, replica)
        self.operations = Counter(
            "pressroom_graphql_operations",
            "GraphQL operations by root field, type and outcome "
            "(ok, user_error: a payload with userErrors, error: top-level errors).",
            ["field", "type", "outcome"],
            registry=self.registry,
        )
        self.user_errors = Counter(
            "pressroom_graphql_user_errors",
            "userErrors returned by mutations, by root field and code.",
            ["field", "code"],
            registry=self.registry,
        )
        self.duration = Histogram(
            "pressroom_graphql_operation_seconds",
            "GraphQL operation duration by type.",
            ["type"],
            registry=self.registry,
        )
        self.subscriptions = Counter(
            "pressroom_subscriptions_ended",
            "Subscriptions that ended, by kind of channel and how (closed, or an error code).",
            ["channel", "end"],
            registry=self.registry,
        )
        self.subscription_results = Counter(
            "pressroom_subscription_results",
            "Results of live events for subscribers: made by this subscriber's execution "
            "(executed), or shared from one with the same operation and scope (shared).",
            ["made"],
            registry=self.registry,
        )
        self.inbox_refusals = Counter(
            "pressroom_payment_inbox_refusals",
            "Requests to the payment inboxes refused before anything was read or kept, by "
            "why: unverified (no signature, a wrong or stale one, or a name no inbox "
            "answers to) or rate_limited (past its address's limits).",
            ["refusal"],
            registry=self.registry,
        )
        # Counted once per subscriber and event: each label's child is looked up once.
        self.results_shared = self.subscription_results.labels("shared")
        self.results_executed = self.subscription_results.labels("executed")
        gc_pause = Histogram(
            "pressroom_gc_pause_seconds",
            "Pauses of the cyclic garbage collector (the whole process), by generation.",
            ["generation"],
            buckets=GC_PAUSE_BUCKETS,
            registry=self.registry,
        )
        # One child per generation made now: making one inside a collection would take
        # the histogram's lock, which that collection may have interrupted.
        self._gc_pauses = [gc_pause.labels(str(generation)) for generation in range(3)]
        self._gc_pause_max = Gauge(
            "pressroom_gc_pause_max_seconds",
            "The longest garbage collector pause since the server started serving.",
            registry=self.registry,
        )
        self._gc_pause_max_cpu = Gauge(
            "pressroom_gc_pause_max_cpu_seconds",
            "The CPU time of the longest pause: the collector's own work; for the rest of"
            " the pause the process waited for a core.",
            registry=self.registry,
        )
        self._gc_work_max = Gauge(
            "pressroom_gc_work_max_seconds",
            "The most CPU time one garbage collector pause took: the collector's own work,"
            " whatever else kept the machine's cores busy.",
            registry=self.registry,
        )
        self._longest_gc_pause = 0.0
        self._longest_gc_work = 0.0
        # process_resident_memory_bytes (the memory this process holds, with a ceiling in
        # docs/operations.md), its CPU seconds, open files and start time.
        ProcessCollector(registry=self.registry)

    def watch(self, feed: EventFeed | None, admission: AnonymousAdmission) -> None:
        """Gauges read from the process's event feed, its admission control and its
        password workers (what the schema adds: graph/persisted.py, graph/live.py)."""
        self._gauge("pressroom_event_listener_up", "1 while the LISTEN connection is up.",
                    feed, lambda f: f.listening)  # fmt: skip
        self._gauge("pressroom_event_subscribers", "Live subscriptions in this process.",
                    feed, lambda f: f.fanout.subscriber_count())  # fmt: skip
        self._gauge(
            "pressroom_event_held_back_seconds",
            "Age of the oldest open writing transaction, which delays event delivery.",
            feed,
            lambda f: f.stats.held_back_seconds,
        )
        self._gauge(
            "pressroom_event_delivery_lag_seconds",
            "Commit-to-read delay of the newest event delivered.",
            feed,
            lambda f: f.stats.delivery_lag_seconds,
        )
        self._gauge("pressroom_events_delivered", "Events read from the log by this process.",
                    feed, lambda f: f.stats.delivered)  # fmt: skip
        self._gauge(
            "pressroom_event_read_errors",
            "Reads of the event log that failed and were tried again from the same position.",
            feed,
            lambda f: f.stats.read_errors,
        )
        self._gauge(
            "pressroom_event_fanout_failures",
            "Subscribers dropped (told to resume) because handing them an event failed.",
            feed,
            lambda f: f.fanout.failures,
        )
        self.function("pressroom_anonymous_in_flight",
                       "Anonymous requests (no valid token) being answered now.",
                       lambda: admission.in_flight)  # fmt: skip
        self.function("pressroom_anonymous_refused",
                       "Anonymous requests refused at once (503) past their share.",
                       lambda: admission.refused)  # fmt: skip
        self.function("pressroom_password_hashes",
                       "Passwords hashed or checked by this process's argon2 workers.",
                       lambda: credentials.hashing.counts.done)  # fmt: skip
        self.function("pressroom_password_hashes_refused",
                       "Password checks refused at once (429): every worker busy, the queue full.",
                       lambda: credentials.hashing.counts.refused)  # fmt: skip
        self.function("pressroom_password_hashes_queued",
                       "Password checks waiting for an argon2 worker now.",
                       lambda: credentials.hashing.queued())  # fmt: skip

    def _gauge(
        self, name: str, doc: str, feed: EventFeed | None, read: Callable[[EventFeed], Any]
    ) -> None:
        """A gauge read off the event feed (0 without one)."""
        self.function(name, doc, lambda: float(read(feed)) if feed is not None else 0.0)

    def function(self, name: str, doc: str, read: Callable[[], float]) -> None:
        """A gauge that reads its value when /metrics is asked."""
        Gauge(name, doc, registry=self.registry).set_function(read)

    def outcomes(
        self,
        name: str,
        doc: str,
        counts: Mapping[str, int],
        outcomes: Iterable[str],
        label: str = "outcome",
    ) -> None:
        """A gauge per outcome, labelled `label`, that reads `counts[outcome]` when
        /metrics is asked."""
        gauge = Gauge(name, doc, [label], registry=self.registry)
        for outcome in outcomes:
            gauge.labels(outcome).set_function(partial(counts.__getitem__, outcome))

    def gc_paused(self, generation: int, seconds: float, cpu_seconds: float) -> None:
        """A collection of `generation` stopped the process for `seconds`, `cpu_seconds`
        of them working (called from a gc.callbacks hook, so it only updates values made
        beforehand)."""
        self._gc_pauses[generation].observe(seconds)
        if seconds > self._longest_gc_pause:
            self._longest_gc_pause = seconds
            self._gc_pause_max.set(seconds)
            self._gc_pause_max_cpu.set(cpu_seconds)
        if cpu_seconds > self._longest_gc_work:
            self._longest_gc_work = cpu_seconds
            self._gc_work_max.set(cpu_seconds)

    def exposition(self) -> bytes:
        return generate_latest(self._labelled)


def root_field(
    document: DocumentNode | None, operation_name: str | None, fields: dict[str, set[str]]
) -> str:
    """The label of an operation: its one root field, `multiple` or `invalid`.

    `fields` maps each operation type (query, mutation, subscription) to its root fields."""
    operation: OperationDefinitionNode | None = (
        get_operation_ast(document, operation_name) if document is not None else None
    )
    if operation is None:
        return INVALID
    names = {s.name.value for s in operation.selection_set.selections if isinstance(s, FieldNode)}
    if len(names) != 1:
        return MULTIPLE if names else INVALID
    name = names.pop()
    known = fields.get(operation.operation.value, set()) | {"__typename", "__schema", "__type"}
    return name if name in known else INVALID
