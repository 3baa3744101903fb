"""The schema's extensions: made afresh for every request, so that concurrent requests
never share one (Strawberry sets each extension's execution context per request); and
the runner that skips their hooks where they have nothing to do."""

from graphql import GraphQLError
from strawberry.extensions import SchemaExtension
from strawberry.types import ExecutionContext
from strawberry.types.execution import ExecutionResult

from graph.schema import DocumentLimits, ExtensionsRunner, MaskUnexpectedErrors, schema


def _made() -> list[SchemaExtension]:
    return schema.get_extensions()


def test_no_extension_instance_is_shared_between_requests() -> None:
    first, second = _made(), _made()
    assert len(first) == len(second) > 0
    assert all(a is not b for a, b in zip(first, second, strict=True))


def test_the_limit_rules_are_the_same_classes_for_every_request() -> None:
    # The validation cache keys on the rule classes: new classes per request would
    # make every request miss it.
    def rules(extensions: list[SchemaExtension]) -> list[type]:
        return [rule for e in extensions if isinstance(e, DocumentLimits) for rule in e.RULES]

    first, second = rules(_made()), rules(_made())
    assert len(first) == 2
    assert first == second


def _runner() -> ExtensionsRunner:
    extensions = _made()
    context = ExecutionContext(
        query="subscription { x }", schema=schema, allowed_operations=set(), context=None
    )
    for extension in extensions:
        extension.execution_context = context
    runner = schema.create_extensions_runner(context, extensions)
    assert isinstance(runner, ExtensionsRunner)
    return runner


def test_error_masking_is_the_only_hook_after_results() -> None:
    # The runner skips the stream-result hooks for results without errors: right only
    # while error masking is the one extension that has such a hook.
    runner = _runner()
    assert [type(e) for e in runner.on_results] == [MaskUnexpectedErrors]
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
