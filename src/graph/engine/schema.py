"""The schema as the engine room runs it: the same types and extensions as graph/schema.py,
executed by the sharing executor (sharing.py, executor.py), with the extension runner that
remembers hooks (runner.py), relation fields resolved directly (lean.py), and error
masking that looks only at results with errors."""

import functools

from strawberry.extensions import SchemaExtension
from strawberry.extensions.runner import SchemaExtensionsRunner
from strawberry.types import ExecutionContext

from graph.engine.lean import lighten
from graph.engine.runner import ExtensionsRunner
from graph.engine.sharing import SharingExecutor
from graph.schema import MaskUnexpectedErrors, PressroomSchema, make_schema


class MaskCleanResultsQuickly(MaskUnexpectedErrors):
    def _process_result(self, result: object) -> None:
        # Strawberry first asks a runtime-checkable Protocol whether the result can carry
        # errors: 7 us an operation on Python 3.11. Most results have none to mask.
        if getattr(result, "errors", None):
            super()._process_result(result)


class TunedSchema(PressroomSchema):
    def create_extensions_runner(
        self, execution_context: ExecutionContext, extensions: list[SchemaExtension]
    ) -> SchemaExtensionsRunner:
        return ExtensionsRunner(execution_context, extensions)


@functools.cache
def tuned_schema() -> TunedSchema:
    """One per process: its caches (plans, lightened fields) are the schema's own."""
    schema = make_schema(
        TunedSchema, MaskCleanResultsQuickly, execution_context_class=SharingExecutor
    )
    lighten(schema)
    return schema
