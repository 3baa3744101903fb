"""One GraphQL execution per event for every subscriber that would get the same answer.

A live event reaches every subscriber of its channel, and a hundred wall displays of one
department ask the same thing. Subscribers whose operation (document, operation name,
variables), cursor and permission scope (`Viewer.scope`) are equal get equal results, so
the event is executed once, with the first subscriber's context, and the result object is
handed to the others, who need no executor of their own for it; graph/view.py then
serializes it once as well. The results live on the event's `Delivered` (one per event
and channel), so they go when every subscriber has taken the event. Replayed events are
read per subscriber and so executed per subscriber.

A graphql-transport-ws subscriber whose answer another subscriber's execution made,
without errors, goes further (`Direct`): its subscription writes the `next` message
itself, and the event never climbs through graphql-core's and Strawberry's per-event
steps (map the event, build an executor, wrap the result, run the stream-result hooks),
which did nothing for it but wrap the same result: a fifth to a quarter of the server's
CPU per delivered message in the bench. The message is the one those steps would have
sent.
"""

import asyncio
import json
from collections.abc import Awaitable, Hashable
from typing import Any, TypeVar

from graphql import ExecutionResult, OperationDefinitionNode
from graphql.pyutils import AwaitableOrValue
from strawberry.dataloader import DataLoader
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import Operation
from strawberry.subscriptions.protocols.graphql_transport_ws.types import NextMessage

from db.fanout import Delivered
from db.reads import Related
from graph.context import Context, Info
from graph.engine.executor import Executor
from graph.engine.jsontext import dumps
from graph.loaders import Loaders

_UNSHARED = object()
R = TypeVar("R")


def operation_key(operation: OperationDefinitionNode, variables: dict[str, Any]) -> Hashable:
    """The operation's text, name and coerced variables; `_UNSHARED` if the text is
    unknown."""
    location = operation.loc
    if location is None:
        return _UNSHARED
    text = json.dumps(variables, sort_keys=True, default=repr)
    name = operation.name.value if operation.name else None
    return (location.source.body, name, text)


class SharingExecutor(Executor):
    """The executor (graph/engine/executor.py), sharing per-event executions of subscriptions."""

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
        self.context_value.services.metrics.results_shared.inc()
        # Another subscriber's execution made this answer: no executor (a copy of this one)
        # of its own. graphql-core only asks the per-event executor to execute_operation.
        return Served(found)  # type: ignore[return-value]

    def _key_of_operation(self) -> Hashable:
        return operation_key(self.operation, self.variable_values.coerced)

    def _key_of(self, event: Any) -> Hashable | None:
        """What every subscriber with the same answer to this live event shares; None for a
        replayed event."""
        if not isinstance(getattr(event, "delivered", None), Delivered):
            return None
        return result_key(self._operation_key, self.context_value, type(event), event.cursor)

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
        self.context_value.services.metrics.results_executed.inc()
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


def result_key(operation: Hashable, context: Context, root: type, cursor: str) -> Hashable | None:
    """What every subscriber of `operation` with the same answer to the live event at
    `cursor` (as a `root` object) shares: None for an anonymous viewer or an operation
    whose text is unknown."""
    viewer = context.viewer
    if viewer is None or operation is _UNSHARED:
        return None
    return (operation, root, cursor, viewer.scope)


class LiveOperation:
    """The root value of a graphql-transport-ws operation (view.py's handler gives each
    its own): its subscription finds the operation it runs as in `info.root_value`."""

    __slots__ = ("operation",)

    def __init__(self, operation: "Operation[Any, Any]") -> None:
        self.operation = operation


class Direct:
    """A live subscription's way past the per-event execution steps (see the module's
    docstring), for one graphql-transport-ws operation."""

    __slots__ = ("context", "key", "operation")

    def __init__(self, operation: "Operation[Any, Any]", context: Context, key: Hashable) -> None:
        self.operation = operation
        self.context = context
        self.key = key

    @classmethod
    def of(cls, info: Info) -> "Direct | None":
        """For the subscription `info` resolves, if it runs as a graphql-transport-ws
        operation (`LiveOperation`)."""
        root = info.root_value
        if not isinstance(root, LiveOperation):
            return None
        return cls(
            root.operation, info.context, operation_key(info.operation, info.variable_values)
        )

    async def wrote(self, delivered: Delivered, root: type, cursor: str) -> bool:
        """Whether the answer to `delivered` (as a `root` object at `cursor`) was another
        subscriber's, without errors, and is now written to this one's socket. False
        leaves the event to the execution steps, which then find the same answer (or
        make it, for the first of the subscribers sharing it)."""
        key = result_key(self.key, self.context, root, cursor)
        found = delivered.results.get(key) if key is not None else None
        if isinstance(found, asyncio.Future):
            # Waited on without taking its outcome: a failed execution is the steps' to
            # report, and only this task's own cancellation cancels this wait.
            if not found.done():
                await asyncio.wait((found,))
            failed = found.cancelled() or found.exception() is not None
            found = None if failed else found.result()
        if not isinstance(found, ExecutionResult) or found.errors or found.data is None:
            return False
        self.context.services.metrics.results_shared.inc()
        message: NextMessage = {
            "id": self.operation.id,
            "type": "next",
            "payload": {"data": found.data},
        }
        await self.operation.send_operation_message(message)
        return True


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
    _prime(loaders.task, related.tasks, task_id)
    _prime(loaders.work_order, related.work_orders, event.work_order_id)
    _prime(loaders.department, related.departments, event.department_id)
    _prime(loaders.user, related.users, picker)
    _prime(loaders.user, related.users, task.picked_up_by if task is not None else None)
    _prime(loaders.customer, related.customers, order.customer_id if order is not None else None)


def _prime(loader: DataLoader[int, R | None], rows: dict[int, R], key: int | None) -> None:
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
