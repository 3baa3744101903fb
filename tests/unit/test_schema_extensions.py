"""The schema's extensions: made afresh for every request, so that concurrent requests
never share one (Strawberry sets each extension's execution context per request); and
the runner that skips their hooks where they have nothing to do, and remembers which
hooks each extension class has."""

import gc
from collections import deque
from collections.abc import AsyncIterator, Iterator

import strawberry
from graphql import GraphQLError
from strawberry.extensions import SchemaExtension
from strawberry.extensions.runner import SchemaExtensionsRunner
from strawberry.types import ExecutionContext
from strawberry.types.execution import ExecutionResult

from graph.engine.runner import ExtensionsRunner
from graph.engine.schema import MaskCleanResultsQuickly, tuned_schema
from graph.schema import schema


def _made() -> list[SchemaExtension]:
    return schema.get_extensions()


def test_no_extension_instance_is_shared_between_requests() -> None:
    first, second = _made(), _made()
    assert len(first) == len(second) > 0
    assert all(a is not b for a, b in zip(first, second, strict=True))


def _runner() -> ExtensionsRunner:
    """The engine room's runner, as its schema makes it."""
    tuned = tuned_schema()
    extensions = tuned.get_extensions()
    context = ExecutionContext(
        query="subscription { x }", schema=tuned, allowed_operations=set(), context=None
    )
    for extension in extensions:
        extension.execution_context = context
    runner = tuned.create_extensions_runner(context, extensions)
    assert isinstance(runner, ExtensionsRunner)
    return runner


def test_error_masking_is_the_only_hook_after_results() -> None:
    # The runner skips the stream-result hooks for results without errors: right only
    # while error masking is the one extension that has such a hook.
    runner = _runner()
    assert [type(e) for e in runner.on_results] == [MaskCleanResultsQuickly]
    assert runner.with_results == []


async def test_a_live_result_with_an_unexpected_error_is_masked() -> None:
    runner = _runner()
    error = GraphQLError("secret detail", path=["x"], original_error=RuntimeError("secret"))
    result = ExecutionResult(data=None, errors=[error])
    async with runner.on_stream_result(result):
        pass
    assert result.errors is not None
    [masked] = result.errors
    assert "secret" not in masked.message
    assert masked.extensions == {"code": "INTERNAL_SERVER_ERROR"}


async def test_a_live_result_without_errors_runs_no_hook() -> None:
    result = ExecutionResult(data={"x": 1}, errors=None)
    assert _runner().on_stream_result(result).hooks == []


# Every kind of hook Strawberry accepts, on every stage: each records when it runs.
calls: list[str] = []


class Generators(SchemaExtension):
    def on_operation(self) -> Iterator[None]:
        calls.append("gen operation in")
        yield
        calls.append("gen operation out")

    def on_parse(self) -> Iterator[None]:
        calls.append("gen parse")
        yield

    def on_validate(self) -> Iterator[None]:
        yield
        calls.append("gen validate out")

    def on_execute(self) -> Iterator[None]:
        calls.append(f"gen execute {self.execution_context.operation_name}")
        yield


class AsyncGenerators(SchemaExtension):
    async def on_operation(self) -> AsyncIterator[None]:  # type: ignore[override]
        calls.append("agen operation in")
        yield
        calls.append("agen operation out")

    async def on_execute(self) -> AsyncIterator[None]:  # type: ignore[override]
        calls.append("agen execute")
        yield


class Plain(SchemaExtension):
    def on_parse(self) -> None:  # type: ignore[override]
        calls.append("plain parse")

    async def on_execute(self) -> None:  # type: ignore[override]
        calls.append("async plain execute")


@strawberry.type
class Query:
    x: int = 1


class Ours(strawberry.Schema):
    def create_extensions_runner(
        self, execution_context: ExecutionContext, extensions: list[SchemaExtension]
    ) -> SchemaExtensionsRunner:
        return ExtensionsRunner(execution_context, extensions)


async def _hooks_run(kind: type[strawberry.Schema]) -> list[str]:
    test_schema = kind(Query, extensions=[Generators, AsyncGenerators, Plain])
    calls.clear()
    for name in ("A", "B"):  # twice: the second request finds the hooks remembered
        result = await test_schema.execute(f"query {name} {{ x }}", root_value=Query())
        assert result.errors is None
    return list(calls)


async def test_remembered_hooks_run_exactly_as_strawberrys_own() -> None:
    ours = await _hooks_run(Ours)
    assert ours == await _hooks_run(strawberry.Schema)
    # Each request's hooks are bound to that request's extensions.
    assert "gen execute A" in ours and "gen execute B" in ours
    assert len(ours) == 2 * 10


async def test_the_operation_stage_keeps_no_deque() -> None:
    # A subscription holds its operation stage for its whole life, and an empty deque
    # still keeps a 64-slot block.
    context = ExecutionContext(query="{ x }", schema=schema, allowed_operations=set())
    stage = ExtensionsRunner(context, [Generators(), AsyncGenerators()]).operation()
    async with stage:
        kept = gc.get_referents(stage.async_exit_stack)
        assert [r for r in kept if isinstance(r, deque)] == []
        assert any(isinstance(r, list) and r for r in kept)  # the hooks' exits, in a list
