"""Strawberry's extension runner, with less work per request and per result.

Before each stage of a request (operation, parse, validate, execute) Strawberry asks every
extension whether it has a hook for it, and wraps each hook it finds with
`contextlib.contextmanager`: about 29 µs a request for our nine extensions, 3 % of a task
move. Whether a class has a hook, and of which kind, does not change: here it is decided
once per class and stage, and a request only binds the hook to its extension. A
subscription holds its operation stage's exit stack for its whole life: here the stack
keeps its callbacks in a list instead of a deque.
"""

import contextlib
import functools
import inspect
from collections.abc import Callable
from typing import Any, ClassVar

from strawberry.extensions import SchemaExtension
from strawberry.extensions.context import (
    ExecutingContextManager,
    ExtensionContextManagerBase,
    OperationContextManager,
    ParsingContextManager,
    StreamResultContextManager,
    ValidationContextManager,
    WrappedHook,
)
from strawberry.extensions.runner import SchemaExtensionsRunner
from strawberry.types import ExecutionContext
from strawberry.types.execution import StreamExecutionResult
from strawberry.utils.await_maybe import await_maybe

# A stage's hook of an extension class: a context manager factory taking the extension
# and whether it is async; None for no hook; _PLAIN for a plain function, which
# Strawberry wraps itself.
_Factory = tuple[Callable[[SchemaExtension], Any], bool]
_PLAIN = (lambda _: None, False)


class _RememberedHooks(ExtensionContextManagerBase):
    factories: ClassVar[dict[type[SchemaExtension], _Factory | None]]

    def get_hook(self, extension: SchemaExtension) -> WrappedHook | None:
        kind = type(extension)
        try:
            factory = self.factories[kind]
        except KeyError:
            factory = self.factories[kind] = self._factory_of(kind)
        if factory is None:
            return None
        if factory is _PLAIN:
            return super().get_hook(extension)
        make, is_async = factory
        return WrappedHook(extension, functools.partial(make, extension), is_async)

    def _factory_of(self, kind: type[SchemaExtension]) -> _Factory | None:
        if not _overrides(kind, self.HOOK_NAME):
            return None
        hook = getattr(kind, self.HOOK_NAME)
        if inspect.isgeneratorfunction(hook):
            return contextlib.contextmanager(hook), False
        if inspect.isasyncgenfunction(hook):
            return contextlib.asynccontextmanager(hook), True
        return _PLAIN

    async def __aenter__(self) -> None:
        # Strawberry's, with a lighter stack: a subscription holds its operation's for life.
        stack = self.async_exit_stack = _ExitStack()
        await stack.__aenter__()
        for hook in self.hooks:
            if hook.is_async:
                await stack.enter_async_context(hook.hook())  # type: ignore[arg-type]
            else:
                stack.enter_context(hook.hook())  # type: ignore[arg-type]


class _ExitStack(contextlib.AsyncExitStack):
    """Its exit callbacks in a list: the stack only appends and pops from the end, and a
    deque, even empty, keeps a 64-slot block (624 bytes)."""

    def __init__(self) -> None:
        self._exit_callbacks: Any = []


class _Operation(_RememberedHooks, OperationContextManager):
    factories = {}


class _Parsing(_RememberedHooks, ParsingContextManager):
    factories = {}


class _Validation(_RememberedHooks, ValidationContextManager):
    factories = {}


class _Executing(_RememberedHooks, ExecutingContextManager):
    factories = {}


class ExtensionsRunner(SchemaExtensionsRunner):
    """Besides the stage hooks above, two costs Strawberry pays after every result, which
    for a live event is once per subscriber (about 7 µs of a message's 70-110): asking
    every extension for results to add to the response (none of ours has any), and
    building every extension's stream-result hook. Error masking is our only such hook
    (a test keeps it so), and a result without errors gives it nothing to do."""

    def __init__(
        self, execution_context: ExecutionContext, extensions: list[SchemaExtension] | None = None
    ) -> None:
        super().__init__(execution_context, extensions)
        self.with_results = [e for e in self.extensions if _overrides(type(e), "get_results")]
        self.on_results = [e for e in self.extensions if _overrides(type(e), "on_stream_result")]

    def operation(self) -> OperationContextManager:
        return _Operation(self.extensions)

    def parsing(self) -> ParsingContextManager:
        return _Parsing(self.extensions)

    def validation(self) -> ValidationContextManager:
        return _Validation(self.extensions)

    def executing(self) -> ExecutingContextManager:
        return _Executing(self.extensions)

    async def get_extensions_results(self, ctx: ExecutionContext) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for extension in self.with_results:
            data.update(await await_maybe(extension.get_results()))
        data.update(ctx.extensions_results)
        return data

    def on_stream_result(self, result: StreamExecutionResult) -> StreamResultContextManager:
        hooks = self.on_results if _has_errors(result) else []
        return StreamResultContextManager(hooks, result)


def _overrides(kind: type[SchemaExtension], hook: str) -> bool:
    return getattr(kind, hook) is not getattr(SchemaExtension, hook)


def _has_errors(result: StreamExecutionResult) -> bool:
    """Errors in the result or in any part delivered with it (incremental delivery)."""
    parts = [result, *(getattr(result, "incremental", None) or ())]
    parts += getattr(result, "completed", None) or ()
    return any(getattr(part, "errors", None) for part in parts)
