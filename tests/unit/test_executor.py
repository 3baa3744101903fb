"""The executor's shortcuts (plain leaves read directly, fields with a resolve function
called directly, lists of objects completed in one loop) answer exactly as graphql-core
does: same data in the same order, same errors at the same paths, and they are really
taken."""

import asyncio
import enum
import gc
import json
import warnings
import weakref
from collections.abc import AsyncGenerator
from datetime import UTC, datetime
from typing import Any, ClassVar

import pytest
import strawberry
from graphql.execution.executor import Executor as GraphQLCoreExecutor
from strawberry.permission import BasePermission, PermissionExtension
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.types import ExecutionResult, Info

from graph.engine.executor import Executor


@strawberry.enum
class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Deny(BasePermission):
    message = "not for you"

    def has_permission(self, source: Any, info: Info, **kwargs: Any) -> bool:
        return False


@strawberry.interface
class Named:
    """An interface gives Item an is_type_of check, as relay.Node gives ours."""

    name: str


@strawberry.type
class Item(Named):
    note: str | None
    size: int
    colour: Colour
    when: datetime | None
    missing_required: str
    flag: bool
    code: strawberry.ID
    secret: str = strawberry.field(extensions=[PermissionExtension([Deny()])])

    @strawberry.field
    def shout(self) -> str:
        return self.name.upper()

    @strawberry.field
    async def later(self) -> str:
        await asyncio.sleep(0)
        return self.name

    @strawberry.field
    def greet(self, who: str) -> str:
        return f"{who} {self.name}"

    @strawberry.field
    async def fails(self) -> str:
        if self.name == "b":
            raise ValueError("b fails")
        return self.name

    @strawberry.field
    def twin(self) -> "Item":
        return _items()[1]

    @strawberry.field
    def rival(self) -> "Item | None":
        return None if self.name == "a" else Impostor()  # type: ignore[return-value]

    @strawberry.field
    def friends(self) -> list["Item"]:
        return _items()

    @strawberry.field
    def crowd(self) -> list["Item | None"]:
        return [_items()[0], None, ValueError("no one"), Impostor(), _items()[1]]  # type: ignore[list-item]

    @strawberry.field
    def awaited(self) -> list["Item"]:
        return [_later(_items()[0]), _items()[1]]  # type: ignore[list-item]

    @strawberry.field
    def boom(self) -> "Item | None":
        raise ValueError("boom")

    @strawberry.field(extensions=[PermissionExtension([Deny()])])
    def hidden(self) -> "Item | None":
        return _items()[0]


class Label(str):
    pass


class Broken(Item):
    """An item whose attributes go wrong in every way a leaf can (made without Item's
    constructor, which would check them)."""

    name = "broken"
    note = None
    size = 2**40  # beyond GraphQL's Int
    colour = "purple"  # no such enum value
    when = "not a datetime"
    missing_required = None
    flag = 1  # an int where a bool belongs: Boolean serializes it as true
    code = Label("x")  # a str of another type: ID and String serialize it as a str
    secret = "s"


class Impostor:
    name = "impostor"


async def _later(item: Item) -> Item:
    await asyncio.sleep(0)
    return item


def _items() -> list[Any]:
    return [
        Item(
            name="a", note=None, size=1, colour=Colour.RED,
            when=datetime(2026, 1, 2, tzinfo=UTC), missing_required="x", flag=True,
            code=strawberry.ID("1"), secret="s",
        ),
        Item(
            name="b", note="n", size=2, colour=Colour.BLUE,
            when=None, missing_required="y", flag=False, code=strawberry.ID("2"),
            secret="s",
        ),
        object.__new__(Broken),
    ]  # fmt: skip


# What type checks and awaited items did, in order: compared between the two executors
# as well as their answers.
SEEN: list[str] = []


@strawberry.type
class Checked:
    name: str

    @classmethod
    def is_type_of(cls, obj: Any, info: Info) -> bool:
        SEEN.append(f"is_type_of {obj.name}")
        if obj.name == "raises":
            raise ValueError("cannot tell")
        return bool(obj.name != "refused")


@strawberry.type
class CheckedLater:
    name: str

    @classmethod
    def is_type_of(cls, obj: Any, info: Info) -> Any:
        SEEN.append(f"is_type_of {obj.name}")

        async def verdict() -> bool:
            await asyncio.sleep(0)
            return bool(obj.name != "refused")

        return verdict()


async def _noted(item: Item) -> Item:
    await asyncio.sleep(0)
    SEEN.append(f"awaited {item.name}")
    return item


def _done(value: Any) -> "asyncio.Future[Any]":
    future = asyncio.get_running_loop().create_future()
    future.set_result(value)
    return future


@strawberry.type
class Query:
    @strawberry.field
    def items(self) -> list[Item]:
        return _items()

    @strawberry.field
    def checked(self) -> list[Checked | None]:
        return [Checked(name=n) for n in ("a", "raises", "refused", "d")]

    @strawberry.field
    def one_checked(self) -> Checked | None:
        return Checked(name="refused")

    @strawberry.field
    def checked_later(self) -> list[CheckedLater | None]:
        return [CheckedLater(name=n) for n in ("a", "refused")]

    @strawberry.field
    def abandoned(self) -> list[Item] | None:
        # The first item's error nulls the list while the second is still to be awaited.
        return [object.__new__(Broken), _noted(_items()[0])]  # type: ignore[list-item]

    @strawberry.field
    async def slower(self) -> str:
        for _ in range(20):
            await asyncio.sleep(0)
        return "slower"

    @strawberry.field
    async def futures(self) -> Item:
        item = _items()[1]
        item.name, item.code = _done("from a future"), _done("7")
        return item

    @strawberry.field
    def item(self) -> Item:
        return _items()[0]

    @strawberry.field
    def impostor(self) -> Item | None:
        return Impostor()  # type: ignore[return-value]

    @strawberry.field
    def nothing(self) -> Item | None:
        return None

    @strawberry.field
    def required(self) -> Item:
        return None  # type: ignore[return-value]

    @strawberry.field
    def failed(self) -> Item | None:
        return ValueError("went wrong")  # type: ignore[return-value]

    @strawberry.field
    def named(self) -> Named:
        return _items()[1]

    @strawberry.field
    def sparse(self) -> list[Item | None]:
        return [_items()[0], None]


class CountingExecutor(Executor):
    infos = 0

    def build_resolve_info(self, *args: Any) -> Any:
        type(self).infos += 1
        return super().build_resolve_info(*args)


ours = strawberry.Schema(Query, execution_context_class=CountingExecutor)
plain = strawberry.Schema(Query, execution_context_class=StrawberryGraphQLCoreExecutionContext)

# Each document: what it exercises.
DOCUMENTS = {
    "leaves": "{ item { name note size colour when flag code } }",
    "leaves of other Python types": "{ items { name flag code } }",
    "leaves and resolvers interleaved": '{ item { shout name greet(who: "hi") size later } }',
    "aliases and repeats": "{ item { a: name b: name name n2: size name } }",
    "fragments": "{ item { ...F size } } fragment F on Item { colour name }",
    "skip and include": "{ item { name @skip(if: true) size @include(if: false) note } }",
    "typename": "{ item { __typename name } }",
    "a leaf behind a permission": "{ items { name secret } }",
    "an object not of its type": "{ impostor { name } item { name } }",
    "a list of good and bad leaves": "{ items { name note } }",
    "an Int out of range": "{ items { name size } }",
    "no such enum value": "{ items { name colour } }",
    "not a datetime": "{ items { name when } }",
    "null in a non-null leaf": "{ items { name missingRequired } }",
    "bad leaves with async siblings": "{ items { later size colour } }",
    "a null object": "{ nothing { name } item { name } }",
    "null for a non-null object": "{ required { name } }",
    "an error as an object's value": "{ failed { name } item { name } }",
    "an object behind an interface": "{ named { name ... on Item { size } } }",
    "a list with a null object": "{ sparse { name } }",
    "relations": "{ item { name twin { name size } friends { name note } } }",
    "a relation of the wrong type": "{ items { name rival { name } } }",
    "a relation that raises": "{ item { boom { name } name } }",
    "a relation behind a permission": "{ item { hidden { name } name } }",
    "a list with nulls, errors and impostors": "{ item { crowd { name } } }",
    "a list of awaitable objects": "{ item { awaited { name later } } }",
    "a list behind a directive": "{ item { friends @include(if: true) { name } } }",
    "an error in a list item propagates": "{ item { friends { name colour } } }",
    "async fields of list items": "{ items { later twin { later } } }",
    "an async error in a list item": "{ item { crowd { name fails } } }",
    "an async error in a list item propagates": "{ item { friends { fails } } }",
}


def _answer(schema: strawberry.Schema, document: str) -> str:
    result = asyncio.run(schema.execute(document))
    errors = [
        {
            "message": e.message,
            "path": e.path,
            "locations": [(loc.line, loc.column) for loc in e.locations or []],
        }
        for e in result.errors or []
    ]
    # Text, not dicts: the order of keys is part of the answer.
    return json.dumps({"data": result.data, "errors": errors})


@pytest.mark.parametrize("document", DOCUMENTS.values(), ids=DOCUMENTS.keys())
def test_answers_exactly_as_graphql_core(document: str) -> None:
    assert _answer(ours, document) == _answer(plain, document)


def test_the_table_covers_errors_and_plain_answers() -> None:
    answers = {name: json.loads(_answer(ours, doc)) for name, doc in DOCUMENTS.items()}
    assert not answers["leaves"]["errors"]
    impostor = answers["an object not of its type"]
    assert impostor["data"] == {"impostor": None, "item": {"name": "a"}}
    assert answers["a null object"] == {
        "data": {"nothing": None, "item": {"name": "a"}},
        "errors": [],
    }
    assert answers["null for a non-null object"]["data"] is None
    assert "Cannot return null" in answers["null for a non-null object"]["errors"][0]["message"]
    failed = answers["an error as an object's value"]
    assert failed["data"] == {"failed": None, "item": {"name": "a"}}
    assert failed["errors"][0]["message"] == "went wrong"
    assert answers["an object behind an interface"]["data"] == {"named": {"name": "b", "size": 2}}
    assert answers["a list with a null object"]["data"] == {"sparse": [{"name": "a"}, None]}
    assert "Expected value of type" in impostor["errors"][0]["message"]
    denied = answers["a leaf behind a permission"]
    assert denied["data"] is None and denied["errors"][0]["message"] == "not for you"
    assert answers["a list of good and bad leaves"]["data"]["items"][2] == {
        "name": "broken",
        "note": None,
    }
    for name, field in (
        ("an Int out of range", "size"),
        ("no such enum value", "colour"),
        ("not a datetime", "when"),
        ("null in a non-null leaf", "missingRequired"),
    ):
        assert [e["path"] for e in answers[name]["errors"]] == [["items", 2, field]], name


# Each document: what it exercises, beyond the answer.
WITH_EFFECTS = {
    "a type check that raises, in a list": "{ checked { name } }",
    "a type check that refuses, alone": "{ oneChecked { name } }",
    "a type check that answers later, in a list": "{ checkedLater { name } }",
    "an awaitable left in a list an error abandons": "{ abandoned { missingRequired } slower }",
    "awaitables as leaves": "{ futures { name code } }",
}


def _effects(schema: strawberry.Schema, document: str) -> tuple[str, list[str], list[str]]:
    """The answer, what type checks and awaited items did, and the coroutines never
    awaited (other tests' leftovers are collected first, and other warnings ignored)."""
    SEEN.clear()
    gc.collect()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        answer = _answer(schema, document)
        gc.collect()
    unawaited = [str(w.message) for w in caught if "never awaited" in str(w.message)]
    return answer, list(SEEN), sorted(unawaited)


@pytest.mark.parametrize("document", WITH_EFFECTS.values(), ids=WITH_EFFECTS.keys())
def test_type_checks_and_pending_items_go_as_in_graphql_core(document: str) -> None:
    assert _effects(ours, document) == _effects(plain, document)


def test_the_effects_table_checks_what_it_says() -> None:
    answer, seen, _ = _effects(ours, WITH_EFFECTS["a type check that raises, in a list"])
    assert json.loads(answer)["data"] == {"checked": [{"name": "a"}, None, None, {"name": "d"}]}
    assert [e["path"] for e in json.loads(answer)["errors"]] == [["checked", 1], ["checked", 2]]
    # Asked once per item, as graphql-core asks.
    assert seen == ["is_type_of a", "is_type_of raises", "is_type_of refused", "is_type_of d"]
    answer, seen, _ = _effects(ours, WITH_EFFECTS["a type check that answers later, in a list"])
    assert json.loads(answer)["data"] == {"checkedLater": [{"name": "a"}, None]}
    assert seen == ["is_type_of a", "is_type_of refused"]
    answer, seen, caught = _effects(
        ours, WITH_EFFECTS["an awaitable left in a list an error abandons"]
    )
    assert json.loads(answer)["data"] == {"abandoned": None, "slower": "slower"}
    assert seen == ["awaited a"] and caught == []
    answer, _, _ = _effects(ours, WITH_EFFECTS["awaitables as leaves"])
    assert json.loads(answer)["data"] == {"futures": {"name": "from a future", "code": "7"}}


def test_relations_and_lists_of_objects_are_taken_directly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    taken: list[str] = []
    for name in ("execute_field", "complete_list_item_value", "collect_subfields"):
        core = getattr(GraphQLCoreExecutor, name)

        def counting(self: Any, *args: Any, _name: str = name, _core: Any = core) -> Any:
            taken.append(_name)
            return _core(self, *args)

        monkeypatch.setattr(GraphQLCoreExecutor, name, counting)
    result = asyncio.run(ours.execute("{ item { twin { name } friends { name } } }"))
    assert result.errors is None and len(result.data["item"]["friends"]) == 3
    # No field through execute_field and no item one by one; a selection is collected
    # once per object or list (item, twin, friends), not once per item of the list.
    assert taken == ["collect_subfields"] * 3


def test_plain_leaves_are_read_without_a_resolve_info() -> None:
    CountingExecutor.infos = 0
    asyncio.run(ours.execute("{ item { name note size colour when shout } }"))
    # item and shout; the five leaves (note is null: it goes graphql-core's way) need none.
    assert CountingExecutor.infos == 3


@strawberry.type
class Subscription:
    @strawberry.subscription
    async def ticks(self) -> AsyncGenerator[Item, None]:
        for item in _items()[:2] * 3:
            yield item


class MemoCounting(Executor):
    """After each execution: how many plans, and how many collected subfields, it keeps."""

    seen: list[tuple[int, int]] = []

    def execute_fields(self, *args: Any) -> Any:
        result = super().execute_fields(*args)
        type(self).seen.append((len(self._plans), len(self._relevant_sub_fields)))
        return result


def _ticks(live: strawberry.Schema) -> list[Any]:
    """The subscription's events, each checked to be the item it should be."""

    async def run() -> list[Any]:
        stream = await live.subscribe("subscription { ticks { name size } }")
        assert not isinstance(stream, ExecutionResult)
        return [result.data async for result in stream]

    events = asyncio.run(run())
    assert [e["ticks"]["name"] for e in events] == ["a", "b"] * 3
    return events


def test_a_subscription_does_not_pile_up_plans_event_after_event() -> None:
    live = strawberry.Schema(Query, subscription=Subscription, execution_context_class=MemoCounting)
    MemoCounting.seen = []
    events = _ticks(live)
    # Each event's executor plans its own selections and no more: the count of plans
    # stays what the first event needed instead of growing with every event.
    seen = [plans for plans, _ in MemoCounting.seen]
    assert len(seen) >= len(events) and set(seen) == {seen[0]}


def test_a_subscription_does_not_pile_up_collected_subfields_event_after_event() -> None:
    """graphql-core's per-event copy shares the subfields it memoizes by the identity of
    field lists each event makes anew: shared, the memo grew by every event for the
    subscription's life (a wall display's, days)."""
    live = strawberry.Schema(Query, subscription=Subscription, execution_context_class=MemoCounting)
    MemoCounting.seen = []
    events = _ticks(live)
    seen = [subfields for _, subfields in MemoCounting.seen]
    assert len(seen) >= len(events) and set(seen) == {seen[0]}


class Recording(Executor):
    __slots__ = ()
    seen: ClassVar[list[Executor]] = []

    def execute_fields(self, *args: Any) -> Any:
        type(self).seen.append(self)
        return super().execute_fields(*args)


def test_executors_and_their_per_event_copies_keep_no_instance_dictionary() -> None:
    """A subscription keeps its executor for its whole life: every attribute graphql-core
    and Strawberry set has a slot (an attribute a new version adds would show here), and
    the copy made for each event carries them all."""
    live = strawberry.Schema(Query, subscription=Subscription, execution_context_class=Recording)
    Recording.seen = []
    events = _ticks(live)
    assert len({id(e) for e in Recording.seen}) >= len(events)
    assert [vars(e) for e in Recording.seen if vars(e)] == []
    Recording.seen = []
    asyncio.run(live.execute("{ item { name shout } }"))
    assert Recording.seen and [vars(e) for e in Recording.seen if vars(e)] == []


class Kept(Executor):
    __slots__ = ()
    made: ClassVar[list["weakref.ref[Executor]"]] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        type(self).made.append(weakref.ref(self))


@pytest.mark.parametrize("document", ["{ item { name } }", "{ items { name shout } }"])
def test_an_executor_is_freed_as_soon_as_its_execution_ends(document: str) -> None:
    """graphql-core makes the helpers it hands resolvers of the executor's bound methods,
    a reference cycle that kept every request's context, and a subscription's whole
    connection, until the garbage collector's next pass."""
    kept = strawberry.Schema(Query, execution_context_class=Kept)
    Kept.made = []
    gc.collect()
    gc.disable()
    try:
        result = asyncio.run(kept.execute(document))
        assert result.data is not None
        assert Kept.made
        assert [ref for ref in Kept.made if ref() is not None] == []
    finally:
        gc.enable()


def test_objects_are_completed_without_graphql_cores_type_questions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[object] = []
    core = GraphQLCoreExecutor.complete_value

    def counting(self: Any, return_type: Any, *args: Any) -> Any:
        asked.append(return_type)
        return core(self, return_type, *args)

    monkeypatch.setattr(GraphQLCoreExecutor, "complete_value", counting)
    result = asyncio.run(ours.execute("{ items { name } }"))
    assert result.errors is None and len(result.data["items"]) == 3
    # The list itself goes graphql-core's way (non-null, then the list), its three
    # objects do not.
    assert [str(t) for t in asked] == ["[Item!]!", "[Item!]"]
