"""The schema as the engine room runs it: the same types and extensions as graph/schema.py,
executed by the sharing executor (sharing.py, executor.py), with the extension runner that
remembers hooks (runner.py) and relation fields resolved directly (lean.py)."""

import functools

from strawberry.extensions import SchemaExtension
from strawberry.extensions.runner import SchemaExtensionsRunner
from strawberry.types import ExecutionContext

from graph.engine.lean import lighten
from graph.engine.runner import ExtensionsRunner
from graph.engine.sharing import SharingExecutor
from graph.schema import PressroomSchema, make_schema


class TunedSchema(PressroomSchema):
    def create_extensions_runner(
        self, execution_context: ExecutionContext, extensions: list[SchemaExtension]
    ) -> SchemaExtensionsRunner:
        return ExtensionsRunner(execution_context, extensions)


@functools.cache
def tuned_schema() -> TunedSchema:
    """One per process: its caches (plans, lightened fields) are the schema's own."""
    schema = make_schema(TunedSchema, execution_context_class=SharingExecutor)
    lighten(schema)
    return schema
