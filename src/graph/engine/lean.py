"""Relation fields resolved without Strawberry's per-call wrapping.

For every field with a resolver, Strawberry's resolve function converts the arguments
(there are none here), asks each field extension to reshape them, chains the
extensions with `functools.partial` and calls the resolver through its wrapper: about
2.7 µs a field, and a dashboard page resolves some 850 such fields (a task's department,
picker and history, an actor, a customer). For a field whose resolver is a plain
function of `self` and `info`, without arguments, whose only extensions are permission
checks, the resolve function made here builds Strawberry's `Info`, runs the checks and
calls the function. A check that does not simply pass hands the field to Strawberry's
own resolve function, which checks again (a check only reads) and answers the denial
its way; a resolver's error propagates as it would through Strawberry's.
"""

from collections.abc import Callable
from typing import Any

import strawberry
from graphql import GraphQLField, GraphQLObjectType, GraphQLResolveInfo
from strawberry.permission import BasePermission, PermissionExtension
from strawberry.types.field import StrawberryField


def lighten(schema: strawberry.Schema) -> list[str]:
    """Give every eligible field of the schema's object types (the roots apart) a direct
    resolve function; the names of those fields, as Type.field. The graphql-core types
    are the schema's own: another schema made of the same classes keeps Strawberry's."""
    if schema.exception_handlers:
        return []
    core = schema._schema
    roots = {core.query_type, core.mutation_type, core.subscription_type}
    lightened = []
    for kind in core.type_map.values():
        if not isinstance(kind, GraphQLObjectType) or kind in roots or kind.name.startswith("__"):
            continue
        for name, field in kind.fields.items():
            direct = _direct(field, schema.config.info_class)
            if direct is not None:
                field.resolve = direct
                lightened.append(f"{kind.name}.{name}")
    return lightened


def _direct(field: GraphQLField, info_class: type) -> Callable[..., Any] | None:
    definition = field.extensions.get("strawberry-definition")
    if not isinstance(definition, StrawberryField) or field.resolve is None:
        return None
    resolver = definition.base_resolver
    if resolver is None or definition.is_async or field.args or definition.arguments:
        return None
    # Exactly `self` and `info`: no other parameter (root, parent) to fill.
    info = resolver.info_parameter
    if resolver.self_parameter is None or info is None or len(resolver.signature.parameters) != 2:
        return None
    checks: list[BasePermission] = []
    for extension in definition.extensions:
        if type(extension) is not PermissionExtension or not extension.supports_sync:
            return None
        checks.extend(extension.permissions)
    function = resolver.wrapped_func
    if not callable(function):
        return None
    info_name = info.name
    strawberrys = field.resolve

    def resolve(source: Any, raw: "GraphQLResolveInfo[Any]") -> Any:
        strawberry_info = info_class(_raw_info=raw, _field=definition)
        for check in checks:
            if check.has_permission(source, strawberry_info) is not True:
                return strawberrys(source, raw)
        return function(source, **{info_name: strawberry_info})

    return resolve
