"""Looking ahead at a page's selection: what its fields will load is read first, in one
statement, so that every field of the page then resolves at once (see `now_or_later` in
graph/loaders.py) instead of as one query per relation and one coroutine per field."""

from collections.abc import Iterable, Iterator
from typing import Any

from strawberry.dataloader import DataLoader
from strawberry.types.nodes import FragmentSpread, InlineFragment, SelectedField, Selection

from db import reads
from graph.context import Info
from graph.types.nodes import WorkOrder


def _fields(selections: Iterable[Selection]) -> Iterator[SelectedField]:
    for selection in selections:
        if isinstance(selection, SelectedField):
            yield selection
        elif isinstance(selection, FragmentSpread | InlineFragment):
            yield from _fields(selection.selections)


def selected_paths(info: Info, *under: str) -> set[str]:
    """Dotted paths of the fields selected below `under` (e.g. "edges", "node") in the
    current field's selection: {"customer", "tasks", "tasks.department", ...}."""
    level = list(_fields(info.selected_fields))
    for name in under:
        level = [f for parent in level for f in _fields(parent.selections) if f.name == name]
    paths: set[str] = set()

    def collect(fields: list[SelectedField], prefix: str) -> None:
        for field in fields:
            path = prefix + field.name
            paths.add(path)
            collect(list(_fields(field.selections)), path + ".")

    collect([f for parent in level for f in _fields(parent.selections)], "")
    return paths


async def work_orders(info: Info, orders: list[WorkOrder]) -> None:
    """Read what a page of work orders selects in one statement, into the request's
    loaders (whatever it does not cover, its fields still load by themselves)."""
    wanted = selected_paths(info, "edges", "node")
    task_paths = {p.split(".", 1)[1] for p in wanted if p.startswith(("tasks.", "deliveryTask."))}
    parts = reads.PageParts(
        customers="customer" in wanted,
        creators="createdBy" in wanted,
        history="history" in wanted,
        tasks="tasks" in wanted or "deliveryTask" in wanted,
        pickers="pickedUpBy" in task_paths,
        picker_departments="pickedUpBy.departments" in task_paths,
        task_history="history" in task_paths,
    )
    if not orders or not parts.any():
        return
    order_ids = [o.id for o in orders]
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
