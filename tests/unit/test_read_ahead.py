"""The read-ahead of a page of work orders is declared on the relation fields themselves
(graph/prefetch.py `read_ahead`): every part the statement can read is some field's."""

import dataclasses

import pytest
from graphql import GraphQLObjectType

from db import reads
from graph.prefetch import READ_AHEAD, read_ahead
from graph.schema import schema


def _declared() -> dict[str, str]:
    found = {}
    for kind in schema._schema.type_map.values():
        if not isinstance(kind, GraphQLObjectType):
            continue
        for name, field in kind.fields.items():
            definition = field.extensions.get("strawberry-definition")
            part = definition.metadata.get(READ_AHEAD) if definition is not None else None
            if part is not None:
                found[f"{kind.name}.{name}"] = part
    return found


def test_every_part_of_the_read_ahead_is_declared_by_the_field_it_serves() -> None:
    assert _declared() == {
        "WorkOrder.customer": "customers",
        "WorkOrder.createdBy": "creators",
        "WorkOrder.history": "history",
        "WorkOrder.tasks": "tasks",
        "WorkOrder.deliveryTask": "tasks",
        "WorkOrder.progress": "tasks",
        "DepartmentTask.pickedUpBy": "pickers",
        "DepartmentTask.history": "task_history",
        "DepartmentTask.waitingSince": "task_history",
        "User.departments": "picker_departments",
    }
    assert set(_declared().values()) == {f.name for f in dataclasses.fields(reads.PageParts)}


def test_a_part_the_statement_cannot_read_is_refused() -> None:
    with pytest.raises(ValueError, match="not a part"):
        read_ahead("ledger")
