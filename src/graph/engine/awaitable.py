"""graphql-core asks of every value a field returns whether it is awaitable.

Strawberry's check answers at once for builtins; for the objects a page is made of
(nodes, datetimes, enums) it ends in `hasattr(value, "__await__")`, which raises and
catches an AttributeError inside, for each of a page's thousands of values. Whether a
type is awaitable does not change, so the answer "no" is kept per type. Generators are
asked each time: only some of them are coroutines.
"""

from collections.abc import Awaitable
from types import GeneratorType
from typing import Any, TypeGuard

from strawberry.execution import optimized_is_awaitable

# Filled as types are met; Strawberry's own check answers the first time.
_NEVER: set[type] = set()


def is_awaitable(value: Any) -> TypeGuard[Awaitable[Any]]:
    kind = type(value)
    if kind in _NEVER:
        return False
    if optimized_is_awaitable(value):
        return True
    if kind is not GeneratorType and not hasattr(kind, "__await__"):
        _NEVER.add(kind)
    return False
