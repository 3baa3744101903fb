"""Relation fields resolved without Strawberry's wrapping answer exactly as through it:
same data, same denials, same errors; and only the fields that qualify are changed."""

import asyncio
import json
from typing import Any

import pytest
import strawberry
from graphql import GraphQLObjectType
from strawberry.permission import BasePermission, PermissionExtension
from strawberry.types import Info

from graph.engine.lean import lighten
from graph.engine.schema import tuned_schema
from graph.schema import schema as plain_schema


class Allow(BasePermission):
    def has_permission(self, source: Any, info: Info, **kwargs: Any) -> bool:
        return True


class Deny(BasePermission):
    message = "not for you"

    def has_permission(self, source: Any, info: Info, **kwargs: Any) -> bool:
        return False


class OnlyFirst(BasePermission):
    message = "only the first"

    def has_permission(self, source: Any, info: Info, **kwargs: Any) -> bool:
        return bool(source.name == "a")


class Truthy(BasePermission):
    def has_permission(self, source: Any, info: Info, **kwargs: Any) -> bool:
        return "yes"  # type: ignore[return-value]


def guarded(*permissions: BasePermission, silent: bool = False) -> Any:
    return [PermissionExtension(list(permissions), fail_silently=silent)]


@strawberry.type
class Leaf:
    name: str


@strawberry.type
class Item:
    name: str

    @strawberry.field
    def rel(self, info: Info) -> Leaf:
        return Leaf(name=f"{self.name} via {info.field_name}")

    @strawberry.field(extensions=guarded(Allow()))
    def allowed(self, info: Info) -> Leaf:
        return Leaf(name=self.name)

    @strawberry.field(extensions=guarded(Allow(), OnlyFirst()))
    def some(self, info: Info) -> Leaf | None:
        return Leaf(name=self.name)

    @strawberry.field(extensions=guarded(Deny()))
    def denied(self, info: Info) -> Leaf:
        return Leaf(name=self.name)

    @strawberry.field(extensions=guarded(Deny(), silent=True))
    def silent(self, info: Info) -> list[Leaf] | None:
        return [Leaf(name=self.name)]

    @strawberry.field(extensions=guarded(Truthy()))
    def truthy(self, info: Info) -> Leaf | None:
        return Leaf(name=self.name)

    @strawberry.field
    def broken(self, info: Info) -> Leaf | None:
        raise ValueError(f"no leaf for {self.name}")

    @strawberry.field
    def later(self, info: Info) -> Leaf:
        async def leaf() -> Leaf:
            return Leaf(name=self.name)

        return leaf()  # type: ignore[return-value]

    @strawberry.field
    def greet(self, info: Info, who: str) -> Leaf:
        return Leaf(name=who)

    @strawberry.field
    def alone(self) -> Leaf:
        return Leaf(name=self.name)

    @strawberry.field
    async def waits(self, info: Info) -> Leaf:
        return Leaf(name=self.name)


@strawberry.type
class Query:
    @strawberry.field
    def items(self) -> list[Item]:
        return [Item(name="a"), Item(name="b")]


plain = strawberry.Schema(Query)
lean = strawberry.Schema(Query)
CHANGED = lighten(lean)

DOCUMENTS = [
    "{ items { rel { name } allowed { name } } }",
    "{ items { some { name } } }",
    "{ items { name denied { name } } }",
    "{ items { silent { name } } }",
    "{ items { truthy { name } } }",
    "{ items { broken { name } } }",
    "{ items { later { name } rel { name } } }",
    '{ items { greet(who: "x") { name } alone { name } waits { name } } }',
]


def _answer(schema: strawberry.Schema, document: str) -> str:
    result = asyncio.run(schema.execute(document))
    errors = [(e.message, e.path) for e in result.errors or []]
    return json.dumps({"data": result.data, "errors": errors})


@pytest.mark.parametrize("document", DOCUMENTS)
def test_answers_exactly_as_through_strawberry(document: str) -> None:
    assert _answer(lean, document) == _answer(plain, document)


def test_the_table_covers_grants_denials_and_errors() -> None:
    answers = [json.loads(_answer(lean, d)) for d in DOCUMENTS]
    assert answers[0]["data"]["items"][1]["rel"] == {"name": "b via rel"}
    assert answers[1]["data"]["items"] == [{"some": {"name": "a"}}, {"some": None}]
    assert answers[1]["errors"] == [["only the first", ["items", 1, "some"]]]
    assert answers[2]["data"] is None and answers[2]["errors"][0][0] == "not for you"
    assert answers[3] == {"data": {"items": [{"silent": []}] * 2}, "errors": []}
    assert answers[4]["data"]["items"] == [{"truthy": None}] * 2
    assert answers[5]["errors"][0] == ["no leaf for a", ["items", 0, "broken"]]


def test_only_plain_functions_of_self_and_info_without_arguments_change() -> None:
    assert sorted(CHANGED) == [
        f"Item.{name}"
        for name in ("allowed", "broken", "denied", "later", "rel", "silent", "some", "truthy")
    ]
    fields = lean._schema.type_map["Item"].fields  # type: ignore[attr-defined]
    assert fields["rel"].resolve.__module__ == "graph.engine.lean"
    assert fields["greet"].resolve.__module__ != "graph.engine.lean"


def _lightened(schema: strawberry.Schema) -> set[str]:
    return {
        f"{kind.name}.{name}"
        for kind in schema._schema.type_map.values()
        if isinstance(kind, GraphQLObjectType)
        for name, field in kind.fields.items()
        if getattr(field.resolve, "__module__", None) == "graph.engine.lean"
    }


def test_the_pages_relations_are_lightened_in_the_engine_rooms_schema_only() -> None:
    lightened = _lightened(tuned_schema())
    assert {
        "DepartmentTask.department",
        "DepartmentTask.pickedUpBy",
        "TaskTransition.actor",
    } <= lightened
    assert "Query.workOrders" not in lightened
    # Strawberry's own resolvers in the schema plain execution serves.
    assert _lightened(plain_schema) == set()
