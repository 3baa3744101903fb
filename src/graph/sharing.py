"""One GraphQL execution per event for every subscriber that would get the same answer.

A live event reaches every subscriber of its channel, and a hundred wall displays of one
department ask the same thing. Subscribers whose operation (document, operation name,
variables), cursor and permission scope (`Viewer.scope`) are equal get equal results, so
the event is executed once, with the first subscriber's context, and the result object is
handed to the others, who need no executor of their own for it; graph/view.py then
serializes it once as well. The results live on the event's `Delivered` (one per event
and channel), so they go when every subscriber has taken the event. Replayed events are
read per subscriber and so executed per subscriber.
"""

import asyncio
import json
from collections.abc import Awaitable, Hashable
from typing import Any

from graphql import ExecutionResult
from graphql.pyutils import AwaitableOrValue

from db.fanout import Delivered
from db.reads import Related
from graph.executor import Executor
from graph.jsontext import dumps
from graph.loaders import Loaders

_UNSHARED = object()


class SharingExecutor(Executor):
    """The executor (graph/executor.py), sharing per-event executions of subscriptions."""

    __slots__ = ("_operation_key",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._operation_key: Hashable = _UNSHARED

    def build_per_event_executor(self, payload: Any) -> "SharingExecutor":
        if self._operation_key is _UNSHARED:
            self._operation_key = self._key_of_operation()
        key = self._key_of(payload)
        found = payload.delivered.results.get(key) if key is not None else None
        if found is None:
            return super().build_per_event_executor(payload)  # type: ignore[return-value]
        metrics = self.context_value.services.metrics
        if metrics is not None:
            metrics.results_shared.inc()
        # Another subscriber's execution made this answer: no executor (a copy of this one)
        # of its own. graphql-core only asks the per-event executor to execute_operation.
        return Served(found)  # type: ignore[return-value]

    def _key_of_operation(self) -> Hashable:
        """The operation's text, name and variables; `_UNSHARED` if the text is unknown."""
        location = self.operation.loc
        if location is None:
            return _UNSHARED
        variables = json.dumps(self.variable_values.coerced, sort_keys=True, default=repr)
        name = self.operation.name.value if self.operation.name else None
        return (location.source.body, name, variables)

    def _key_of(self, event: Any) -> Hashable | None:
        """What every subscriber with the same answer to this live event shares; None for a
        replayed event, an anonymous viewer or an operation whose text is unknown."""
        viewer = self.context_value.viewer
        if (
            not isinstance(getattr(event, "delivered", None), Delivered)
            or viewer is None
            or self._operation_key is _UNSHARED
        ):
            return None
        return (self._operation_key, type(event), event.cursor, viewer.scope)

    def execute_operation(self, serially: bool | None = None) -> AwaitableOrValue[Any]:
        event = self.root_value
        delivered = getattr(event, "delivered", None)
        if not isinstance(delivered, Delivered):
            return super().execute_operation(serially)
        prime(self.context_value.loaders, delivered)
        key = self._key_of(event)
        if key is None:
            return super().execute_operation(serially)
        # The first of the subscribers sharing this answer (build_per_event_executor).
        metrics = self.context_value.services.metrics
        if metrics is not None:
            metrics.results_executed.inc()
        result = super().execute_operation(serially)
        if not self.is_awaitable(result):
            delivered.results[key] = result
            return result
        # A task of its own: a subscriber that goes away mid-execution does not cancel it
        # for the others waiting on it.
        task = asyncio.ensure_future(_awaited(result))
        delivered.results[key] = task
        return _shared(task)


class Served:
    """Stands in for a subscriber's per-event executor when its answer is already made
    (a result, or the task of the execution that is making it)."""

    __slots__ = ("found",)

    def __init__(self, found: "ExecutionResult | asyncio.Future[ExecutionResult]") -> None:
        self.found = found

    def execute_operation(self, serially: bool | None = None) -> AwaitableOrValue[Any]:
        found = self.found
        if not isinstance(found, asyncio.Future):
            return found
        if found.done() and not found.cancelled() and found.exception() is None:
            return found.result()
        return _shared(found)


async def _awaited(result: Awaitable[ExecutionResult]) -> ExecutionResult:
    return await result


async def _shared(task: "asyncio.Future[ExecutionResult]") -> ExecutionResult:
    return await asyncio.shield(task)


def prime(loaders: Loaders, delivered: Delivered) -> None:
    """Serve the event's relations from the rows the feed read once for its batch, not
    from stale caches. Only this event's rows: the cost per execution stays constant
    whatever the size of the batch."""
    loaders.clear_all()
    related: Related | None = delivered.related
    if related is None:
        return
    event = delivered.event
    task_id = event.task.id if event.task is not None else None
    task = related.tasks.get(task_id) if task_id is not None else None
    order = related.work_orders.get(event.work_order_id or 0)
    picker = event.task.picked_up_by if event.task is not None else None
    for loader, rows, key in (
        (loaders.task, related.tasks, task_id),
        (loaders.work_order, related.work_orders, event.work_order_id),
        (loaders.department, related.departments, event.department_id),
        (loaders.user, related.users, picker),
        (loaders.user, related.users, task.picked_up_by if task is not None else None),
        (loaders.customer, related.customers, order.customer_id if order is not None else None),
    ):
        if key is not None and key in rows:
            loader.prime(key, rows[key])


class SharedMessages:
    """The JSON text of a shared result's data, made once for every socket it goes to;
    only the subscription id differs between their messages."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._texts: dict[int, tuple[object, str]] = {}

    def encode(self, message: object) -> str | None:
        """A `next` (or legacy `data`) message carrying only data; None for any other."""
        if not isinstance(message, dict) or message.keys() != {"id", "type", "payload"}:
            return None
        kind, payload = message["type"], message["payload"]
        if (
            kind not in ("next", "data")
            or not isinstance(payload, dict)
            or payload.keys() != {"data"}
        ):
            return None
        data = payload["data"]
        if data is None:
            return None
        # Keyed by identity, and the object is kept with its text so the id stays its own.
        found = self._texts.get(id(data))
        if found is not None and found[0] is data:
            text = found[1]
        else:
            text = dumps(data)
            if len(self._texts) >= self.size:
                del self._texts[next(iter(self._texts))]
            self._texts[id(data)] = (data, text)
        return f'{{"id":{dumps(message["id"])},"type":"{kind}","payload":{{"data":{text}}}}}'
