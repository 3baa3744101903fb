"""Looking ahead at a page's selection: what its fields will load is loaded first, one
statement per relation and level, so that every field of the page then resolves at once
(see `now_or_later` in graph/loaders.py) instead of as one coroutine and task each."""

import asyncio
from collections.abc import Awaitable, Iterable, Iterator
from typing import Any

from strawberry.types.nodes import FragmentSpread, InlineFragment, SelectedField, Selection

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


async def _all(loads: list[Awaitable[Any]]) -> list[Any]:
    return list(await asyncio.gather(*loads)) if loads else []


async def work_orders(info: Info, orders: list[WorkOrder]) -> None:
    """Load what a page of work orders selects, level by level, into the request's loaders."""
    wanted = selected_paths(info, "edges", "node")
    if not orders or not wanted:
        return
    loaders = info.context.loaders
    ids = [o.id for o in orders]
    first: list[Awaitable[Any]] = []
    if "customer" in wanted:
        first += [loaders.customer.load(o._customer_id) for o in orders]
    if "createdBy" in wanted:
        first += [loaders.user.load(o._created_by) for o in orders if o._created_by is not None]
    if "history" in wanted:
        first += [loaders.work_order_history.load(i) for i in ids]
    tasks_wanted = "tasks" in wanted or "deliveryTask" in wanted
    if tasks_wanted:
        first += [loaders.tasks_of_work_order.load(i) for i in ids]
    await _all(first)

    histories = (
        await _all([loaders.work_order_history.load(i) for i in ids])
        if ("history.actor" in wanted)
        else []
    )
    groups = await _all([loaders.tasks_of_work_order.load(i) for i in ids]) if tasks_wanted else []
    tasks = [t for group in groups for t in group]
    second: list[Awaitable[Any]] = [
        loaders.user.load(h.actor_id) for group in histories for h in group if h.actor_id
    ]
    task_paths = {p.split(".", 1)[1] for p in wanted if p.startswith(("tasks.", "deliveryTask."))}
    pickers = sorted({t.picked_up_by for t in tasks if t.picked_up_by is not None})
    if "department" in task_paths:
        second += [loaders.department.load(t.department_id) for t in tasks]
    if "pickedUpBy" in task_paths:
        second += [loaders.user.load(p) for p in pickers]
    if "pickedUpBy.departments" in task_paths:
        second += [loaders.memberships.load(p) for p in pickers]
    if "history" in task_paths:
        second += [loaders.task_history.load(t.id) for t in tasks]
    await _all(second)

    third: list[Awaitable[Any]] = []
    if "pickedUpBy.departments" in task_paths:
        links = await _all([loaders.memberships.load(p) for p in pickers])
        third += [loaders.department.load(m.department_id) for group in links for m in group]
    if "history.actor" in task_paths:
        moves = await _all([loaders.task_history.load(t.id) for t in tasks])
        third += [loaders.user.load(m.actor_id) for group in moves for m in group]
    await _all(third)
