"""Looking ahead at a page's selection: what its fields will load is read first, in one
statement, so that every field of the page then resolves at once (see `now_or_later` in
graph/loaders.py) instead of as one query per relation and one coroutine per field."""

import dataclasses
from collections.abc import Iterable, Iterator
from typing import Any

from graphql import GraphQLObjectType, get_named_type
from strawberry.dataloader import DataLoader
from strawberry.types.nodes import FragmentSpread, InlineFragment, SelectedField, Selection

from db import reads
from graph.context import Info


def _fields(selections: Iterable[Selection]) -> Iterator[SelectedField]:
    for selection in selections:
        if isinstance(selection, SelectedField):
            yield selection
        elif isinstance(selection, FragmentSpread | InlineFragment):
            yield from _fields(selection.selections)


def read_ahead(part: str) -> dict[str, str]:
    """A relation field's declaration (its `metadata`) that a page of work orders reads
    it ahead as `part` of `reads.PageParts`, whenever the page's selection holds it."""
    if part not in _PARTS:
        raise ValueError(f"{part!r} is not a part of reads.PageParts")
    return {READ_AHEAD: part}


READ_AHEAD = "pressroom.read_ahead"
_PARTS = {f.name for f in dataclasses.fields(reads.PageParts)}


def parts_selected(info: Info, kind: GraphQLObjectType, *under: str) -> reads.PageParts:
    """What the selection below `under` (of `kind` objects) reads ahead, from the
    declarations of the fields it holds, at any depth (`read_ahead`)."""
    level = list(_fields(info.selected_fields))
    for name in under:
        level = [f for parent in level for f in _fields(parent.selections) if f.name == name]
    found: set[str] = set()

    def walk(parent: GraphQLObjectType, fields: Iterable[SelectedField]) -> None:
        for selected in fields:
            field = parent.fields.get(selected.name)
            if field is None:
                continue  # __typename, or a fragment's field of another type
            definition = field.extensions.get("strawberry-definition")
            part = definition.metadata.get(READ_AHEAD) if definition is not None else None
            if part is not None:
                found.add(part)
            inner = get_named_type(field.type)
            if isinstance(inner, GraphQLObjectType) and selected.selections:
                walk(inner, _fields(selected.selections))

    walk(kind, [f for parent in level for f in _fields(parent.selections)])
    return reads.PageParts(**{part: True for part in found})


async def work_orders(info: Info, order_ids: list[int]) -> None:
    """Read what a page of work orders selects in one statement, into the request's
    loaders (whatever it does not cover, its fields still load by themselves)."""
    kind = info.schema._schema.type_map["WorkOrder"]
    assert isinstance(kind, GraphQLObjectType)
    parts = parts_selected(info, kind, "edges", "node")
    if not order_ids or not parts.any():
        return
    async with info.context.read() as conn:
        found = await reads.work_order_page_relations(conn, order_ids, parts)
    loaders = info.context.loaders
    _prime(loaders.customer, ((r.id, r) for r in found.customers))
    _prime(loaders.user, ((r.id, r) for r in found.users))
    _prime(loaders.department, ((r.id, r) for r in found.departments))
    tasks = [t for group in found.tasks_of.values() for t in group]
    pickers = {t.picked_up_by for t in tasks if t.picked_up_by is not None}
    for loader, groups, keys, asked in (
        (loaders.tasks_of_work_order, found.tasks_of, order_ids, parts.tasks),
        (loaders.work_order_history, found.history_of, order_ids, parts.history),
        (loaders.task_history, found.moves_of, [t.id for t in tasks], parts.task_history),
        (loaders.memberships, found.memberships_of, pickers, parts.picker_departments),
    ):
        if asked:
            _prime(loader, ((key, groups.get(key, [])) for key in keys))


def _prime(loader: DataLoader[int, Any], values: Iterable[tuple[int, Any]]) -> None:
    """Rows read as JSON serve as the loaders' rows: fields read both by attribute."""
    for key, value in values:
        loader.prime(key, value)
