"""The accepted documents' cache: keyed by text, bounded in entries and in bytes, the least
recently used let go first, and a document bigger than the whole budget never kept."""

import gc

from graphql import GraphQLError, Token, parse

from graph.documents import ANONYMOUS_ENTRIES, BYTES_PER_TOKEN, Accepted, AcceptedStore, Documents
from graph.shape import shape_of


def accepted(text: str) -> Accepted:
    document = parse(text)
    return Accepted(text, document, shape_of(document))


def test_a_document_is_found_by_its_text_and_only_as_the_document_kept() -> None:
    documents = Documents()
    kept = accepted("{ me { id } }")
    documents.keep(kept)
    assert documents.get("{ me { id } }") is kept
    assert documents.get("{ me { name } }") is None
    assert documents.of("{ me { id } }", kept.document) is kept
    # The same text parsed again (by a request that raced the first) is not the one kept.
    assert documents.of("{ me { id } }", parse("{ me { id } }")) is None


def test_entries_are_bounded_and_the_least_recently_used_goes_first() -> None:
    documents = Documents(entries=2)
    first, second, third = (accepted(f"{{ me {{ id }} }} # {n}") for n in range(3))
    documents.keep(first)
    documents.keep(second)
    documents.get(first.text)
    documents.keep(third)
    assert len(documents) == 2
    assert documents.get(second.text) is None
    assert documents.get(first.text) is first and documents.get(third.text) is third


def test_bytes_are_bounded_by_the_tokens_each_document_holds() -> None:
    small = accepted("{ me { id } }")
    assert small.weight == small.shape.tokens * BYTES_PER_TOKEN + len(small.text)
    wide = accepted("{ me { " + "id " * 500 + "} }")
    documents = Documents(size=wide.weight + small.weight)
    documents.keep(small)
    documents.keep(wide)
    assert len(documents) == 2
    documents.keep(accepted("{ me { name } }"))
    assert documents.get(small.text) is None  # the oldest went to make room
    assert documents.weight <= documents.size


def test_a_document_over_the_whole_budget_is_not_kept() -> None:
    wide = accepted("{ me { " + "id " * 500 + "} }")
    documents = Documents(size=wide.weight - 1)
    documents.keep(wide)
    assert len(documents) == 0 and documents.weight == 0


def test_anonymous_documents_are_kept_in_a_share_of_their_own() -> None:
    store = AcceptedStore()
    floor = accepted("{ me { id } }")
    store.keep(floor, anonymous=False)
    for n in range(3 * ANONYMOUS_ENTRIES):
        store.keep(accepted(f"{{ me {{ id }} }} # {n}"), anonymous=True)
    assert (len(store.signed_in), len(store.anonymous)) == (1, ANONYMOUS_ENTRIES)
    assert store.get(floor.text) is floor
    newest = f"{{ me {{ id }} }} # {3 * ANONYMOUS_ENTRIES - 1}"
    found = store.get(newest)
    assert found is not None and store.of(newest, found.document) is found


def test_a_kept_document_holds_no_tokens_and_still_places_errors() -> None:
    text = "query Q($id: ID!) {\n  node(id: $id) { ... on Customer { name @include(if: true) } }\n}"
    kept = accepted(text)
    reached = kept_objects(kept)
    assert len(reached) > 20  # the nodes and their locations
    assert [o for o in reached if isinstance(o, Token)] == []
    [operation] = kept.document.definitions
    field = operation.selection_set.selections[0]  # type: ignore[attr-defined]
    error = GraphQLError("here", field)
    assert error.locations is not None
    assert [(place.line, place.column) for place in error.locations] == [(2, 3)]


def kept_objects(kept: Accepted) -> list[object]:
    """Every object a kept document reaches, classes aside (they reach everything)."""
    seen: dict[int, object] = {}
    todo: list[object] = [kept.document]
    while todo:
        item = todo.pop()
        if id(item) not in seen and gc.is_tracked(item) and not isinstance(item, type):
            seen[id(item)] = item
            todo.extend(gc.get_referents(item))
    return list(seen.values())
