"""What a compiled trusted document's resolvers are given as `info` holds its context alone
(src/graph/engine/compiled.py, compiled_payload.py): every resolver of COMPILED_FIELDS,
every resolver a compiled payload of the manifest calls, and each function of the API that
they hand `info` to, read nothing else of it. A resolver that read more (`info.path`,
`info.selected_fields`) would fail at run time and be handed back to the stock execution,
every time."""

import inspect
import re

import pytest

from graph.engine.compiled import COMPILED_FIELDS, CompiledDocuments
from graph.engine.compiled_payload import Later, _each
from graph.engine.schema import tuned_schema
from graph.mutations import base, tasks
from graph.permissions import Declared, passes, viewer_of
from graph.types.people import user_or_none
from graph.types.tasks import DepartmentTask
from pressroom import policies
from pressroom.settings import Settings

# `info.<attribute>`, and `info` itself handed to a call as one of its arguments.
READ = re.compile(r"\binfo\.(\w+)")
HANDED = re.compile(r"(?<!def )\b([\w.]+)\((?:[^()]*,\s*)?info\s*[,)]")
# The functions `info` reaches from those resolvers, by the name they are called by:
# whatever each reads of it is checked below too.
REACHED = {
    "_move": tasks._move,
    "mutate": base.mutate,
    "viewer_of": viewer_of,
    "passes": passes,
    "rule.has_permission": Declared.has_permission,
    "self._order_then": DepartmentTask._order_then,
    "user_or_none": user_or_none,
}


def reads_of(function: object) -> tuple[set[str], set[str]]:
    source = inspect.getsource(function)  # type: ignore[arg-type]
    return set(READ.findall(source)), set(HANDED.findall(source))


def test_compiled_resolvers_read_only_the_context_of_info() -> None:
    core = tuned_schema()._schema
    mutations = core.mutation_type
    assert mutations is not None
    compiled = CompiledDocuments(core, policies.documents(Settings()))
    payloads = {f for move in compiled.moves.values() for f in move.resolvers}
    seen: dict[str, set[str]] = {}
    waiting = [
        mutations.fields[name].extensions["strawberry-definition"].base_resolver.wrapped_func
        for name in sorted(COMPILED_FIELDS)
    ] + sorted(payloads, key=lambda f: f.__qualname__)
    done: set[object] = set()
    while waiting:
        function = waiting.pop()
        if function in done:
            continue
        done.add(function)
        read, handed = reads_of(function)
        seen[function.__qualname__] = read
        for name in handed:
            assert name in REACHED, f"{function.__name__} hands info to {name}: check what it reads"
            waiting.append(REACHED[name])
    print(seen)
    assert set(seen) >= {
        "start_task",
        "finish_task",
        "_move",
        "mutate",
        "viewer_of",
        "DepartmentTask.in_queue",
        "DepartmentTask.allowed_actions",
        "WorkOrder.customer",
        "Declared.has_permission",
    }
    assert set().union(*seen.values()) == {"context"}


async def loaded(value: int) -> int:
    """What a loader's read gives, as a coroutine a resolver returns."""
    return value


async def test_a_payload_given_up_closes_what_it_still_waited_on() -> None:
    """A part of a payload whose first wait raised (a loader's read failing, or the client
    gone) closes the resolvers' coroutines it had not awaited yet, nested ones too: none is
    left never awaited (Python would warn of each)."""

    async def failing() -> int:
        raise RuntimeError("the read failed")

    waiting, nested = loaded(2), loaded(3)
    part = Later([failing(), waiting, Later([nested], lambda values: values)], lambda v: v)
    with pytest.raises(RuntimeError, match="the read failed"):
        await part.value()
    assert [inspect.getcoroutinestate(c) for c in (waiting, nested)] == [inspect.CORO_CLOSED] * 2


async def test_a_payload_that_waits_is_written_in_order() -> None:
    part = Later(
        [loaded(1), Later([loaded(2)], lambda values: values[0] * 10)],
        lambda values: {"first": values[0], "second": values[1]},
    )
    assert await part.value() == {"first": 1, "second": 20}


async def test_a_field_that_raises_closes_what_the_fields_before_it_wait_on() -> None:
    waiting = loaded(1)

    def make(item: int) -> object:
        if item == 2:
            raise RuntimeError("the resolver failed")
        return Later([waiting], lambda values: values[0])

    with pytest.raises(RuntimeError, match="the resolver failed"):
        _each(make, [1, 2])
    assert inspect.getcoroutinestate(waiting) == inspect.CORO_CLOSED
